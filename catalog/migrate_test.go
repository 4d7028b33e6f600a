// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldCatalog writes a catalog the way an earlier version (and the reference)
// laid it out: no body_hash, origin or lang, edges without confidence, no
// moves table, the legacy leaf word, an FTS index whose rowids do not follow
// nodes, and an embed_memo keyed differently.
func oldCatalog(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.db")
	db, err := driver.Open("file:"+path, fts5.Register)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`
		CREATE TABLE nodes (id TEXT PRIMARY KEY, kind TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL,
			summary TEXT NOT NULL, tags TEXT DEFAULT '[]', aliases TEXT DEFAULT '[]', created TEXT, updated TEXT,
			confidence REAL DEFAULT 1.0, source TEXT, entity_kind TEXT, payload TEXT, payload_type TEXT,
			payload_hash TEXT, parent TEXT, trail TEXT, coverage TEXT, body_tokens INT, outline TEXT,
			stale INT DEFAULT 0);
		CREATE TABLE edges (src TEXT, rel TEXT, dst TEXT, PRIMARY KEY (src, rel, dst));
		CREATE VIRTUAL TABLE nodes_fts USING fts5(id UNINDEXED, title, aliases, tags, summary);
		CREATE TABLE embed_memo (model TEXT, text TEXT, vector BLOB, used TEXT, PRIMARY KEY (model, text));
		INSERT INTO nodes (id, kind, type, title, summary, tags, aliases, created, updated, parent, trail,
			body_tokens, outline) VALUES
			('a', 'banana', 'note', 'Produção Alpha', 'first', '["t1","t2"]', '["Alias One"]', '2025-01-01', NULL,
			 '_index', '["_index"]', 12, '["H2"]'),
			('_index', 'branch', 'branch', 'Root', 'root', '[]', '[]', '', '', NULL, '[]', 0, '[]');
		INSERT INTO edges VALUES ('a', 'related', '_index');
		INSERT INTO nodes_fts (rowid, id, title, aliases, tags, summary) VALUES (77, 'a', 'Produção Alpha', '', '', 'first');
		INSERT INTO embed_memo VALUES ('m', 'q', x'00', '2025-01-01');
	`)
	require.NoError(t, err)
	return path
}

func TestReadOnlyOpenOfOldCatalog(t *testing.T) {
	ctx := context.Background()
	ro, err := Open(ctx, oldCatalog(t), Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	got, ok, err := ro.Get(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Record{ID: "a", Kind: "note", Type: "note", Title: "Produção Alpha", Summary: "first",
		Tags: []string{"t1", "t2"}, Aliases: []string{"Alias One"}, Created: "2025-01-01", Confidence: 1,
		Parent: "_index", Trail: []string{"_index"}, BodyTokens: 12, Outline: []string{"H2"},
		Edges: []Edge{{"related", "_index", 1}}}, got, "missing columns read as their defaults")
	_, ok, err = ro.MovedTo(ctx, "a")
	require.NoError(t, err)
	assert.False(t, ok)
	st, err := ro.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, Stats{Nodes: 2, Branches: 1, Edges: 1}, st, "a missing moves table counts 0")
}

func TestReadOnlyOpenWithoutOptionalTables(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "catalog.db")
	db, err := driver.Open("file:"+path, fts5.Register)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE nodes (id TEXT PRIMARY KEY, kind TEXT, type TEXT, title TEXT, summary TEXT);
		INSERT INTO nodes VALUES ('_index', 'branch', 'branch', 'Root', '')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	ro, err := Open(ctx, path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	got, ok, err := ro.Get(ctx, "_index")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Record{ID: "_index", Kind: "branch", Type: "branch", Title: "Root", Confidence: 1}, got)
	in, err := ro.InEdges(ctx, "_index")
	require.NoError(t, err)
	assert.Empty(t, in)
	_, ok, err = ro.MovedTo(ctx, "x")
	require.NoError(t, err)
	assert.False(t, ok)
	st, err := ro.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, Stats{Nodes: 1, Branches: 1}, st)
	require.NoError(t, ro.Warm(ctx), "no index: warming counts rows only")
}

func TestReopenAddsColumnsInPlace(t *testing.T) {
	ctx := context.Background()
	path := oldCatalog(t)
	c, err := Open(ctx, path, Options{})
	require.NoError(t, err)
	defer c.Close()

	for table, want := range map[string][]string{
		"nodes":      {"body_hash", "origin", "lang", "stale", "title"},
		"edges":      {"confidence"},
		"moves":      {"old_id", "new_id"},
		"sniff_memo": {"term", "node_id", "body_hash", "lines"},
		"embed_memo": {"key", "model", "dim", "vector", "used"},
	} {
		cols, err := tableColumns(ctx, c.DB(), table)
		require.NoError(t, err)
		for _, col := range want {
			assert.True(t, cols[col], "%s.%s", table, col)
		}
	}
	var memo int
	require.NoError(t, c.DB().QueryRow(`SELECT count(*) FROM embed_memo`).Scan(&memo))
	assert.Zero(t, memo, "a foreign memo table is dropped: it is disposable")

	got, ok, err := c.Get(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok, "rows survive the migration")
	assert.Equal(t, "note", got.Kind)
	assert.Equal(t, "", got.BodyHash)
	assert.Equal(t, []Edge{{"related", "_index", 1}}, got.Edges)
	var kind string
	require.NoError(t, c.DB().QueryRow(`SELECT kind FROM nodes WHERE id = 'a'`).Scan(&kind))
	assert.Equal(t, "note", kind, "the legacy leaf word is rewritten once")

	assert.Equal(t, []string{"a"}, ftsIDs(t, c, "producao"), "the index was rebuilt with our tokenizer")
	assert.Equal(t, []string{"a"}, ftsIDs(t, c, "alias one"), "from the stored lists")
	r := note("a")
	r.Title = "Renamed"
	require.NoError(t, c.Upsert(ctx, r))
	assert.Empty(t, ftsIDs(t, c, "alpha"), "aligned rowids: the upsert replaced the adopted row")
	assert.Equal(t, []string{"a"}, ftsIDs(t, c, "renamed"))

	require.NoError(t, c.Close())
	c, err = Open(ctx, path, Options{})
	require.NoError(t, err, "a second open finds nothing to migrate")
	defer c.Close()
	var version int
	require.NoError(t, c.DB().QueryRow(`PRAGMA user_version`).Scan(&version))
	assert.Equal(t, layoutVersion, version)
	assert.Equal(t, []string{"a"}, ftsIDs(t, c, "renamed"))
}

func TestReadsDoNotWaitOnWriter(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	require.NoError(t, c.Upsert(ctx, note("a")))
	read := make(chan error, 1)
	err := c.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`UPDATE nodes SET title = 'uncommitted' WHERE id = 'a'`); err != nil {
			return err
		}
		go func() {
			r, _, err := c.Get(ctx, "a")
			if err == nil && r.Title != "a" {
				err = assert.AnError
			}
			read <- err
		}()
		select {
		case err := <-read:
			return err
		case <-time.After(10 * time.Second):
			t.Error("a read waited on the open write transaction")
			return nil
		}
	})
	require.NoError(t, err)
}
