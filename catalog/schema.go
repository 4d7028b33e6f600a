// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The schema is declared once, as data, so that creating a fresh file and
// upgrading an old one cannot drift apart: every column a table lacks is
// added in place with ALTER TABLE ADD COLUMN (C.6.1: never a forced
// migration; the next write or reindex fills the new column). That is why
// every non-key column carries a default. A table that lacks one of its key
// columns was written by something else entirely; since every table here is
// derived or disposable, it is dropped and recreated empty, and an empty
// catalog is reindexed by the Vine on open.

type column struct {
	name string
	decl string // type and constraints, as in CREATE TABLE
	key  bool   // part of the primary key: cannot be added in place
}

type table struct {
	name       string
	columns    []column
	constraint string   // table constraint, "" when the key is a column's
	indexes    []string // CREATE INDEX IF NOT EXISTS statements
}

var nodesTable = table{
	name: "nodes",
	columns: []column{
		{name: "id", decl: "TEXT PRIMARY KEY", key: true},
		{name: "kind", decl: "TEXT NOT NULL DEFAULT 'note'"},
		{name: "type", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "title", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "summary", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "tags", decl: "TEXT NOT NULL DEFAULT '[]'"},
		{name: "aliases", decl: "TEXT NOT NULL DEFAULT '[]'"},
		{name: "created", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "updated", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "confidence", decl: "REAL NOT NULL DEFAULT 1.0"},
		{name: "source", decl: "TEXT"},
		{name: "entity_kind", decl: "TEXT"},
		{name: "payload", decl: "TEXT"},
		{name: "payload_type", decl: "TEXT"},
		{name: "payload_hash", decl: "TEXT"},
		{name: "origin", decl: "TEXT"},
		{name: "parent", decl: "TEXT"},
		{name: "trail", decl: "TEXT NOT NULL DEFAULT '[]'"},
		{name: "coverage", decl: "TEXT"},
		{name: "body_tokens", decl: "INTEGER NOT NULL DEFAULT 0"},
		{name: "outline", decl: "TEXT NOT NULL DEFAULT '[]'"},
		{name: "stale", decl: "INTEGER NOT NULL DEFAULT 0"},
		{name: "body_hash", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "lang", decl: "TEXT"},
	},
	indexes: []string{
		"CREATE INDEX IF NOT EXISTS nodes_parent ON nodes(parent)",
		"CREATE INDEX IF NOT EXISTS nodes_type ON nodes(type)",
		"CREATE INDEX IF NOT EXISTS nodes_created ON nodes(created)",
		"CREATE INDEX IF NOT EXISTS nodes_updated ON nodes(updated)",
		// The few nodes without a body hash (cached and reference bodies):
		// a warm sniff of a covered term scans only these, and without the
		// index that was a scan of the whole table per term, 130 ms at
		// 100,000 nodes.
		"CREATE INDEX IF NOT EXISTS nodes_unhashed ON nodes(id) WHERE body_hash = ''",
	},
}

var edgesTable = table{
	name: "edges",
	columns: []column{
		{name: "src", decl: "TEXT NOT NULL", key: true},
		{name: "rel", decl: "TEXT NOT NULL", key: true},
		{name: "dst", decl: "TEXT NOT NULL", key: true},
		{name: "confidence", decl: "REAL NOT NULL DEFAULT 1.0"},
	},
	constraint: "PRIMARY KEY (src, rel, dst)",
	// In-edges read from the index alone: look and move of a hub read every
	// in-edge, and with an index on dst only each was a seek into the
	// table (1,800 in-edges, two thirds of a 6 ms look at 100,000 nodes).
	indexes: []string{"CREATE INDEX IF NOT EXISTS edges_dst_cover ON edges(dst, src, rel, confidence)"},
}

// obsolete are indexes and triggers earlier layouts created and a
// writable open drops: edges_dst gave way to edges_dst_cover, the
// trigger withdrawing every coverage marker to the per-term one, and
// sniff_memo_hits to sniff_memo_hits_cover.
var obsolete = []string{"DROP INDEX IF EXISTS edges_dst", "DROP TRIGGER IF EXISTS sniff_memo_uncover",
	"DROP INDEX IF EXISTS sniff_memo_hits"}

// movesTable holds waymarks (v0.58). The index on new_id serves Delete and
// the reverse lookup in Get.
var movesTable = table{
	name: "moves",
	columns: []column{
		{name: "old_id", decl: "TEXT PRIMARY KEY", key: true},
		{name: "new_id", decl: "TEXT NOT NULL DEFAULT ''"},
	},
	indexes: []string{"CREATE INDEX IF NOT EXISTS moves_new_id ON moves(new_id)"},
}

