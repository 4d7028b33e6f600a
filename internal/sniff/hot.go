// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"sync"
)

// The hot memo keeps in memory what a warm whole-forest sniff reads from
// the memo for a covered term: which nodes match and on which lines. Once
// a term is covered at a catalog generation its memo rows are complete and
// cannot change until the next write, which moves the generation on; so an
// entry read at generation g answers exactly what the rows would for as
// long as the catalog is at g, and any other generation misses. Ranking is
// never kept: heat and scores are computed on every call. The memo rows
// stay the record; dropping this cache changes latency only.
//
// At a common term the SQL read was most of a warm sniff (5 terms over a
// ~100-node forest, 82 matching nodes for one of them: 1.7 ms of a 2.4 ms
// sniff), and harvest sniffs the same words as the questions repeat them.

// hotMemoBudget bounds the hot memo in bytes, as estimated by hotTerm.cost.
// A variable so tests can shrink it.
var hotMemoBudget = 16 << 20

// hotMemo is safe for concurrent use.
type hotMemo struct {
	mu    sync.Mutex
	gen   int64 // the generation every entry was read at
	terms map[string]*hotTerm
	cost  int
	clock int64
}

// hotTerm is one covered term: the matching nodes with their body hashes
// and line numbers (flat, hit i owning lines[off:off+n]), and the nodes in
// the forest without a body hash, which every scan reads from their files.
type hotTerm struct {
	hits     []hotHit
	lines    []int32
	unhashed []string
	used     int64
	// full holds the complete records of the nodes a sniff rendered,
	// settled from the memo rows (guarded by hotMemo.mu).
	full     map[string][]Line
	fullCost int
}

type hotHit struct {
	id, hash string
	off, n   int32
}

// cost estimates the bytes an entry holds: string and slice headers,
// the line numbers, the ids, and the full records it keeps.
func (t *hotTerm) cost() int {
	c := 64 + 4*len(t.lines) + 16*len(t.unhashed) + t.fullCost
	for _, h := range t.hits {
		c += 40 + len(h.id) + len(h.hash)
	}
	for _, id := range t.unhashed {
		c += len(id)
	}
	return c
}

// get returns the entry of term at generation gen.
func (m *hotMemo) get(term string, gen int64) (*hotTerm, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen != gen {
		return nil, false
	}
	t, ok := m.terms[term]
	if ok {
		m.clock++
		t.used = m.clock
	}
	return t, ok
}

// put stores the entry of term read at generation gen. An entry of a
// newer generation than the cache's empties the cache; one of an older
// generation (a slow reader that raced a write) is not stored. Past the
// budget, the terms used least recently leave; an entry larger than the
// whole budget is not stored.
func (m *hotMemo) put(term string, gen int64, t *hotTerm) {
	c := t.cost()
	if c > hotMemoBudget {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case gen < m.gen:
		return
	case gen > m.gen || m.terms == nil:
		m.gen, m.terms, m.cost = gen, map[string]*hotTerm{}, 0
	}
	if old, ok := m.terms[term]; ok {
		m.cost -= old.cost()
	}
	m.clock++
	t.used = m.clock
	m.terms[term] = t
	m.cost += c
	for m.cost > hotMemoBudget {
		m.evictOldest()
	}
}

func (m *hotMemo) evictOldest() {
	var victim string
	var oldest *hotTerm
	for term, t := range m.terms {
		if oldest == nil || t.used < oldest.used {
			victim, oldest = term, t
		}
	}
	delete(m.terms, victim)
	m.cost -= oldest.cost()
}

// full returns the complete records of node id for term, if kept.
func (m *hotMemo) full(term string, gen int64, id string) ([]Line, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen != gen {
		return nil, false
	}
	t, ok := m.terms[term]
	if !ok {
		return nil, false
	}
	lines, ok := t.full[id]
	return lines, ok
}

// keepFull keeps the complete records of node id for term, when the term
// is held at gen; the records are never modified afterwards.
func (m *hotMemo) keepFull(term string, gen int64, id string, lines []Line) {
	c := 32 + len(id)
	for _, l := range lines {
		c += 48 + len(l.Text)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.terms[term]
	if m.gen != gen || !ok {
		return
	}
	if _, dup := t.full[id]; dup {
		return
	}
	if t.full == nil {
		t.full = map[string][]Line{}
	}
	t.full[id] = lines
	t.fullCost += c
	m.cost += c
	for m.cost > hotMemoBudget && len(m.terms) > 0 {
		m.evictOldest()
	}
}

// hotBuilder collects a term's memo matches as the SQL read streams them.
type hotBuilder struct{ t hotTerm }

func (b *hotBuilder) add(id, hash string, lines []Line) {
	b.t.hits = append(b.t.hits, hotHit{id: id, hash: hash, off: int32(len(b.t.lines)), n: int32(len(lines))})
	for _, l := range lines {
		b.t.lines = append(b.t.lines, int32(l.Line))
	}
}

// each calls fn with every matching node and its lines as numbers-only
// records, which the caller owns.
func (t *hotTerm) each(fn func(id, hash string, lines []Line, numbersOnly bool)) {
	all := make([]Line, len(t.lines))
	for i, n := range t.lines {
		all[i].Line = int(n)
	}
	for _, h := range t.hits {
		fn(h.id, h.hash, all[h.off:h.off+h.n:h.off+h.n], true)
	}
}

// reset empties the hot memo.
func (m *hotMemo) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.terms, m.cost = nil, 0
}
