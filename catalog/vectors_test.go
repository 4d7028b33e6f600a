// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStaleMarks(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	a, b := note("notes/a"), note("notes/b")
	require.NoError(t, c.Upsert(ctx, a, b))

	require.NoError(t, c.MarkStale(ctx, "notes/b", "notes/missing"))
	texts, err := c.NodeTexts(ctx)
	require.NoError(t, err)
	require.Len(t, texts, 2)
	assert.Equal(t, NodeText{ID: "notes/a", Title: a.Title, Summary: a.Summary}, texts[0], "id order")
	assert.True(t, texts[1].Stale)

	old := texts[1]
	old.Summary = "what it said before a rewrite"
	require.NoError(t, c.ClearStale(ctx, []NodeText{old}))
	texts, _ = c.NodeTexts(ctx)
	assert.True(t, texts[1].Stale, "a node rewritten since keeps its mark")
	require.NoError(t, c.ClearStale(ctx, texts[1:]))
	texts, _ = c.NodeTexts(ctx)
	assert.False(t, texts[1].Stale)
}

func TestEmbedMemoRows(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	_, ok, err := c.EmbedMemo(ctx, "k1", "m")
	require.NoError(t, err)
	assert.False(t, ok)

	for i, key := range []string{"k1", "k2", "k3"} {
		require.NoError(t, c.PutEmbedMemo(ctx, EmbedMemoRow{Key: key, Model: "m", Dim: 1, Vector: []byte{1, 2, 3, 4}, Used: int64(i)}, 2))
	}
	_, ok, _ = c.EmbedMemo(ctx, "k1", "m")
	assert.False(t, ok, "the least recently used row went beyond capacity")
	r, ok, err := c.EmbedMemo(ctx, "k2", "m")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, EmbedMemoRow{Key: "k2", Model: "m", Dim: 1, Vector: []byte{1, 2, 3, 4}, Used: 1}, r)
	_, ok, _ = c.EmbedMemo(ctx, "k2", "other")
	assert.False(t, ok, "rows are per model")

	require.NoError(t, c.TouchEmbedMemo(ctx, "k2", 9))
	require.NoError(t, c.PutEmbedMemo(ctx, EmbedMemoRow{Key: "k4", Model: "m", Dim: 1, Vector: []byte{0, 0, 0, 0}, Used: 5}, 2))
	_, ok, _ = c.EmbedMemo(ctx, "k2", "m")
	assert.True(t, ok, "touched, so k3 went instead")
	_, ok, _ = c.EmbedMemo(ctx, "k3", "m")
	assert.False(t, ok)
}
