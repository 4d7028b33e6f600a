// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"slices"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/budget"
)

// LookBatchResult is look's answer to a list of ids (C.11): the digests in
// the caller's order, the ids that name no node (absent or moved), and the
// ids dropped from the tail to keep the whole answer within 2000 tokens.
// Every requested id (duplicates collapsed) is in exactly one list.
type LookBatchResult struct {
	Nodes     []*Digest `json:"nodes"`
	Missing   []string  `json:"missing"`
	Dropped   []string  `json:"dropped"`
	Truncated bool      `json:"truncated"`
}

// PickBatchResult is pick's answer to a list of ids (C.11), within 4000
// tokens in all; bodies are never sliced to make room, whole nodes are
// dropped from the tail instead.
type PickBatchResult struct {
	Nodes     []*Content `json:"nodes"`
	Missing   []string   `json:"missing"`
	Dropped   []string   `json:"dropped"`
	Truncated bool       `json:"truncated"`
}

func (r *LookBatchResult) nodeIDs() []string {
	ids := make([]string, len(r.Nodes))
	for i, d := range r.Nodes {
		ids[i] = d.ID
	}
	return ids
}

func (r *PickBatchResult) nodeIDs() []string {
	ids := make([]string, len(r.Nodes))
	for i, c := range r.Nodes {
		ids[i] = c.ID
	}
	return ids
}

// LookBatch digests up to 10 nodes in one call: each digest as Look makes
// it (same fields, at most 500 tokens), the whole within 2000 tokens. An id
// that is absent or was transplanted goes to Missing; one bad id never
// fails the batch. An empty or over-cap list is refused with E_SCHEMA.
func (v *Vine) LookBatch(ctx context.Context, ids []string, opt LookOptions) (*LookBatchResult, error) {
	if len(ids) == 0 || len(ids) > MaxBatchLook {
		return nil, errBatchSize("look", len(ids), MaxBatchLook)
	}
	res := &LookBatchResult{Nodes: []*Digest{}, Missing: []string{}, Dropped: []string{}}
	ctx = withLookGauntlet(ctx, opt) // one Gauntlet goal for every digest (look.go)
	want := newLookWant(opt.Fields)
	for _, id := range batchUniqueIDs(ids) {
		rec, err := v.resolver.resolve(ctx, id)
		if batchMissing(err) {
			res.Missing = append(res.Missing, id)
			continue
		}
		if err != nil {
			return nil, err
		}
		d, err := buildDigest(ctx, v, rec, want)
		if batchMissing(err) { // the file went away under its catalog row
			res.Missing = append(res.Missing, id)
			continue
		}
		if err != nil {
			return nil, err
		}
		res.Nodes = append(res.Nodes, d)
	}
	res.Truncated = batchDropTail(&res.Nodes, &res.Dropped, BudgetLookBatch, func() any { return res },
		func(d *Digest) string { return d.ID })
	return res, nil
}

// PickBatch reads up to 5 bodies in one call, each as Pick reads it with
// the same section argument, the whole within 4000 tokens. A list cannot
// take a cursor (E_SCHEMA: a cursor resumes one body). An id that is
// absent, transplanted or whose body cannot be reached goes to Missing; a
// bare section name absent from one node fails the call with E_NOT_FOUND,
// as in the reference (spec 02 §10 item 8).
func (v *Vine) PickBatch(ctx context.Context, ids []string, opt PickOptions) (*PickBatchResult, error) {
	if len(ids) == 0 || len(ids) > MaxBatchPick {
		return nil, errBatchSize("pick", len(ids), MaxBatchPick)
	}
	if opt.Paged || opt.After != "" {
		return nil, envelope.New(envelope.Schema,
			"pick: parameter 'after' cannot go with a list of ids: a cursor resumes one body",
			"page through one body at a time: pick(id, after=<next>)")
	}
	start, err := opt.check()
	if err != nil {
		return nil, err
	}
	res := &PickBatchResult{Nodes: []*Content{}, Missing: []string{}, Dropped: []string{}}
	for _, id := range batchUniqueIDs(ids) {
		rec, err := v.resolver.resolve(ctx, id)
		var src *pickSource
		if err == nil {
			src, err = v.files.pickSource(rec)
		}
		if batchMissing(err) {
			res.Missing = append(res.Missing, id)
			continue
		}
		if err != nil {
			return nil, err
		}
		c, err := src.pick(opt, start)
		if err != nil {
			return nil, err
		}
		res.Nodes = append(res.Nodes, c)
	}
	res.Truncated = batchDropTail(&res.Nodes, &res.Dropped, BudgetPick, func() any { return res },
		func(c *Content) string { return c.ID })
	return res, nil
}

// batchMissing reports whether a read by id found no node to serve: absent,
// out of reach, or moved (spec 01 §12: a waymark in a batch is missing).
func batchMissing(err error) bool {
	c := envelope.CodeOf(err)
	return c == envelope.NotFound || c == envelope.Moved
}

// batchUniqueIDs collapses duplicates, keeping first positions.
func batchUniqueIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// batchDropTail pops whole items from the tail of nodes while the payload is
// over limit, prepending their ids to dropped so it stays in request order.
// It reports whether anything was dropped.
func batchDropTail[T any](nodes *[]T, dropped *[]string, limit int, render func() any, idOf func(T) string) bool {
	cut := false
	for len(*nodes) > 0 && budget.EstimatePayloadTokens(render()) > limit {
		last := (*nodes)[len(*nodes)-1]
		*nodes = (*nodes)[:len(*nodes)-1]
		*dropped = append([]string{idOf(last)}, *dropped...)
		cut = true
	}
	return cut
}
