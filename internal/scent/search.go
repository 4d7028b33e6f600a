// SPDX-License-Identifier: Apache-2.0

package scent

import (
	"cmp"
	"slices"
	"sync"
)

// Hit is one ranked row: its rowid and its bm25 rank (lower, more
// negative, is better), as bm25(nodes_fts, 0, 4, 3, 2, 1) gives it.
type Hit struct {
	RowID int64
	Rank  float64
	Doc   *Doc
}

// Search ranks the rows matching any of the phrases (an OR of quoted
// phrases, as catalog.MatchExpr writes them; each phrase its tokens) and
// returns at most limit of those keep accepts (nil keeps all), best
// first, ties in rowid order: the rows of
//
//	SELECT rowid, bm25(...) AS rank FROM nodes_fts WHERE nodes_fts MATCH ?
//	ORDER BY rank, rowid LIMIT ?
func (x *Index) Search(phrases [][]string, limit int, keep func(*Doc) bool) []Hit {
	if limit <= 0 || len(x.docs) == 0 {
		return nil
	}
	s := x.scratch()
	defer x.release(s)
	m := len(phrases)
	idfs := make([]float64, m)
	for i, tokens := range phrases {
		hits := 0
		x.match(x.phrase(tokens), func(d uint32, freq float64) {
			hits++
			slot := s.slot[d]
			if slot == 0 {
				s.docs = append(s.docs, d)
				for range m {
					s.freq = append(s.freq, 0)
				}
				slot = int32(len(s.docs))
				s.slot[d] = slot
			}
			s.freq[int(slot-1)*m+i] = freq
		})
		idfs[i] = idf(int64(len(x.docs)), int64(hits))
	}
	top := make([]Hit, 0, min(limit, len(s.docs)))
	avgdl := float64(x.nToken) / float64(len(x.docs))
	for k, d := range s.docs {
		doc := &x.docs[d]
		if keep != nil && !keep(doc) {
			continue
		}
		h := Hit{RowID: doc.RowID, Rank: x.rank(d, s.freq[k*m:(k+1)*m], idfs, avgdl), Doc: doc}
		top = insertTop(top, h, limit)
	}
	return top
}

// rank is fts5Bm25Function's score of row d, operation for operation:
//
//	score += idf[i] * ((f[i] * (k1 + 1)) / (f[i] + k1 * (1 - b + b * D / avgdl)))
//
// over every phrase in order (a phrase the row lacks adds 0), negated.
func (x *Index) rank(d uint32, freq, idfs []float64, avgdl float64) float64 {
	k1, b := bm25K1, bm25B
	D := x.docLen(d)
	score := 0.0
	for i, f := range freq {
		score += idfs[i] * ((f * (k1 + 1.0)) / (f + k1*(1-b+b*D/avgdl)))
	}
	return -1.0 * score
}

// insertTop keeps top sorted by (rank, rowid) and at most limit long.
func insertTop(top []Hit, h Hit, limit int) []Hit {
	less := func(a, b Hit) int { return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.RowID, b.RowID)) }
	if len(top) == limit && less(h, top[len(top)-1]) >= 0 {
		return top
	}
	i, _ := slices.BinarySearchFunc(top, h, less)
	if len(top) == limit {
		top = top[:len(top)-1]
	}
	return slices.Insert(top, i, h)
}

// searchScratch is a search's working memory: the slot of each matched
// doc (1-based, 0 for none), the matched docs, and their phrase counts.
type searchScratch struct {
	slot []int32
	docs []uint32
	freq []float64
}

var scratchPool sync.Pool

func (x *Index) scratch() *searchScratch {
	s, _ := scratchPool.Get().(*searchScratch)
	if s == nil {
		s = &searchScratch{}
	}
	if len(s.slot) < len(x.docs) {
		s.slot = make([]int32, len(x.docs))
	}
	return s
}

// release clears the slots it set and returns the scratch to the pool.
func (x *Index) release(s *searchScratch) {
	for _, d := range s.docs {
		s.slot[d] = 0
	}
	s.docs, s.freq = s.docs[:0], s.freq[:0]
	scratchPool.Put(s)
}
