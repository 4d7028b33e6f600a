// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func openTest(t testing.TB) (*Catalog, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "_derived", "catalog.db")
	c, err := Open(context.Background(), path, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, path
}

func note(id string) Record {
	return Record{ID: id, Kind: "note", Type: "note", Title: id, Summary: "about " + id, Confidence: 1}
}

func fullRecord() Record {
	return Record{
		ID: "crm/accounts/acme", Kind: "note", Type: "entity", Title: "Acme <Corp> & Produção",
		Summary: "Key account.", Tags: []string{"crm", "produção"}, Aliases: []string{"ACME", "Acme Inc"},
		Created: "2026-01-02", Updated: "2026-03-04T10:00:00Z", Confidence: 0.1 + 0.2,
		Source: "https://acme.example", EntityKind: "company", Payload: "acme.csv",
		PayloadType: "text/csv", PayloadHash: "abc123", Origin: "harvest", Lang: "pt",
		Parent: "crm/accounts/_index", Trail: []string{"_index", "crm/_index", "crm/accounts/_index"},
		Coverage: "4 bananas, 0 sub-branches", BodyTokens: 321, Outline: []string{"Contacts", "Deals"},
		BodyHash: "deadbeef",
		Edges: []Edge{
			{Rel: "part-of", Dst: "crm/_index", Confidence: 1},
			{Rel: "related", Dst: "crm/accounts/globex", Confidence: 0.75},
		},
		MovedFrom: []string{"old/acme"},
	}
}

func TestUpsertGetRoundTrip(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	full := fullRecord()
	bare := Record{ID: "_index", Kind: "branch", Type: "branch", Title: "Root", Summary: "", Confidence: 1}
	require.NoError(t, c.Upsert(ctx, full, bare))

	for _, want := range []Record{full, bare} {
		got, ok, err := c.Get(ctx, want.ID)
		require.NoError(t, err)
		require.True(t, ok, want.ID)
		assert.Equal(t, want, got)
	}

	var nulls int
	require.NoError(t, c.DB().QueryRowContext(ctx, `SELECT
		(source IS NULL) + (entity_kind IS NULL) + (payload IS NULL) + (payload_type IS NULL) +
		(payload_hash IS NULL) + (origin IS NULL) + (lang IS NULL) + (parent IS NULL) + (coverage IS NULL)
		FROM nodes WHERE id = '_index'`).Scan(&nulls))
	assert.Equal(t, 9, nulls, "every empty optional value is stored as NULL")

	var tags, aliases, trail, outline, created string
	require.NoError(t, c.DB().QueryRowContext(ctx,
		`SELECT tags, aliases, trail, outline, created FROM nodes WHERE id = '_index'`).
		Scan(&tags, &aliases, &trail, &outline, &created))
	assert.Equal(t, []string{"[]", "[]", "[]", "[]", ""}, []string{tags, aliases, trail, outline, created})

	require.NoError(t, c.DB().QueryRowContext(ctx,
		`SELECT tags FROM nodes WHERE id = ?`, full.ID).Scan(&tags))
	assert.Equal(t, `["crm","produção"]`, tags, "lists are JSON with non-ASCII kept raw")

	_, ok, err := c.Get(ctx, "nope")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestUpsertReplacesOutEdges(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	r := note("a")
	r.Edges = []Edge{{"related", "b", 1}, {"related", "c", 0.5}}
	require.NoError(t, c.Upsert(ctx, r))

	r.Edges = []Edge{{"supersedes", "d", 1}, {"related", "b", 0.9}, {"supersedes", "d", 0.1}}
	require.NoError(t, c.Upsert(ctx, r))

	got, _, err := c.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, []Edge{{"supersedes", "d", 1}, {"related", "b", 0.9}}, got.Edges,
		"old edges gone, declared order kept, a repeated (rel, dst) keeps the first")
	in, err := c.InEdges(ctx, "c")
	require.NoError(t, err)
	assert.Empty(t, in)
	in, err = c.InEdges(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, []InEdge{{"a", "related", 0.9}}, in)
}

