// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// LinkResult lists the managed links one sweep changed, as
// "<id> <rel>-><target>" (H.2). Refused lists links whose node the write
// rules refused to rewrite (a hand-broken passport, say), with the reason;
// the sweep goes on without them.
type LinkResult struct {
	Promoted []string `json:"promoted"`
	Pruned   []string `json:"pruned"`
	Refused  []string `json:"refused,omitempty"`
}

// structuralRels are never managed, whatever confidence they carry: they
// say what a node belongs to, not what it is like.
var structuralRels = []string{"part-of"}

// Managed reports whether the Ranger manages a link, and its confidence
// when it does: a link-level numeric confidence below 1.0 on a rel that is
// not structural (H.2 scope rule). A link without confidence, at 1.0, or
// with a string or boolean confidence is a person's and is never touched.
func Managed(l forest.Link) (confidence float64, ok bool) {
	if l.Entry == nil || slices.Contains(structuralRels, l.Rel) {
		return 0, false
	}
	v, _ := l.Entry.Get("confidence")
	switch c := v.(type) {
	case float64:
		confidence = c
	case int64:
		confidence = float64(c)
	default:
		return 0, false
	}
	return confidence, confidence < 1 && !math.IsNaN(confidence)
}

// proposal is one managed link found by the sweep.
type proposal struct {
	id, rel, target string
	confidence      float64
}

func (p proposal) String() string { return p.id + " " + p.rel + "->" + p.target }

// TendLinks sweeps every managed link once (H.2). With both ends at least
// promote_floor hot (persistent heat, read after this cycle's evaporation)
// and a confidence below promoted_confidence, the link is promoted to
// promoted_confidence; otherwise, when both ends are stone cold (no heat
// at all) and its confidence is at most prune_below, it is removed. Any
// other link waits for more evidence. Each change is its own audited
// commit of the one .md, "ranger(promote): …" or "ranger(prune): …".
// Nodes are never created or deleted, and _meta is skipped.
func (r *Ranger) TendLinks(ctx context.Context) (LinkResult, error) {
	res := LinkResult{Promoted: []string{}, Pruned: []string{}}
	if err := r.writable("links"); err != nil {
		return res, err
	}
	props, err := r.proposals(ctx)
	if err != nil {
		return res, err
	}
	heat, err := r.v.Trails().Heat(ctx, proposalIDs(props), "")
	if err != nil {
		return res, fmt.Errorf("ranger: read heat: %w", err)
	}
	for i, p := range props {
		r.progress(vine.Progress{Op: "ranger links", Done: i, Total: len(props)})
		promote, prune := r.decide(p, heat[p.id], heat[p.target])
		if !promote && !prune {
			continue
		}
		if err := r.apply(ctx, p, promote, &res); err != nil {
			return res, err
		}
	}
	r.progress(vine.Progress{Op: "ranger links", Done: len(props), Total: len(props)})
	return res, nil
}

// decide applies H.2's rule to one link given the heat of its ends.
func (r *Ranger) decide(p proposal, hs, ht float64) (promote, prune bool) {
	if hs >= r.cfg.PromoteFloor && ht >= r.cfg.PromoteFloor && p.confidence < r.cfg.PromotedConfidence {
		return true, false
	}
	return false, p.confidence <= r.cfg.PruneBelow && hs == 0 && ht == 0
}

// apply makes one promotion or pruning its own commit. The node is re-read
// under the writer lock, so a link a person accepted or removed since the
// sweep read it is left alone and nothing is committed.
func (r *Ranger) apply(ctx context.Context, p proposal, promote bool, res *LinkResult) error {
	subject := gitops.RangerPruneSubject(p.id, p.rel, p.target)
	var set *float64
	if promote {
		c := r.cfg.PromotedConfidence
		set = &c
		subject = gitops.RangerPromoteSubject(p.id, p.rel, p.target, c)
	}
	sha, err := r.v.Maintain(ctx, subject, func(e *vine.Editor) error {
		n, err := e.Node(p.id)
		if vine.CodeOf(err) == vine.ENotFound {
			return nil // pruned or moved by someone else meanwhile
		}
		if err != nil {
			return err
		}
		if !rewriteLink(n, p.rel, p.target, set) {
			return nil
		}
		return e.Put(n)
	})
	code := vine.CodeOf(err)
	switch {
	case err != nil && code != "" && code != vine.EInternal:
		res.Refused = append(res.Refused, p.String()+": "+vine.AsError("ranger", err).Message)
	case err != nil:
		return err
	case sha == "":
		// A person accepted, removed or changed the link since the sweep
		// read it: nothing left to do.
	case promote:
		res.Promoted = append(res.Promoted, p.String())
	default:
		res.Pruned = append(res.Pruned, p.String())
	}
	return nil
}

// rewriteLink is the one audited rewrite of H.2, shared by promotion and
// pruning: every managed link (rel, target) of n is dropped (set nil) or
// raised to *set; a links list left empty loses its key. It reports
// whether n changed. Unmanaged links with the same pair stay as they are.
func rewriteLink(n *forest.Node, rel, target string, set *float64) bool {
	v, _ := n.Front.Get("links")
	items, _ := v.([]any)
	kept := make([]any, 0, len(items))
	changed := false
	for _, it := range items {
		m, ok := it.(*forest.Frontmatter)
		if !ok || m.String("rel") != rel || m.String("target") != target {
			kept = append(kept, it)
			continue
		}
		c, managed := Managed(forest.Link{Rel: rel, Target: target, Entry: m})
		switch {
		case !managed:
			kept = append(kept, it)
		case set == nil:
			changed = true
		case c < *set:
			m.Set("confidence", *set)
			kept = append(kept, m)
			changed = true
		default:
			kept = append(kept, it)
		}
	}
	if !changed {
		return false
	}
	if len(kept) == 0 {
		n.Front.Delete("links")
	} else {
		n.Front.Set("links", kept)
	}
	return true
}

// proposals walks the forest's node files, the truth, and lists each
// managed (id, rel, target) once, in walk order. _meta and unreadable files
// are skipped; validate reports the latter.
func (r *Ranger) proposals(ctx context.Context) ([]proposal, error) {
	root, err := forest.NewRoot(r.v.Dir())
	if err != nil {
		return nil, err
	}
	var props []proposal
	seen := map[[3]string]bool{}
	_, err = root.Walk(func(id, path string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if forest.IsSystem(id) {
			return nil
		}
		n, ok := readNode(id, path)
		if !ok {
			return nil
		}
		for _, l := range n.Links() {
			c, managed := Managed(l)
			key := [3]string{id, l.Rel, l.Target}
			if managed && !seen[key] {
				seen[key] = true
				props = append(props, proposal{id: id, rel: l.Rel, target: l.Target, confidence: c})
			}
		}
		return nil
	})
	return props, err
}

func proposalIDs(props []proposal) []string {
	ids := make([]string, 0, 2*len(props))
	for _, p := range props {
		ids = append(ids, p.id, p.target)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// readNode parses one node file; ok is false when it cannot be read.
func readNode(id, path string) (*forest.Node, bool) {
	data, err := forest.ReadFile(path)
	if err != nil {
		return nil, false
	}
	n, err := forest.Parse(id, data)
	return n, err == nil
}
