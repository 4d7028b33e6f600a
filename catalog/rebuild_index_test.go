// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaIndexes lists the index names the catalog's tables declare.
func schemaIndexes() []string {
	var out []string
	for _, t := range tables {
		for _, ddl := range t.indexes {
			if strings.HasPrefix(ddl, "CREATE INDEX") {
				out = append(out, indexName(ddl))
			}
		}
	}
	return out
}

func fileIndexes(t *testing.T, c *Catalog) map[string]bool {
	t.Helper()
	rows, err := c.DB().Query("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		out[name] = true
	}
	require.NoError(t, rows.Err())
	return out
}

func TestIndexNames(t *testing.T) {
	names := schemaIndexes()
	assert.Contains(t, names, "nodes_parent")
	assert.Contains(t, names, "edges_dst_cover")
	assert.Contains(t, names, "nodes_unhashed")
	for _, n := range names {
		assert.NotContains(t, n, " ")
	}
	assert.Panics(t, func() { indexName("CREATE TABLE x (a)") }, "a statement with no ON has no index name")
}

func TestRebuildRestoresEveryIndex(t *testing.T) {
	c, _ := openTest(t)
	ctx := context.Background()
	_, err := c.Rebuild(ctx, synth(300), nil)
	require.NoError(t, err)
	have := fileIndexes(t, c)
	for _, name := range schemaIndexes() {
		assert.True(t, have[name], "index %s is back after the rebuild", name)
	}
	var plan string
	rows, err := c.DB().Query("EXPLAIN QUERY PLAN SELECT id FROM nodes WHERE parent = ?", "b1/_index")
	require.NoError(t, err)
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &notUsed, &detail))
		plan += detail
	}
	require.NoError(t, rows.Close())
	assert.Contains(t, plan, "nodes_parent", "listings by parent use the index")
	assert.NotContains(t, fileIndexes(t, c), "edges_dst", "the obsolete index is gone")
	rows, err = c.DB().Query("EXPLAIN QUERY PLAN SELECT src, rel, confidence FROM edges WHERE dst = ? ORDER BY rowid", "b1/n51")
	require.NoError(t, err)
	plan = ""
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &notUsed, &detail))
		plan += detail
	}
	require.NoError(t, rows.Close())
	assert.Contains(t, plan, "COVERING INDEX edges_dst_cover", "in-edges never touch the table")

	n, err := c.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 300, n.Nodes)
}

func TestFailedRebuildKeepsIndexesAndRows(t *testing.T) {
	c, _ := openTest(t)
	ctx := context.Background()
	_, err := c.Rebuild(ctx, synth(120), nil)
	require.NoError(t, err)
	before, err := c.Stats(ctx)
	require.NoError(t, err)

	broken := iter.Seq[Record](func(yield func(Record) bool) {
		for r := range synth(60) {
			if !yield(r) {
				return
			}
		}
		yield(Record{ID: "bad", Kind: "leaf"}) // refused: the transaction rolls back
	})
	_, err = c.Rebuild(ctx, broken, nil)
	require.Error(t, err)

	after, err := c.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	have := fileIndexes(t, c)
	for _, name := range schemaIndexes() {
		assert.True(t, have[name], "index %s survives a failed rebuild", name)
	}
}

func TestRebuildRepeatedIDReplacesTheFirst(t *testing.T) {
	c, _ := openTest(t)
	ctx := context.Background()
	first := note("a")
	first.Edges = []Edge{{Rel: "related-to", Dst: "x", Confidence: 1}}
	second := note("a")
	second.Title = "second"
	second.Edges = []Edge{{Rel: "part-of", Dst: "y", Confidence: 1}}
	st, err := c.Rebuild(ctx, records(first, note("b"), second), nil)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Nodes)
	assert.Equal(t, 1, st.Edges, "the first record's edges went with it")
	got, ok, err := c.Get(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "second", got.Title)
	assert.Equal(t, []Edge{{Rel: "part-of", Dst: "y", Confidence: 1}}, got.Edges)
}