func TestDeleteRemovesBothDirections(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	a, b, x := note("a"), note("b"), note("x")
	a.Edges = []Edge{{"related", "b", 1}}
	b.Edges = []Edge{{"part-of", "a", 1}, {"related", "x", 1}}
	b.MovedFrom = []string{"old-b"}
	b.BodyHash = "h"
	require.NoError(t, c.Upsert(ctx, a, b, x))
	putMemo(t, c, "term", "b", "h")

	require.NoError(t, c.Delete(ctx, "b", "never-existed"))

	_, ok, err := c.Get(ctx, "b")
	require.NoError(t, err)
	assert.False(t, ok)
	got, _, err := c.Get(ctx, "a")
	require.NoError(t, err)
	assert.Empty(t, got.Edges, "in-edges of the deleted node are gone")
	in, err := c.InEdges(ctx, "x")
	require.NoError(t, err)
	assert.Empty(t, in, "out-edges of the deleted node are gone")
	_, moved, err := c.MovedTo(ctx, "old-b")
	require.NoError(t, err)
	assert.False(t, moved, "waymarks pointing at the deleted node are gone")
	assert.Empty(t, memoRows(t, c, "b"))
	assert.ElementsMatch(t, []string{"a", "x"}, ftsIDs(t, c, "about"), "the index lost the node")
	st, err := c.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, Stats{Nodes: 2}, st)
}

func TestMoves(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	b := note("b")
	b.MovedFrom = []string{"a", "", "b"}
	require.NoError(t, c.Upsert(ctx, b))

	to, ok, err := c.MovedTo(ctx, "a")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "b", to)
	_, ok, err = c.MovedTo(ctx, "b")
	require.NoError(t, err)
	assert.False(t, ok, "a node's own id is never its waymark")
	got, _, err := c.Get(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, got.MovedFrom)

	require.NoError(t, c.Upsert(ctx, note("a")), "replanting a makes the address live")
	_, ok, err = c.MovedTo(ctx, "a")
	require.NoError(t, err)
	assert.False(t, ok)

	c2 := note("c")
	c2.MovedFrom = []string{"b"}
	require.NoError(t, c.Upsert(ctx, c2))
	to, _, err = c.MovedTo(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, "c", to)
	st, err := c.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Moves)
}

