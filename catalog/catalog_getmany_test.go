// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGetManyAgreesWithGet(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	require.NoError(t, c.Upsert(ctx,
		Record{ID: "a", Kind: "note", Type: "note", Title: "A", Tags: []string{"x"}, Created: "2026-01-01"},
		Record{ID: "b/_index", Kind: "branch", Type: "branch", Title: "B"}))
	got, err := c.GetMany(ctx, []string{"a", "b/_index", "missing"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	for _, id := range []string{"a", "b/_index"} {
		one, ok, err := c.Get(ctx, id)
		require.NoError(t, err)
		require.True(t, ok)
		one.Edges, one.MovedFrom = nil, nil
		assert.Equal(t, one, got[id])
	}
	empty, err := c.GetMany(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, empty)
}
