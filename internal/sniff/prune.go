// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"container/heap"
	"context"
	"encoding/hex"
	"maps"
	"math"
	"slices"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/bodyindex"
)

// A common term makes tens of thousands of nodes candidates, and reading
// (or looking up the memo rows of) every one of them to return five is
// most of a cold scan's time. The body index counts, per gram and
// document, the lines that hold the gram, so it bounds how many lines of
// a candidate can hold a term. From those bounds and what the memo
// answered exactly for the other terms, each candidate gets the best
// score it could reach. Candidates are read best bound first, in
// batches, until more than k hits are known and the k-th beats every
// bound left: the first k are then those of the whole scan, in the same
// order, and so is truncation. The work per candidate is a few array
// operations over document numbers; ids, hashes and memo rows are met
// only for the nodes read. Unread candidates leave no trace: no memo
// row, no hot entry. (A hit whose file vanishes while it is settled, a
// write racing the scan, gives its seat to the next hit read rather than
// to an unread candidate.)
//
// Below pruneMin candidates the old way wins over repeated questions:
// every candidate is read once, and the terms' whole answers are kept
// hot, so asking again costs little; a bounded answer is worked out anew
// each time.

// pruneMin is the fewest candidates a scan ranks on their bounds; below
// it, the candidates' memo rows are looked up and the rest read. At 2,000
// man pages (every common word under it) and at 100,000 generated notes
// (common words 25,000 and more) it keeps each side on its faster path.
// A variable so tests can lower it.
var pruneMin = 4096

// pruneBatch is how many candidates one round reads at least.
const pruneBatch = 64

// scanBounded answers the indexed terms of a whole-forest scan by
// bounds (see above), when the index holds at least pruneMin candidates
// of them (looked: what it said of each). It reports false, leaving res
// and uncovered as they were, when there are fewer.
func (e *Engine) scanBounded(ctx context.Context, res *scanResult, terms [][]rune, looked []bodyindex.Bounds, a *agreement, uncovered map[string]string, k int) (bool, error) {
	c := boundCandidates(a, looked)
	if len(c.docs) < pruneMin {
		return false, nil
	}
	e.grams.used.Add(1)
	// Nodes the index does not hold as the catalog has them, and nodes
	// the memo could not answer another term for, are read first.
	must := maps.Clone(uncovered)
	maps.Copy(must, a.stale)
	numbered := make([]bool, len(terms))
	if _, err := e.readInto(ctx, res, slices.Sorted(maps.Keys(must)), must, terms, numbered, false); err != nil {
		return true, err
	}
	pending := bodyindex.NewSet(a.idx.Len())
	var bounded []bound
	var ids []string
	for _, d := range c.docs {
		id, _ := a.idx.Doc(d)
		if _, read := must[id]; read {
			continue
		}
		pending.Add(d)
		b := c.bound(d, res.found[id])
		b.index = forest.IsIndex(id)
		bounded, ids = append(bounded, b), append(ids, id)
	}
	heat := e.heat(ctx, ids)
	for i := range bounded {
		b := &bounded[i]
		b.heat = round4(heat[ids[i]])
		b.score = scoreOf(b.hitTerms, len(terms), b.nLines, b.heat)
	}
	top := keepTop(e.scored(ctx, res, len(terms), func(id string) bool {
		d, ok := a.idx.Lookup(id)
		return ok && pending.Has(d) // not read yet: its lists are the memo's of other terms
	}), k)
	if err := e.readBounded(ctx, res, a, terms, k, bounded, pending, top, numbered); err != nil {
		return true, err
	}
	left := 0
	pending.Each(func(d int32) {
		id, _ := a.idx.Doc(d)
		delete(res.found, id) // the memo's lists of the other terms are not its hit
		delete(res.partial, id)
		left++
	})
	if left > 0 {
		e.grams.pruned.Add(1)
	}
	res.uncover(terms, numbered)
	return true, nil
}

