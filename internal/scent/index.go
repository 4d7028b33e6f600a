// SPDX-License-Identifier: Apache-2.0

// Package scent is an in-memory copy of the catalog's metadata index
// (nodes_fts: titles, aliases, tags and summaries, spec 02 §1.4) that
// ranks nodes the way FTS5's bm25() ranks them, without SQLite.
//
// FTS5 in the pure-Go SQLite build spends most of a locate in its bm25()
// callback; the copy answers the same question from packed postings in a
// fraction of the time. It must answer exactly as the index would, so:
//
//   - it is built from the index's own rows (catalog.ScentRows), never
//     from the markdown, and only for an index declared as the catalog
//     declares it (catalog.ScentTracked);
//   - text is split as the index's tokenizer splits it: a Go twin for
//     ASCII text, and SQLite's own tokenizer (catalog.Tokenizer) for any
//     other, so both hold the same terms;
//   - the score is FTS5's bm25 formula term for term, in the same order of
//     operations (see rank), with the column weights of catalog.RankExpr;
//   - ties keep rowid order, as the SQL orders them.
//
// An Index is immutable once built and safe for concurrent use. A Model
// keeps the Index of the catalog's current generation (see Model).
package scent

import "math"

// weights are the column weights of catalog.RankExpr (title, aliases,
// tags, summary; the id column is not indexed). A test holds the two
// together.
var weights = [ncols]float64{4, 3, 2, 1}

// ncols is the number of indexed columns.
const ncols = 4

// BM25 parameters of FTS5's bm25(): variables, so Go evaluates k1 + 1
// in float64 arithmetic as C does, not as an exact constant.
var (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Doc is one row of the index with the node columns a locate filters on.
type Doc struct {
	RowID   int64
	Node    bool // a nodes row has this rowid
	Branch  bool // kind = 'branch'
	ID      string
	Type    string
	Created string
	Updated string
}

// Index is the metadata index of one catalog generation: every row's
// terms column by column (toks, colOff), the rows holding each term
// (postings), and the row counts bm25 needs.
type Index struct {
	gen    int64
	nodes  int   // nodes rows at gen
	inRows int   // rows with a node
	nToken int64 // tokens over every row and column (FTS5's total size)

	docs   []Doc    // in rowid order: a doc number is an index here
	colOff []uint32 // doc d's column c is toks[colOff[4d+c]:colOff[4d+c+1]]
	toks   []uint32 // term ids

	terms   map[string]uint32
	postOff []uint32 // term t is held by post[postOff[t]:postOff[t+1]]
	post    []uint32 // doc numbers, ascending per term
}

// Generation is the catalog generation the index was built at.
func (x *Index) Generation() int64 { return x.gen }

// Docs is the number of index rows.
func (x *Index) Docs() int { return len(x.docs) }

// Doc returns the row of doc number d.
func (x *Index) Doc(d int) *Doc { return &x.docs[d] }

// Nodes is the number of catalog nodes at the index's generation, and
// whether every one of them has an index row (so counting docs with
// Node set counts the nodes).
func (x *Index) Nodes() (int, bool) { return x.nodes, x.inRows == x.nodes }

// Phrase is a query phrase as term ids; ok is false when one of its
// tokens is in no row (or it has none), so it matches nothing.
type Phrase struct {
	ids []uint32
	ok  bool
}

// phrase looks the tokens up.
func (x *Index) phrase(tokens []string) Phrase {
	p := Phrase{ids: make([]uint32, len(tokens)), ok: len(tokens) > 0}
	for i, t := range tokens {
		id, found := x.terms[t]
		if !found {
			return Phrase{}
		}
		p.ids[i] = id
	}
	return p
}

// Rows is how many rows hold the phrase (FTS5's count of the rows a
// phrase matches), counted up to limit: a one-token phrase reads its
// posting count, a longer one stops at the limit.
func (x *Index) Rows(tokens []string, limit int) int {
	p := x.phrase(tokens)
	if !p.ok {
		return 0
	}
	if len(p.ids) == 1 {
		return min(int(x.df(p.ids[0])), limit)
	}
	n := 0
	x.matchUntil(p, func(uint32, float64) bool { n++; return n < limit })
	return n
}

// match calls fn for every row holding p with the row's weighted count of
// p (each instance adds its column's weight, as bm25() sums them).
func (x *Index) match(p Phrase, fn func(d uint32, freq float64)) {
	x.matchUntil(p, func(d uint32, freq float64) bool { fn(d, freq); return true })
}

// matchUntil is match stopping when fn returns false.
func (x *Index) matchUntil(p Phrase, fn func(d uint32, freq float64) bool) {
	if !p.ok {
		return
	}
	lead := p.ids[0]
	for _, t := range p.ids[1:] {
		if x.df(t) < x.df(lead) {
			lead = t
		}
	}
	for _, d := range x.post[x.postOff[lead]:x.postOff[lead+1]] {
		freq := 0.0
		for c := range ncols {
			seq := x.toks[x.colOff[ncols*int(d)+c]:x.colOff[ncols*int(d)+c+1]]
			if n := instances(seq, p.ids); n > 0 {
				freq += float64(n) * weights[c]
			}
		}
		if freq > 0 && !fn(d, freq) {
			return
		}
	}
}

func (x *Index) df(t uint32) uint32 { return x.postOff[t+1] - x.postOff[t] }

// instances counts the positions where p starts in seq (overlapping
// matches count, as FTS5's position lists do).
func instances(seq, p []uint32) int {
	n := 0
	if len(p) == 1 {
		for _, t := range seq {
			if t == p[0] {
				n++
			}
		}
		return n
	}
outer:
	for i := 0; i+len(p) <= len(seq); i++ {
		for j, t := range p {
			if seq[i+j] != t {
				continue outer
			}
		}
		n++
	}
	return n
}

// docLen is the row's size in tokens over every column (xColumnSize -1).
func (x *Index) docLen(d uint32) float64 {
	return float64(x.colOff[ncols*int(d)+ncols] - x.colOff[ncols*int(d)])
}

// idf is FTS5's inverse document frequency of a phrase held by hits of
// rows rows, floored at 1e-6 where the formula would go negative.
func idf(rows, hits int64) float64 {
	v := math.Log((float64(rows-hits) + 0.5) / (float64(hits) + 0.5))
	if v <= 0 {
		v = 1e-6
	}
	return v
}