// sniffMemoTable is the memoized body scan (C.6b.1): per (folded term,
// node) the complete line records, valid while body_hash equals the node's.
// '[]' records a scan that found nothing.
var sniffMemoTable = table{
	name: "sniff_memo",
	columns: []column{
		{name: "term", decl: "TEXT NOT NULL", key: true},
		{name: "node_id", decl: "TEXT NOT NULL", key: true},
		{name: "body_hash", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "lines", decl: "TEXT NOT NULL DEFAULT '[]'"},
		// line_nos repeats the line numbers of lines ("3,17,25"), which is
		// all ranking needs: a warm sniff ranks every matching node from
		// this column and decodes the full records of the k it renders
		// only. '' means not recorded (a row another implementation
		// wrote); readers then decode lines.
		{name: "line_nos", decl: "TEXT NOT NULL DEFAULT ''"},
	},
	constraint: "PRIMARY KEY (term, node_id)",
	indexes: []string{
		"CREATE INDEX IF NOT EXISTS sniff_memo_node ON sniff_memo(node_id)",
		// Only rows with matches, and covering what ranking reads: a warm
		// scan reads hits, never the recorded negatives (cost rule 1 of
		// C.6b.1), and never the line texts of nodes it does not render.
		"CREATE INDEX IF NOT EXISTS sniff_memo_hits_cover ON sniff_memo(term, node_id, body_hash, line_nos) WHERE lines != '[]'",
	},
}

// sniffCoverTable marks a folded term whose memo covers every node with a
// body hash, as of a catalog generation: a warm scan of a covered term
// need not look for uncovered nodes. A marker of an older generation says
// nothing.
var sniffCoverTable = table{
	name: "sniff_cover",
	columns: []column{
		{name: "term", decl: "TEXT PRIMARY KEY", key: true},
		{name: "generation", decl: "INTEGER NOT NULL DEFAULT 0"},
	},
	// Dropping a memo row (invalidation, eviction, a wiped memo) can leave
	// a node uncovered for its term, so it withdraws that term's marker;
	// other terms keep theirs (evicting one term used to send every
	// covered term back to the slow path).
	indexes: []string{`CREATE TRIGGER IF NOT EXISTS sniff_memo_uncover_term AFTER DELETE ON sniff_memo
		BEGIN DELETE FROM sniff_cover WHERE term = OLD.term; END`},
}

// sniffTermsTable is the memo's bookkeeping per folded term: how many
// sniff_memo rows it has and when they were last stored (a counter that
// grows with every store), so the memo can be held to a size by evicting
// the terms stored least recently. C.6b.1 allows eviction by term: a
// whole-forest scan stores a row per node, so at 100,000 nodes every new
// term added about 25 MB, without end.
var sniffTermsTable = table{
	name: "sniff_terms",
	columns: []column{
		{name: "term", decl: "TEXT PRIMARY KEY", key: true},
		{name: "rows", decl: "INTEGER NOT NULL DEFAULT 0"},
		{name: "stored", decl: "INTEGER NOT NULL DEFAULT 0"},
	},
	indexes: []string{"CREATE INDEX IF NOT EXISTS sniff_terms_stored ON sniff_terms(stored)"},
}

// metaTable holds the catalog's own counters: "generation" grows with every
// Upsert, Delete and Rebuild, so derived facts can say which catalog they
// were true of.
var metaTable = table{
	name: "catalog_meta",
	columns: []column{
		{name: "key", decl: "TEXT PRIMARY KEY", key: true},
		{name: "value", decl: "INTEGER NOT NULL DEFAULT 0"},
	},
}

// embedMemoTable is the K.6 query-embedding memo. The catalog creates it
// and moves its rows (EmbedMemo, PutEmbedMemo): Canopy owns the key
// derivation (model and whitespace-collapsed text), the vector encoding,
// the dimension check and the LRU bound on used.
var embedMemoTable = table{
	name: "embed_memo",
	columns: []column{
		{name: "key", decl: "TEXT PRIMARY KEY", key: true},
		{name: "model", decl: "TEXT NOT NULL DEFAULT ''"},
		{name: "dim", decl: "INTEGER NOT NULL DEFAULT 0"},
		{name: "vector", decl: "BLOB NOT NULL DEFAULT x''"},
		{name: "used", decl: "INTEGER NOT NULL DEFAULT 0"},
	},
}

var tables = []table{nodesTable, edgesTable, movesTable, sniffMemoTable, sniffCoverTable, sniffTermsTable, metaTable, embedMemoTable}

// ftsDDL creates the metadata index. It is a regular FTS5 table (it keeps
// its own copy of the four short columns) whose rowid is the nodes rowid:
//
//   - an external-content table would read tags and aliases from nodes, where
//     they are JSON lists rather than the space-joined text the index holds,
//     and its delete command needs the exact old values;
//   - a contentless table cannot return id, which every locate query selects;
//   - with aligned rowids, keeping the index in step is one INSERT OR
//     REPLACE by integer key per node, and Rebuild drops and recreates the
//     table instead of deleting row by row, then fills it in one statement.
const ftsDDL = `CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5(` +
	`id UNINDEXED, title, aliases, tags, summary, tokenize='` + ftsTokenize + `')`

// ftsTokenize is the tokenizer of nodes_fts (spec 02, 0.4): diacritics
// folded, so a stored "produção" matches "producao".
const ftsTokenize = "unicode61 remove_diacritics 2"