// readBounded reads the bounded candidates best bound first until more
// than k hits are known and the k-th beats the best bound left; pending
// loses each candidate read.
func (e *Engine) readBounded(ctx context.Context, res *scanResult, a *agreement, terms [][]rune, k int,
	bounded []bound, pending bodyindex.Set, top []*nodeHit, numbered []bool) error {
	q := boundQueue(bounded)
	heap.Init(&q)
	// A bound tied with the k-th hit could still win on its id: read on.
	for q.Len() > 0 && (len(top) <= k || top[k-1].standing().compare(q[0].standing) >= 0) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var ids []string
		hashes := map[string]string{}
		byID := map[string]bound{}
		for range max(pruneBatch, 4*k) {
			if q.Len() == 0 {
				break
			}
			b := heap.Pop(&q).(bound)
			id, h := a.idx.Doc(b.doc)
			ids = append(ids, id)
			hashes[id], byID[id] = hex.EncodeToString(h[:]), b
			pending.Del(b.doc)
		}
		slices.Sort(ids)
		if _, err := e.readInto(ctx, res, ids, hashes, terms, numbered, true); err != nil {
			return err
		}
		for _, id := range ids {
			if lists, ok := res.found[id]; ok {
				b := byID[id]
				h := &nodeHit{cand: candidate{id: id}, terms: lists, nLines: distinctLines(lists), index: b.standing.index,
					heat: b.heat}
				h.rescore(len(terms))
				top = append(top, h)
			}
		}
		top = keepTop(top, k)
	}
	return nil
}

// candidates is what the index says of the indexed terms: the documents
// that may hold one, and per document how many of the terms it may hold
// and how many lines can hold them, summed over the terms.
type candidates struct {
	docs  []int32
	terms []uint8
	lines []int32
}

// boundCandidates gathers the looked-up terms' candidates and bounds.
// Only documents the index holds as the catalog has them are bounded;
// the others are read in any case.
func boundCandidates(a *agreement, looked []bodyindex.Bounds) *candidates {
	n := a.idx.Len()
	c := &candidates{terms: make([]uint8, n), lines: make([]int32, n)}
	for _, b := range looked {
		for j, d := range b.Docs {
			if !a.fresh.Has(d) {
				continue
			}
			if c.terms[d] == 0 {
				c.docs = append(c.docs, d)
			}
			c.terms[d]++
			c.lines[d] = int32(min(int64(c.lines[d])+int64(b.Lines[j]), math.MaxInt32))
		}
	}
	return c
}

// bound is a candidate scored on its bounds: the terms the memo answered
// for it (lists, by term; nil for the indexed ones) as they are, and the
// indexed terms it may hold matched on as many lines as the index
// allows, none of them shared with another term.
func (c *candidates) bound(d int32, lists [][]Line) bound {
	b := bound{doc: d, hitTerms: int(c.terms[d])}
	b.nLines = int(min(int64(distinctLines(lists))+int64(c.lines[d]), math.MaxInt32))
	for _, l := range lists {
		if len(l) > 0 {
			b.hitTerms++
		}
	}
	return b
}

// bound is one candidate's best possible standing.
type bound struct {
	standing
	doc      int32
	hitTerms int
	heat     float64
}

// boundQueue is a heap of bounds, best first.
type boundQueue []bound

func (q boundQueue) Len() int           { return len(q) }
func (q boundQueue) Less(i, j int) bool { return q[i].standing.compare(q[j].standing) < 0 }
func (q boundQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *boundQueue) Push(x any)        { *q = append(*q, x.(bound)) }
func (q *boundQueue) Pop() any {
	old := *q
	b := old[len(old)-1]
	*q = old[:len(old)-1]
	return b
}

// keepTop orders the k+1 best hits first and drops the rest.
func keepTop(hits []*nodeHit, k int) []*nodeHit {
	hits = slices.DeleteFunc(hits, func(h *nodeHit) bool { return h.nLines == 0 })
	orderTop(hits, min(k+1, len(hits)))
	return hits[:min(k+1, len(hits))]
}
