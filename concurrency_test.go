// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One writer, many readers: eight goroutines read through every read
// primitive while a stream of plants lands; reads never fail and never
// wait for the writer's mutex, and every plant is one commit.
func TestEightReadersDuringAStreamOfPlants(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := context.Background()
	reads := []struct{ name, args string }{
		{"locate", `{"query": "harbour radio schedule"}`},
		{"look", `{"id": "operations/_index"}`},
		{"pick", `{"id": "operations/radio-schedule"}`},
		{"scan", `{"parent_id": "operations/_index"}`},
		{"sniff", `{"terms": "channel"}`},
		{"move", `{"id": "concepts/swell", "direction": "both"}`},
	}
	var stop atomic.Bool
	var served atomic.Int64
	var wg sync.WaitGroup
	for r := range 8 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				c := reads[(r+i)%len(reads)]
				if _, err := v.Call(ctx, c.name, []byte(c.args)); err != nil {
					t.Errorf("%s during writes: %v", c.name, err)
					return
				}
				served.Add(1)
			}
		})
	}
	const plants = 12
	for i := range plants {
		_, err := v.Call(ctx, "plant", []byte(fmt.Sprintf(`{"node": {"id": "operations/stream-%02d", "type": "note",
			"title": "Stream %d", "summary": "Stream note %d for the concurrency test.", "parent": "operations/_index"}}`, i, i, i)))
		require.NoError(t, err)
	}
	stop.Store(true)
	wg.Wait()
	assert.Greater(t, served.Load(), int64(plants), "readers kept being served while plants landed")

	res, err := v.Scan(ctx, "operations/_index", ScanOptions{Limit: 50})
	require.NoError(t, err)
	n := 0
	for _, it := range res.Nodes {
		if strings.HasPrefix(it.ID, "operations/stream-") {
			n++
		}
	}
	assert.Equal(t, plants, n, "every plant reached the catalog")
	assert.Equal(t, "plant(operations/stream-11): Stream 11 [source=agent]", headSubject(t, dir, "operations/stream-11.md"))
}

// catalogDump is the catalog's logical content: nodes, edges and moves.
func catalogDump(t *testing.T, v *Vine) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT id, kind, type, title, summary, tags, aliases, created, updated, body_hash, coverage FROM nodes ORDER BY id",
		"SELECT src, rel, dst, confidence FROM edges ORDER BY src, rel, dst",
		"SELECT old_id, new_id FROM moves ORDER BY old_id",
	} {
		rows, err := v.cat.DB().Query(q)
		require.NoError(t, err)
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			fmt.Fprintln(&b, vals...)
		}
		require.NoError(t, rows.Close())
	}
	return b.String()
}

// A refused write leaves the catalog as it was, not only the files.
func TestRefusedWritesLeaveTheCatalogUnchanged(t *testing.T) {
	v, _ := writableFixture(t)
	before := catalogDump(t, v)
	for _, c := range []struct{ name, args string }{
		{"plant", `{"node": {"id": "operations/x", "type": "memo", "title": "T", "summary": "Short.", "parent": "operations/_index"}}`},
		{"plant", `{"node": [{"id": "operations/y", "type": "note", "title": "T", "summary": "Fine summary.", "parent": "operations/_index"}, {"id": "operations/z", "type": "note", "title": "T", "summary": "", "parent": "operations/_index"}]}`},
		{"graft", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"type": "event"}}}`},
		{"prune", `{"id": "organizations/mare-alta"}`},
		{"transplant", `{"id": "operations/ice-supply", "new_id": "nowhere/ice-supply"}`},
		{"tend", `{"id": "finance/ledger-2026", "sql": "DELETE FROM ledger"}`},
	} {
		_, err := v.Call(context.Background(), c.name, []byte(c.args))
		require.Error(t, err, c.args)
		assert.Equal(t, before, catalogDump(t, v), "%s refused but changed the catalog", c.name)
	}
}
