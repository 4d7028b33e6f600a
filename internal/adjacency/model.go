// SPDX-License-Identifier: Apache-2.0

package adjacency

import (
	"context"
	"sync"
	"sync/atomic"
)

// Model keeps the Graph of one catalog, read lazily on the first call and
// trusted only at the generation it was read at: another process (or
// this one) may write between two calls, so every call names the
// generation it reads, and a stale Graph is never used.
//
// A new generation is not read on first sight: callers read the catalog
// (At returns nil) until the generation has stood for a number of calls
// that grows with the forest (one per 5,000 nodes past the first call),
// so a writer that alternates writes and moves pays no rebuild per
// write, and a reader pays one once the writes stop. While one call
// builds, the others read the catalog rather than wait.
type Model struct {
	src Source

	build sync.Mutex // held while building
	cur   atomic.Pointer[Graph]
	seen  atomic.Int64 // the last generation a stale call saw
	stood atomic.Int64 // calls since that generation was first seen
	off   atomic.Bool  // the catalog keeps no generation, or cannot be read whole
}

// NewModel returns a Model over src.
func NewModel(src Source) *Model {
	m := &Model{src: src}
	m.seen.Store(-1)
	return m
}

// At returns the Graph of catalog generation gen, building it when the
// policy above allows, or nil: the caller then reads the catalog.
func (m *Model) At(ctx context.Context, gen int64) (*Graph, error) {
	g := m.cur.Load()
	if g != nil && g.gen == gen {
		return g, nil
	}
	if m.off.Load() {
		return nil, nil
	}
	if g != nil && !m.stands(g, gen) {
		return nil, nil // writes may go on
	}
	if !m.build.TryLock() {
		return nil, nil
	}
	defer m.build.Unlock()
	if g := m.cur.Load(); g != nil && g.gen == gen {
		return g, nil
	}
	if !m.src.HasColumn("catalog_meta", "value") {
		m.off.Store(true) // without a generation a copy could not tell it is stale
		return nil, nil
	}
	ng, err := Build(ctx, m.src)
	if err != nil {
		// A failure that is not the caller's cancellation would fail
		// again: moves stay with the catalog.
		m.off.Store(ctx.Err() == nil)
		return nil, err
	}
	m.cur.Store(ng)
	if ng.gen != gen {
		return nil, nil // a write landed between the caller's read and the build
	}
	return ng, nil
}

// patienceNodes is how many nodes of a copy make a stale generation wait
// one more call before the rebuild.
const patienceNodes = 5000

// stands counts a call seeing generation gen while the copy g is of
// another, and reports whether gen has stood long enough to rebuild.
func (m *Model) stands(g *Graph, gen int64) bool {
	if m.seen.Swap(gen) != gen {
		m.stood.Store(0)
		return false
	}
	return m.stood.Add(1) >= int64(1+len(g.nodes)/patienceNodes)
}