func putMemo(t testing.TB, c *Catalog, term, node, hash string) {
	t.Helper()
	require.NoError(t, c.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT OR REPLACE INTO sniff_memo (term, node_id, body_hash, lines) VALUES (?, ?, ?, '[]')`,
			term, node, hash)
		return err
	}))
}

func memoRows(t testing.TB, c *Catalog, node string) []string {
	t.Helper()
	rows, err := c.DB().Query(`SELECT term || ':' || body_hash FROM sniff_memo WHERE node_id = ? ORDER BY term`, node)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestSniffMemoInvalidation(t *testing.T) {
	tests := []struct {
		name    string
		hash    string
		content string
		want    []string
	}{
		{"same hash keeps every valid row", "h1", "", []string{"alpha:h1", "beta:h1"}},
		{"new hash drops the rows of the old", "h2", "", []string{"gamma:h2"}},
		{"inline content keeps the hash", "h1", "inline", []string{"alpha:h1", "beta:h1"}},
		{"cached body has no hash and no memo", "h1", "cached", nil},
		{"reference body has no hash and no memo", "h1", "reference", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c, _ := openTest(t)
			r := note("n")
			r.BodyHash = "h1"
			require.NoError(t, c.Upsert(ctx, r, note("other")))
			putMemo(t, c, "alpha", "n", "h1")
			putMemo(t, c, "beta", "n", "h1")
			putMemo(t, c, "gamma", "n", "h2") // stored by a reader that saw newer bytes
			putMemo(t, c, "alpha", "other", "x")

			r.BodyHash, r.Content = tt.hash, tt.content
			require.NoError(t, c.Upsert(ctx, r))
			assert.Equal(t, tt.want, memoRows(t, c, "n"))
			assert.Equal(t, []string{"alpha:x"}, memoRows(t, c, "other"), "other nodes untouched")
			got, _, err := c.Get(ctx, "n")
			require.NoError(t, err)
			if tt.content == "cached" || tt.content == "reference" {
				assert.Empty(t, got.BodyHash)
			} else {
				assert.Equal(t, tt.hash, got.BodyHash)
			}
		})
	}
}

func records(rs ...Record) iter.Seq[Record] { return slices.Values(rs) }

func TestRebuild(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	keep, gone, moved := note("keep"), note("gone"), note("moved")
	keep.BodyHash, gone.BodyHash = "k1", "g1"
	keep.Edges = []Edge{{"related", "gone", 1}}
	moved.MovedFrom = []string{"older"}
	require.NoError(t, c.Upsert(ctx, keep, gone, moved))
	putMemo(t, c, "t", "keep", "k1")
	putMemo(t, c, "stale-hash", "keep", "k0")
	putMemo(t, c, "t", "gone", "g1")
	require.NoError(t, c.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE nodes SET stale = 1 WHERE id IN ('keep', 'gone')`)
		return err
	}))

	keep.BodyHash = "k2" // reindex invalidates nothing, even a changed body
	keep.Edges = nil
	b := Record{ID: "_index", Kind: "branch", Type: "branch", Title: "Root", Confidence: 1}
	b.Edges = []Edge{{"contains", "keep", 1}}
	var calls []int
	st, err := c.Rebuild(ctx, records(keep, b, note("fresh"), note("fresh")), func(n int) { calls = append(calls, n) })
	require.NoError(t, err)
	assert.Equal(t, Stats{Nodes: 3, Branches: 1, Edges: 1, Moves: 0}, st)
	assert.Equal(t, []int{4}, calls)

	assert.Equal(t, []string{"stale-hash:k0", "t:k1"}, memoRows(t, c, "keep"), "survivors keep every memo row")
	assert.Empty(t, memoRows(t, c, "gone"), "vanished nodes lose theirs")
	_, ok, err := c.Get(ctx, "gone")
	require.NoError(t, err)
	assert.False(t, ok)
	assert.ElementsMatch(t, []string{"keep", "fresh"}, ftsIDs(t, c, "about"), "index rebuilt once per id")
	var stale []string
	rows, err := c.DB().Query(`SELECT id FROM nodes WHERE stale <> 0`)
	require.NoError(t, err)
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		stale = append(stale, id)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	assert.Equal(t, []string{"keep"}, stale, "the dense layer's stale flag survives a rebuild")

	got, _, err := c.Get(ctx, "keep")
	require.NoError(t, err)
	assert.Equal(t, keep, got)

	later := note("later")
	later.Title = "Written after the rebuild"
	require.NoError(t, c.Upsert(ctx, later), "the write path survives the index being recreated")
	assert.Equal(t, []string{"later"}, ftsIDs(t, c, "rebuild"))
}

func TestRebuildWaymarksIgnoreOrder(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	b, d := note("b"), note("d")
	b.MovedFrom = []string{"a"}
	d.MovedFrom = []string{"c"}
	st, err := c.Rebuild(ctx, records(b, note("a"), d), nil)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Moves)
	_, ok, err := c.MovedTo(ctx, "a")
	require.NoError(t, err)
	assert.False(t, ok, "a live node's address is no waymark, whichever record came first")
	to, _, err := c.MovedTo(ctx, "c")
	require.NoError(t, err)
	assert.Equal(t, "d", to)
}

func TestRebuildProgress(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	var calls []int
	st, err := c.Rebuild(ctx, synth(2500), func(n int) { calls = append(calls, n) })
	require.NoError(t, err)
	assert.Equal(t, []int{1000, 2000, 2500}, calls)
	assert.Equal(t, 2500, st.Nodes)
	assert.Equal(t, 50, st.Branches)

	calls = nil
	st, err = c.Rebuild(ctx, synth(2000), func(n int) { calls = append(calls, n) })
	require.NoError(t, err)
	assert.Equal(t, []int{1000, 2000}, calls, "no repeated final call")
	assert.Equal(t, 2000, st.Nodes)
	n := len(ftsIDs(t, c, "w17"))
	assert.Positive(t, n)
	assert.LessOrEqual(t, n, 2000)
}

