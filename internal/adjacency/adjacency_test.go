// SPDX-License-Identifier: Apache-2.0

package adjacency

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
)

// fakeSource is a catalog of a few rows whose generation a test moves.
type fakeSource struct {
	gen    int64
	reads  int
	noMeta bool
	nodes  []catalog.AdjacencyNode
	edges  [][3]string // src, rel, dst in catalog order
}

func (f *fakeSource) HasColumn(table, column string) bool { return !f.noMeta }

func (f *fakeSource) Adjacency(_ context.Context, node func(*catalog.AdjacencyNode) error, edge func(src, rel, dst string) error) (int64, error) {
	f.reads++
	for _, r := range f.nodes {
		if err := node(&r); err != nil {
			return 0, err
		}
	}
	for _, e := range f.edges {
		if err := edge(e[0], e[1], e[2]); err != nil {
			return 0, err
		}
	}
	return f.gen, nil
}

func newFake() *fakeSource {
	return &fakeSource{gen: 3,
		nodes: []catalog.AdjacencyNode{ // id order, as the catalog walks them
			{ID: "_index", Type: "index", Summary: "root"},
			{ID: "a/_index", Type: "index", Summary: "branch a", Parent: "_index"},
			{ID: "a/x", Type: "note", Summary: "x", Parent: "a/_index"},
			{ID: "a/y", Type: "note", Summary: "y", Parent: "a/_index"},
			{ID: "b", Type: "note", Summary: "b", Parent: "_index"},
		},
		edges: [][3]string{{"a/y", "cites", "a/x"}, {"a/x", "part-of", "b"}, {"a/x", "see", "gone"}, {"b", "cites", "a/x"}},
	}
}

func TestBuildFilesEdgesUnderBothEnds(t *testing.T) {
	g, err := Build(context.Background(), newFake())
	require.NoError(t, err)
	assert.Equal(t, int64(3), g.Generation())
	assert.Equal(t, 5, g.Len())
	b := g.Row("b")
	assert.Equal(t, []Edge{{Rel: "part-of", Peer: "b", Row: b}, {Rel: "see", Peer: "gone"}}, g.Out("a/x"),
		"catalog order; a dangling target has no row")
	assert.Equal(t, []Edge{{Rel: "cites", Peer: "a/y", Row: g.Row("a/y")}, {Rel: "cites", Peer: "b", Row: b}}, g.In("a/x"))
	assert.Equal(t, []*Row{g.Row("a/x"), g.Row("a/y")}, g.Children("a/_index"))
	assert.Equal(t, []*Row{g.Row("a/_index"), b}, g.Children("_index"), "children in id order")
	assert.Nil(t, g.Children("a/x"))
	assert.False(t, g.Has("gone"))
	assert.Nil(t, g.Row("gone"))
	assert.Nil(t, g.In("gone"), "no node, nothing filed")
}

func TestModelServesOnlyItsGeneration(t *testing.T) {
	ctx := context.Background()
	src := newFake()
	m := NewModel(src)
	g, err := m.At(ctx, 3)
	require.NoError(t, err)
	require.NotNil(t, g, "the first call builds")
	again, err := m.At(ctx, 3)
	require.NoError(t, err)
	assert.Same(t, g, again)
	assert.Equal(t, 1, src.reads)

	src.gen = 4
	stale, err := m.At(ctx, 4)
	require.NoError(t, err)
	assert.Nil(t, stale, "a new generation waits a call before the rebuild")
	fresh, err := m.At(ctx, 4)
	require.NoError(t, err)
	require.NotNil(t, fresh)
	assert.Equal(t, int64(4), fresh.Generation())
	old, err := m.At(ctx, 3)
	require.NoError(t, err)
	assert.Nil(t, old, "a copy of another generation is never served")
}

func TestModelKeepsACopyOfALaterGeneration(t *testing.T) {
	ctx := context.Background()
	src := newFake()
	src.gen = 4 // a write landed after the caller read generation 3
	m := NewModel(src)
	g, err := m.At(ctx, 3)
	require.NoError(t, err)
	assert.Nil(t, g, "the copy is not of the caller's generation")
	g, err = m.At(ctx, 4)
	require.NoError(t, err)
	require.NotNil(t, g, "but it is kept for the next call")
	assert.Equal(t, 1, src.reads)
}

func TestModelStaysOffWithoutAGeneration(t *testing.T) {
	src := newFake()
	src.noMeta = true
	m := NewModel(src)
	for range 3 {
		g, err := m.At(context.Background(), 0)
		require.NoError(t, err)
		assert.Nil(t, g)
	}
	assert.Zero(t, src.reads)
}
