// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWalkReadsEveryRowAndEdge(t *testing.T) {
	c, _ := openTest(t)
	ctx := context.Background()
	a, b := note("b/one"), note("a/two")
	a.Edges = []Edge{{Rel: "related", Dst: "a/two", Confidence: 0.5}, {Rel: "cites", Dst: "gone", Confidence: 1}}
	require.NoError(t, c.Upsert(ctx, a, b))

	var ids []string
	var edges []string
	err := c.Walk(ctx, func(r Record) error {
		ids = append(ids, r.ID)
		assert.Nil(t, r.Edges, "rows come without their edges")
		return nil
	}, func(src string, e Edge) error {
		edges = append(edges, src+" "+e.Rel+" "+e.Dst)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a/two", "b/one"}, ids, "rows in id order")
	assert.Equal(t, []string{"b/one related a/two", "b/one cites gone"}, edges, "edges in declared order, dangling ones too")

	stop := errors.New("stop")
	assert.ErrorIs(t, c.Walk(ctx, func(Record) error { return stop }, nil), stop, "a callback's error ends the walk as is")
	assert.NoError(t, c.Walk(ctx, nil, nil))
}
