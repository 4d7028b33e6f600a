// SPDX-License-Identifier: Apache-2.0

package canopy

import "slices"

// Hit is one vector near a query: the node id and its cosine.
type Hit struct {
	ID    string
	Score float32
}

// Nearest returns up to k node ids by descending cosine to q, ties in
// index order. It is an exact scan over the contiguous vectors with a
// k-sized heap: nothing is allocated per vector. A q of another length
// than the index's vectors finds nothing.
func (ix *Index) Nearest(q []float32, k int) []Hit {
	if k <= 0 || len(q) != ix.Dim || ix.Dim == 0 {
		return nil
	}
	items := ix.scan(q, k)
	slices.SortFunc(items, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	out := make([]Hit, len(items))
	for i, s := range items {
		out[i] = Hit{ID: ix.ids[s.pos], Score: s.score}
	}
	return out
}

// scan returns the k best candidates, in no particular order. It is one
// pass on one core: measured on two busy cores, splitting it across them
// was slower, the scan being bound by memory rather than arithmetic.
func (ix *Index) scan(q []float32, k int) []scored { return ix.scanRange(q, k, 0, len(ix.ids)) }

// scanRange scores the vectors at positions [from, to) and keeps the k best.
func (ix *Index) scanRange(q []float32, k, from, to int) []scored {
	top := topK{items: make([]scored, 0, min(k, to-from))}
	dim := ix.Dim
	for i, off := from, from*dim; i < to; i, off = i+1, off+dim {
		top.offer(Dot(q, ix.vecs[off:off+dim:off+dim]), i, k)
	}
	return top.items
}

// scored is a candidate of a scan: its cosine and its index position.
type scored struct {
	score float32
	pos   int
}

// better orders candidates: higher score first, then lower position.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.pos < b.pos
}

// topK keeps the k best candidates seen, in a min-heap whose root is the
// worst kept, so a candidate is compared once against the root and the
// heap is touched only when it wins.
type topK struct {
	items []scored
}

func (t *topK) offer(score float32, pos, k int) {
	s := scored{score: score, pos: pos}
	if len(t.items) < k {
		t.items = append(t.items, s)
		t.up(len(t.items) - 1)
		return
	}
	if !better(s, t.items[0]) {
		return
	}
	t.items[0] = s
	t.down(0)
}

func (t *topK) up(i int) {
	h := t.items
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) { // parent is no better: heap order holds
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	h := t.items
	n := len(h)
	for {
		worst := i
		if l := 2*i + 1; l < n && better(h[worst], h[l]) {
			worst = l
		}
		if r := 2*i + 2; r < n && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
