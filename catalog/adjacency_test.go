// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdjacencyReadsRowsEdgesAndTheirGeneration(t *testing.T) {
	c, _ := openTest(t)
	ctx := context.Background()
	a, b := note("b/one"), note("a/two")
	a.Type, a.Summary, a.Parent = "entity", "One.", "b/_index"
	a.Edges = []Edge{{Rel: "related", Dst: "a/two", Confidence: 0.5}, {Rel: "cites", Dst: "gone", Confidence: 1}}
	require.NoError(t, c.Upsert(ctx, a, b))
	want, err := c.Generation(ctx)
	require.NoError(t, err)

	var nodes []AdjacencyNode
	var edges []string
	gen, err := c.Adjacency(ctx, func(n *AdjacencyNode) error {
		nodes = append(nodes, *n)
		return nil
	}, func(src, rel, dst string) error {
		edges = append(edges, src+" "+rel+" "+dst)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, want, gen)
	assert.Equal(t, []AdjacencyNode{{ID: "a/two", Type: b.Type, Summary: b.Summary},
		{ID: "b/one", Type: "entity", Summary: "One.", Parent: "b/_index"}}, nodes, "rows in id order")
	assert.Equal(t, []string{"b/one related a/two", "b/one cites gone"}, edges, "edges in declared order, dangling ones too")

	stop := errors.New("stop")
	_, err = c.Adjacency(ctx, func(*AdjacencyNode) error { return stop }, nil)
	assert.ErrorIs(t, err, stop, "a callback's error ends the read as is")
}
