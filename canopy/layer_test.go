// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
)

// layerWith returns a layer over a catalog holding the nodes.
func layerWith(t *testing.T, opt *LayerOptions, nodes ...catalog.Record) (*Layer, *catalog.Catalog) {
	t.Helper()
	cat := openCatalog(t)
	require.NoError(t, cat.Upsert(context.Background(), nodes...))
	l := NewLayer(filepath.Join(t.TempDir(), "canopy"), opt)
	l.Attach(cat)
	return l, cat
}

func record(id, title, summary string) catalog.Record {
	return catalog.Record{ID: id, Kind: "note", Type: "note", Title: title, Summary: summary, Confidence: 1}
}

func TestLayerBuildRefreshAndStaleMarks(t *testing.T) {
	ctx := context.Background()
	var ops []string
	at := time.Unix(1700000000, 0)
	l, cat := layerWith(t, &LayerOptions{Now: func() time.Time { return at },
		Progress: func(op string, done, total int) { ops = append(ops, op) }},
		record("a", "Tide", "Water rises."), record("b", "Storm", "The harbour closed."))

	assert.Equal(t, StateNoEmbedder, l.State(ctx))
	_, err := l.Build(ctx)
	assert.ErrorContains(t, err, "no embedder is bound")
	l.Written(ctx, "a")
	st, err := l.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Stale, "no index: every node awaits a vector, and no mark was set")

	e := NewHash("hash", 32)
	l.SetEmbedder(e)
	assert.Equal(t, e, l.Embedder())
	assert.Equal(t, StateNoIndex, l.State(ctx))
	_, _, err = l.Refresh(ctx)
	assert.ErrorContains(t, err, "expected active")

	ix, err := l.Build(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, ix.Len())
	assert.Equal(t, float64(at.Unix()), ix.BuiltAt, "the layer's clock")
	assert.Contains(t, ops, "canopy build")
	assert.Equal(t, StateActive, l.State(ctx))
	assert.Same(t, ix, l.Index(), "the saved index is the loaded one")

	require.NoError(t, cat.Upsert(ctx, record("b", "Storm", "The harbour reopened.")))
	l.Written(ctx, "b")
	nodes, err := l.Nodes(ctx)
	require.NoError(t, err)
	assert.True(t, nodes[1].Written, "an index exists, so the write is marked")
	n, st, err := l.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, 0, st.Stale)
	nodes, _ = l.Nodes(ctx)
	assert.False(t, nodes[1].Written, "the refresh cleared the mark")
}

func TestLayerGoalsAndGauntlet(t *testing.T) {
	ctx := context.Background()
	var embedded int
	l, _ := layerWith(t, &LayerOptions{Embedder: NewHash("hash", 64),
		Session:  func(ctx context.Context) string { return "s1" },
		Embedded: func(context.Context, time.Duration) { embedded++ }},
		record("a", "Tide", "Water rises and falls."), record("b", "Storm", "A storm closed the harbour."))
	assert.Nil(t, l.Gauntlet(ctx, "storm"), "no index yet")
	_, err := l.Nearest(ctx, "storm", 1)
	assert.Error(t, err)

	_, err = l.Build(ctx)
	require.NoError(t, err)
	assert.Nil(t, l.Gauntlet(ctx, ""), "no goal before a locate")

	l.SetGoal(ctx, "when did the storm close the harbour")
	ids, err := l.Nearest(ctx, "when did the storm close the harbour", 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, ids)
	g := l.Gauntlet(ctx, "")
	require.NotNil(t, g)
	assert.Equal(t, "when did the storm close the harbour", g.Toward)
	assert.Greater(t, g.Proximity("b"), g.Proximity("a"))
	assert.Equal(t, -1.0, g.Proximity("missing"))
	assert.Equal(t, 1, embedded, "the goal's vector came from the locate")

	g = l.Gauntlet(ctx, "tide water")
	require.NotNil(t, g)
	assert.Greater(t, g.Proximity("a"), g.Proximity("b"))
}
