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

// splitBatch bounds the texts handed to the Splitter at once.
const splitBatch = 512

// Build reads every index row of src and builds the Index of the
// generation they are of.
func Build(ctx context.Context, src Source, split Splitter) (*Index, error) {
	var rows []catalog.ScentRow
	gen, nodes, err := src.ScentRows(ctx, func(r *catalog.ScentRow) error {
		rows = append(rows, *r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	other, err := splitOther(rows, split)
	if err != nil {
		return nil, err
	}
	b := newBuilder(len(rows))
	for i := range rows {
		b.add(&rows[i], other)
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

// fieldKey names one column of one row.
type fieldKey struct{ row, col int }

func fields(r *catalog.ScentRow) [ncols]string {
	return [ncols]string{r.Title, r.Aliases, r.Tags, r.Summary}
}

// splitOther tokenizes every non-ASCII column through split.
func splitOther(rows []catalog.ScentRow, split Splitter) (map[fieldKey][]string, error) {
	out := map[fieldKey][]string{}
	var keys []fieldKey
	var texts []string
	flush := func() error {
		if len(texts) == 0 {
			return nil
		}
		toks, err := split.Tokens(texts)
		if err != nil {
			return err
		}
		for i, k := range keys {
			out[k] = toks[i]
		}
		keys, texts = keys[:0], texts[:0]
		return nil
	}
	for i := range rows {
		for c, s := range fields(&rows[i]) {
			if isASCII(s) {
				continue
			}
			keys, texts = append(keys, fieldKey{i, c}), append(texts, s)
			if len(texts) == splitBatch {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, flush()
}

// builder accumulates rows in rowid order.
type builder struct {
	x      *Index
	buf    []byte
	intern map[string]string
	row    int
}

func newBuilder(n int) *builder {
	return &builder{
		x: &Index{
			docs:   make([]Doc, 0, n),
			colOff: make([]uint32, 0, ncols*n+1),
			terms:  map[string]uint32{},
		},
		intern: map[string]string{},
	}
}

func (b *builder) add(r *catalog.ScentRow, other map[fieldKey][]string) {
	x := b.x
	for c, s := range fields(r) {
		x.colOff = append(x.colOff, uint32(len(x.toks)))
		if toks, ok := other[fieldKey{b.row, c}]; ok {
			for _, t := range toks {
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
	b.row++
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
