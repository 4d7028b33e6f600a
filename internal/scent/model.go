// SPDX-License-Identifier: Apache-2.0

package scent

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
)

// Model keeps the Index of one catalog, built lazily on the first search
// and trusted only at the generation it was built at: another process (or
// this one) may write between two calls, so every call names the
// generation it reads, and a stale Index is never used.
//
// A new generation is not rebuilt on first sight: the callers search the
// catalog's own index (At returns nil) until the generation has stood for
// a number of calls that grows with the forest (one per 5,000 rows past
// the first call), so what a stale copy costs in slower searches stays
// in proportion to what a rebuild costs. A writer that alternates writes
// and searches therefore pays no rebuild per write, and a reader pays one
// rebuild once the writes stop. While one call rebuilds, the others
// search the catalog's index rather than wait.
type Model struct {
	src   Source
	split *splitter

	build sync.Mutex // held while building
	cur   atomic.Pointer[Index]
	seen  atomic.Int64 // the last generation a stale call saw
	stood atomic.Int64 // calls since that generation was first seen
	off   atomic.Bool  // the catalog's index is not this catalog's own: never build
}

// NewModel returns a Model over src; split tokenizes non-ASCII text as the
// index does. Close releases split when it is an io.Closer.
func NewModel(src Source, split Splitter) *Model {
	m := &Model{src: src, split: newSplitter(split)}
	m.seen.Store(-1)
	return m
}

// At returns the Index of catalog generation gen, building it when the
// policy above allows, or nil: the caller then searches the catalog.
func (m *Model) At(ctx context.Context, gen int64) (*Index, error) {
	x := m.cur.Load()
	if x != nil && x.gen == gen {
		return x, nil
	}
	if m.off.Load() {
		return nil, nil
	}
	if x != nil && !m.stands(x, gen) {
		return nil, nil // writes may go on
	}
	if !m.build.TryLock() {
		return nil, nil
	}
	defer m.build.Unlock()
	if x := m.cur.Load(); x != nil && x.gen == gen {
		return x, nil
	}
	tracked, err := m.src.ScentTracked(ctx)
	if err != nil || !tracked {
		m.off.Store(err == nil)
		return nil, err
	}
	nx, err := Build(ctx, m.src, m.split)
	if err != nil {
		// A failure that is not the caller's cancellation would fail
		// again: searches stay with the catalog's index.
		m.off.Store(ctx.Err() == nil)
		return nil, err
	}
	m.cur.Store(nx)
	if nx.gen != gen {
		return nil, nil // a write landed between the caller's read and the build
	}
	return nx, nil
}

// patienceRows is how many rows of a copy make a stale generation wait
// one more call before the rebuild.
const patienceRows = 5000

// stands counts a call seeing generation gen while the copy x is of
// another, and reports whether gen has stood long enough to rebuild.
func (m *Model) stands(x *Index, gen int64) bool {
	if m.seen.Swap(gen) != gen {
		m.stood.Store(0)
		return false
	}
	return m.stood.Add(1) >= int64(1+len(x.docs)/patienceRows)
}

// Phrases are the phrases of catalog.MatchExpr(terms), each as its
// tokens: a NUL reads as a space, blank terms are skipped, and each term
// is split as the index's tokenizer splits a quoted query string.
func (m *Model) Phrases(terms []string) ([][]string, error) {
	out := make([][]string, 0, len(terms))
	for _, t := range terms {
		t = strings.ReplaceAll(t, "\x00", " ")
		if strings.TrimSpace(t) == "" {
			continue
		}
		if isASCII(t) {
			out = append(out, splitASCII(t))
			continue
		}
		toks, err := m.tokens(t)
		if err != nil {
			return nil, err
		}
		out = append(out, toks)
	}
	return out, nil
}

func (m *Model) tokens(t string) ([]string, error) {
	all, err := m.split.Tokens([]string{t})
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// Close releases the splitter.
func (m *Model) Close() error {
	if c, ok := m.split.sqlite.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
