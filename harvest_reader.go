// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"

	"github.com/monkeyllm/vine/catalog"
)

// HarvestReader is what a harvest sweep reads through. An open forest
// satisfies it through HarvestEngine; a scoped view that filters every
// read by a policy satisfies it too, so scope filtering happens before
// budgeting. A sweep calls its HarvestReader from several goroutines at
// once (the two legs, then the items), so an implementation must be safe
// for concurrent use, as a Vine is.
type HarvestReader interface {
	Locate(ctx context.Context, query string, opt LocateOptions) (*LocateResult, error)
	Sniff(ctx context.Context, terms []string, opt SniffOptions) (*SniffResult, error)
	// SniffEach is sniff([t], scope=id, k=1) for each term t, from one
	// read of the node's body.
	SniffEach(ctx context.Context, id string, terms []string) ([]SniffHit, error)
	Pick(ctx context.Context, id string, opt PickOptions) (*Content, error)
	// Record is a node's catalog row with its declared out-edges.
	Record(ctx context.Context, id string) (catalog.Record, error)
	// InEdges are the declared links pointing at id.
	InEdges(ctx context.Context, id string) ([]catalog.InEdge, error)
	// Notes is the `## Notes` text of a dataset or media node, header
	// dropped and clipped to 200 tokens ("" when it has none).
	Notes(ctx context.Context, id string) (string, error)
}

// HarvestEngine adapts an open forest to HarvestReader: the reads
// Vine.Harvest sweeps through.
func HarvestEngine(v *Vine) HarvestReader { return vineReader{v} }

// vineReader reads an open forest for a sweep; it also offers the
// optional batch row read and one-read body path.
type vineReader struct{ v *Vine }

func (e vineReader) Locate(ctx context.Context, q string, o LocateOptions) (*LocateResult, error) {
	return e.v.Locate(ctx, q, o)
}

func (e vineReader) Sniff(ctx context.Context, t []string, o SniffOptions) (*SniffResult, error) {
	return e.v.Sniff(ctx, t, o)
}

func (e vineReader) SniffEach(ctx context.Context, id string, t []string) ([]SniffHit, error) {
	return e.v.SniffEach(ctx, id, t)
}

func (e vineReader) Pick(ctx context.Context, id string, o PickOptions) (*Content, error) {
	return e.v.Pick(ctx, id, o)
}

func (e vineReader) Record(ctx context.Context, id string) (catalog.Record, error) {
	return e.v.Record(ctx, id)
}

func (e vineReader) InEdges(ctx context.Context, id string) ([]catalog.InEdge, error) {
	return e.v.InEdges(ctx, id)
}

func (e vineReader) Records(ctx context.Context, ids []string) (map[string]catalog.Record, error) {
	return e.v.Records(ctx, ids)
}

// recordsReader is the optional batch read a HarvestReader may offer: one query
// for many rows instead of one per candidate.
type recordsReader interface {
	Records(ctx context.Context, ids []string) (map[string]catalog.Record, error)
}

func (e vineReader) BodyOf(ctx context.Context, rec catalog.Record) (*Body, error) {
	return e.v.BodyOf(ctx, rec)
}

// bodyReader is the optional one-read path of an item: the HarvestReader reads
// the body of a node whose row the sweep holds once, and the item sniffs
// and picks that read.
type bodyReader interface {
	BodyOf(ctx context.Context, rec catalog.Record) (*Body, error)
}

// nodeReads are the reads an item makes of its own node.
type nodeReads interface {
	SniffEach(ctx context.Context, terms []string) ([]SniffHit, error)
	Pick(ctx context.Context, opt PickOptions) (*Content, error)
}

// readsOf opens a candidate's reads: one body read when the HarvestReader offers
// it and the candidate's row was read, else a call on the HarvestReader per read.
// A failed body read takes the per-call path, whose reads then fail as
// they would have.
func readsOf(ctx context.Context, r HarvestReader, c *harvestCandidate) nodeReads {
	if br, ok := r.(bodyReader); ok && c.found {
		if b, err := br.BodyOf(ctx, c.rec); err == nil {
			return bodyReads{b}
		}
	}
	return readerReads{r, c.id}
}

type bodyReads struct{ b *Body }

func (b bodyReads) SniffEach(_ context.Context, terms []string) ([]SniffHit, error) {
	return b.b.SniffEach(terms)
}

func (b bodyReads) Pick(_ context.Context, opt PickOptions) (*Content, error) {
	return b.b.Pick(opt)
}

type readerReads struct {
	r  HarvestReader
	id string
}

func (r readerReads) SniffEach(ctx context.Context, terms []string) ([]SniffHit, error) {
	return r.r.SniffEach(ctx, r.id, terms)
}

func (r readerReads) Pick(ctx context.Context, opt PickOptions) (*Content, error) {
	return r.r.Pick(ctx, r.id, opt)
}

func (e vineReader) Notes(ctx context.Context, id string) (string, error) {
	d, err := e.v.Look(ctx, id, LookOptions{Fields: []string{"notes"}})
	if err != nil {
		return "", err
	}
	return d.Notes, nil
}