// layoutVersion is stored in PRAGMA user_version. A file below it was not
// written by this package (or predates the layout): its nodes_fts rowids
// cannot be trusted to match nodes, and its leaves may carry the reference's
// legacy kind word, so the first writable open realigns both once.
const layoutVersion = 1

func (t table) createSQL() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	b.WriteString(t.name)
	b.WriteString(" (")
	for i, col := range t.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(col.name + " " + col.decl)
	}
	if t.constraint != "" {
		b.WriteString(", " + t.constraint)
	}
	b.WriteString(")")
	return b.String()
}

// migrate creates missing tables, adds missing columns, recreates foreign
// tables, creates indexes and adopts files of an older layout, all in one
// transaction so a failure leaves the file as it was.
func migrate(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, t := range tables {
		if err := migrateTable(ctx, tx, t); err != nil {
			return fmt.Errorf("table %s: %w", t.name, err)
		}
	}
	for _, stmt := range obsolete {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if err := adopt(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

func migrateTable(ctx context.Context, tx *sql.Tx, t table) error {
	have, err := tableColumns(ctx, tx, t.name)
	if err != nil {
		return err
	}
	if len(have) > 0 && !hasKey(t, have) {
		if _, err := tx.ExecContext(ctx, "DROP TABLE "+t.name); err != nil {
			return err
		}
		have = nil
	}
	if len(have) == 0 {
		if _, err := tx.ExecContext(ctx, t.createSQL()); err != nil {
			return err
		}
	} else {
		for _, col := range t.columns {
			if have[col.name] {
				continue
			}
			stmt := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", t.name, col.name, col.decl)
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("add column %s: %w", col.name, err)
			}
		}
	}
	for _, idx := range t.indexes {
		if _, err := tx.ExecContext(ctx, idx); err != nil {
			return err
		}
	}
	return nil
}

func hasKey(t table, have map[string]bool) bool {
	for _, col := range t.columns {
		if col.key && !have[col.name] {
			return false
		}
	}
	return true
}

// adopt brings a file below layoutVersion to the current layout: it rebuilds
// nodes_fts from nodes with aligned rowids and spells every leaf "note".
func adopt(ctx context.Context, tx *sql.Tx) error {
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version >= layoutVersion {
		_, err := tx.ExecContext(ctx, ftsDDL)
		return err
	}
	stmts := []string{
		"DROP TABLE IF EXISTS nodes_fts",
		ftsDDL,
		"INSERT " + ftsFillSQL,
		"UPDATE nodes SET kind = 'note' WHERE kind IS NOT 'branch' AND kind IS NOT 'note'",
		fmt.Sprintf("PRAGMA user_version = %d", layoutVersion),
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("adopt older layout: %w", err)
		}
	}
	return nil
}

// ftsFillSQL (after INSERT or INSERT OR REPLACE, before an optional WHERE
// on nodes) writes index rows from nodes rows, so the indexed text has one
// definition: title and summary as stored, aliases and tags space-joined
// from their JSON lists (a malformed list indexes as "").
//
// It runs after every other write of a transaction, and Rebuild runs it
// once over the whole table, because FTS5 flushes its pending terms to a
// new segment at the start of every later write statement of the
// transaction (statement savepoints): indexing per record between the other
// inserts made a segment per node and spent most of a rebuild merging them.
var ftsFillSQL = `INTO nodes_fts (rowid, id, title, aliases, tags, summary) ` +
	`SELECT rowid, id, title, ` + spaceJoinSQL("aliases") + `, ` + spaceJoinSQL("tags") + `, summary FROM nodes`

func spaceJoinSQL(col string) string {
	return fmt.Sprintf(`coalesce((SELECT group_concat(value, ' ') FROM json_each(`+
		`CASE WHEN json_valid(%[1]s) THEN %[1]s ELSE '[]' END)), '')`, col)
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// tableColumns returns the column names of a table; empty when it does not
// exist.
func tableColumns(ctx context.Context, q queryer, name string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		cols[n] = true
	}
	return cols, rows.Err()
}

// presentColumns returns the columns of every table the reader selects from.
func presentColumns(ctx context.Context, db *sql.DB) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, name := range []string{"nodes", "edges", "moves", "nodes_fts", "sniff_memo", "catalog_meta"} {
		cols, err := tableColumns(ctx, db, name)
		if err != nil {
			return nil, err
		}
		out[name] = cols
	}
	return out, nil
}

// selectList renders the columns of t for a SELECT. A column the file lacks
// (a read-only open of an older file) reads as its declared default.
func selectList(t table, want []string, have map[string]bool) string {
	decl := map[string]string{}
	for _, col := range t.columns {
		decl[col.name] = col.decl
	}
	parts := make([]string, len(want))
	for i, name := range want {
		if have[name] {
			parts[i] = name
		} else {
			parts[i] = defaultOf(decl[name]) + " AS " + name
		}
	}
	return strings.Join(parts, ", ")
}

// defaultOf extracts the DEFAULT expression of a column declaration; NULL
// when there is none.
func defaultOf(decl string) string {
	_, def, ok := strings.Cut(decl, "DEFAULT ")
	if !ok {
		return "NULL"
	}
	return def
}
