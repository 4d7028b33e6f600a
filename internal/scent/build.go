// SPDX-License-Identifier: Apache-2.0

package scent

import (
	"context"

	"github.com/monkeyllm/vine/catalog"
)

// Source is the catalog an Index is built from.
type Source interface {
	ScentRows(ctx context.Context, fn func(*catalog.ScentRow) error) (gen int64, nodes int, err error)
	ScentTracked(ctx context.Context) (bool, error)
}

// Splitter splits text the way the index's tokenizer does
// (catalog.Tokenizer); the build and queries use it for non-ASCII text.
type Splitter interface {
	Tokens(texts []string) ([][]string, error)
}

// Build reads every index row of src and builds the Index of the
// generation they are of. Rows are folded in as they are read, so the
// build holds the index being built and one row, never the rows' text.
func Build(ctx context.Context, src Source, split Splitter) (*Index, error) {
	b := newBuilder(split)
	gen, nodes, err := src.ScentRows(ctx, b.add)
	if err != nil {
		return nil, err
	}
	x := b.finish()
	x.gen, x.nodes = gen, nodes
	for i := range x.docs {
		if x.docs[i].Node {
			x.inRows++
		}
	}
	return x, nil
}

func fields(r *catalog.ScentRow) [ncols]string {
	return [ncols]string{r.Title, r.Aliases, r.Tags, r.Summary}
}

// builder accumulates rows in rowid order.
type builder struct {
	x      *Index
	split  Splitter // for non-ASCII text
	buf    []byte
	intern map[string]string
}

func newBuilder(split Splitter) *builder {
	return &builder{x: &Index{terms: map[string]uint32{}}, split: split, intern: map[string]string{}}
}

func (b *builder) add(r *catalog.ScentRow) error {
	x := b.x
	for _, s := range fields(r) {
		x.colOff = append(x.colOff, uint32(len(x.toks)))
		if !isASCII(s) {
			toks, err := b.split.Tokens([]string{s})
			if err != nil {
				return err
			}
			for _, t := range toks[0] {
				x.toks = append(x.toks, b.termID(t))
			}
			continue
		}
		b.buf = asciiTokens(s, b.buf, func(tok []byte) { x.toks = append(x.toks, b.termBytes(tok)) })
	}
	x.docs = append(x.docs, Doc{
		RowID: r.RowID, Node: r.Node, Branch: r.Kind == "branch", ID: r.ID,
		Type: b.str(r.Type), Created: b.str(r.Created), Updated: b.str(r.Updated),
	})
	return nil
}

func (b *builder) termBytes(tok []byte) uint32 {
	if id, ok := b.x.terms[string(tok)]; ok {
		return id
	}
	return b.termID(string(tok))
}

func (b *builder) termID(t string) uint32 {
	id, ok := b.x.terms[t]
	if !ok {
		id = uint32(len(b.x.terms))
		b.x.terms[t] = id
	}
	return id
}

// str interns the short repeated columns (types, dates).
func (b *builder) str(s string) string {
	if v, ok := b.intern[s]; ok {
		return v
	}
	b.intern[s] = s
	return s
}

// finish closes the column offsets and lays out the postings: one pass
// counts each term's rows, the next fills them in doc order.
func (b *builder) finish() *Index {
	x := b.x
	x.colOff = append(x.colOff, uint32(len(x.toks)))
	x.nToken = int64(len(x.toks))
	nt := len(x.terms)
	x.postOff = make([]uint32, nt+1)
	last := make([]int32, nt)
	for i := range last {
		last[i] = -1
	}
	x.eachTerm(func(d int, t uint32) {
		if last[t] != int32(d) {
			last[t] = int32(d)
			x.postOff[t+1]++
		}
	})
	for t := range nt {
		x.postOff[t+1] += x.postOff[t]
	}
	x.post = make([]uint32, x.postOff[nt])
	next := make([]uint32, nt)
	copy(next, x.postOff[:nt])
	for i := range last {
		last[i] = -1
	}
	x.eachTerm(func(d int, t uint32) {
		if last[t] != int32(d) {
			last[t] = int32(d)
			x.post[next[t]] = uint32(d)
			next[t]++
		}
	})
	return x
}

// eachTerm calls fn with every (doc, term) occurrence in doc order.
func (x *Index) eachTerm(fn func(d int, t uint32)) {
	for d := range x.docs {
		for _, t := range x.toks[x.colOff[ncols*d]:x.colOff[ncols*d+ncols]] {
			fn(d, t)
		}
	}
}
