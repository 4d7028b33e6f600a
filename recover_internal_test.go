// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestReindexCatchesUpWithWritesDuringTheRebuild: a node another writer
// committed while the catalog was rebuilt (its row lost to the rebuild) is
// indexed again, and one it pruned is deleted.
func TestReindexCatchesUpWithWritesDuringTheRebuild(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{Now: plantClock})
	before := v.index.HeadFiles()
	_, err := v.Call(ctx, "plant", []byte(`{"node": {"id": "concepts/late", "type": "concept", "title": "Late",
		"summary": "Planted while a rebuild ran.", "parent": "concepts/_index"}}`))
	require.NoError(t, err)
	_, err = v.Call(ctx, "prune", []byte(`{"id": "concepts/tide", "force": true}`))
	require.NoError(t, err)
	// What the rebuild would have left: the files as they were when it read them.
	require.NoError(t, v.cat.Delete(ctx, "concepts/late"))
	require.Contains(t, before, "concepts/tide.md")
	require.NoError(t, v.cat.Upsert(ctx, catalog.Record{ID: "concepts/tide", Kind: "note", Type: "concept", Title: "Tide"}))

	require.NoError(t, v.index.CatchUp(ctx, before))
	_, ok, err := v.cat.Get(ctx, "concepts/late")
	require.NoError(t, err)
	assert.True(t, ok, "the node planted during the rebuild is indexed")
	_, ok, err = v.cat.Get(ctx, "concepts/tide")
	require.NoError(t, err)
	assert.False(t, ok, "the node pruned during the rebuild is gone")
}