func TestRebuildFailureKeepsOldCatalog(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	require.NoError(t, c.Upsert(ctx, note("old")))

	_, err := c.Rebuild(ctx, records(note("new"), Record{ID: "bad", Kind: "banana"}), nil)
	require.Error(t, err)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))

	cctx, cancel := context.WithCancel(ctx)
	seq := func(yield func(Record) bool) {
		yield(note("new"))
		cancel()
		yield(note("newer"))
	}
	_, err = c.Rebuild(cctx, seq, nil)
	require.ErrorIs(t, err, context.Canceled)

	panicking := func(yield func(Record) bool) {
		yield(note("new"))
		panic("walk failed")
	}
	assert.Panics(t, func() { c.Rebuild(ctx, panicking, nil) })

	_, ok, err := c.Get(ctx, "old")
	require.NoError(t, err)
	assert.True(t, ok, "a failed rebuild leaves the old catalog")
	assert.Equal(t, []string{"old"}, ftsIDs(t, c, "about"))
	require.NoError(t, c.Upsert(ctx, note("after")), "the writer is free again")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want string
	}{
		{"empty id", Record{Kind: "note"}, "empty id"},
		{"legacy kind", Record{ID: "a", Kind: "banana"}, `kind "banana"; expected "branch" or "note"`},
		{"empty kind", Record{ID: "a"}, `kind ""`},
		{"NaN confidence", Record{ID: "a", Kind: "note", Confidence: nan()}, "confidence NaN"},
		{"NaN edge", Record{ID: "a", Kind: "note", Edges: []Edge{{"r", "b", nan()}}}, "edge r -> b"},
	}
	ctx := context.Background()
	c, _ := openTest(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Upsert(ctx, note("ok"), tt.rec)
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, envelope.Schema, e.Code)
			assert.Contains(t, e.Message, tt.want)
		})
	}
	_, ok, err := c.Get(ctx, "ok")
	require.NoError(t, err)
	assert.False(t, ok, "a refused batch writes nothing")
}

func nan() float64 {
	var zero float64
	return zero / zero
}

func TestStatsEmptyWarm(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	empty, err := c.Empty(ctx)
	require.NoError(t, err)
	assert.True(t, empty)
	require.NoError(t, c.Warm(ctx), "warming an empty catalog is a no-op")

	r := note("x")
	r.Title = "  — Ünïcode probe"
	r.Edges = []Edge{{"related", "y", 1}}
	require.NoError(t, c.Upsert(ctx, r))
	empty, err = c.Empty(ctx)
	require.NoError(t, err)
	assert.False(t, empty)
	word, err := c.probeWord(ctx)
	require.NoError(t, err)
	assert.Equal(t, "Ünïcode", word, "the probe word comes from the corpus")
	require.NoError(t, c.Warm(ctx))
}

func TestDSNEscapesPath(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "we?ird#na%me")
	c, err := Open(ctx, filepath.Join(dir, "catalog.db"), Options{})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Upsert(ctx, note("a")))
	assert.FileExists(t, filepath.Join(dir, "catalog.db"))
}

func TestWALMode(t *testing.T) {
	c, _ := openTest(t)
	var mode string
	require.NoError(t, c.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	assert.Equal(t, "wal", mode)
	_, err := c.DB().Exec(`DELETE FROM nodes`)
	assert.Error(t, err, "the reader pool is query_only")
}

func TestCloseReleasesFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "catalog.db")
	for i := range 3 {
		c, err := Open(ctx, path, Options{})
		require.NoError(t, err)
		require.NoError(t, c.Upsert(ctx, note(fmt.Sprint(i))))
		require.NoError(t, c.Close())
	}
	c, err := Open(ctx, path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer c.Close()
	st, err := c.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Nodes)
}

func TestErrorsKeepContext(t *testing.T) {
	c, _ := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := c.Upsert(ctx, note("a"))
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}
