// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// upsertColumns are the nodes columns a Record fills, in bind order. stale
// is left out on purpose: it belongs to the dense layer and survives upserts.
var upsertColumns = []string{
	"id", "kind", "type", "title", "summary", "tags", "aliases", "created", "updated",
	"confidence", "source", "entity_kind", "payload", "payload_type", "payload_hash",
	"origin", "parent", "trail", "coverage", "body_tokens", "outline", "body_hash", "lang",
}

// insertSQL is the plain insert Rebuild uses for a first-seen id: the
// tables start empty, so there is no conflict to resolve and no rowid to
// return (the index is filled from nodes afterwards in one statement).
func insertSQL() string {
	return "INSERT INTO nodes (" + strings.Join(upsertColumns, ", ") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(upsertColumns)), ", ") + ")"
}

func upsertSQL() string {
	set := make([]string, 0, len(upsertColumns)-1)
	for _, col := range upsertColumns[1:] {
		set = append(set, col+" = excluded."+col)
	}
	return "INSERT INTO nodes (" + strings.Join(upsertColumns, ", ") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(upsertColumns)), ", ") + ")" +
		" ON CONFLICT (id) DO UPDATE SET " + strings.Join(set, ", ") +
		" RETURNING rowid" // kept on update, so the nodes_fts row keeps its key
}

// writeStmts are the statements of the write path, prepared once on the
// writer's single connection and bound to each transaction with Tx.Stmt,
// which reuses the connection's prepared copy.
type writeStmts struct {
	upsertNode     *sql.Stmt
	insertNode     *sql.Stmt
	ftsDelete      *sql.Stmt
	ftsIndex       *sql.Stmt
	edgesDeleteSrc *sql.Stmt
	edgeInsert     *sql.Stmt
	movesDeleteOld *sql.Stmt
	moveInsert     *sql.Stmt
	memoInvalidate *sql.Stmt
	nodeDelete     *sql.Stmt
	edgesDeleteDst *sql.Stmt
	movesDeleteNew *sql.Stmt
	memoDeleteNode *sql.Stmt
	generation     *sql.Stmt
}

func (s *writeStmts) all() []**sql.Stmt {
	return []**sql.Stmt{&s.upsertNode, &s.insertNode, &s.ftsDelete, &s.ftsIndex, &s.edgesDeleteSrc,
		&s.edgeInsert, &s.movesDeleteOld, &s.moveInsert, &s.memoInvalidate,
		&s.nodeDelete, &s.edgesDeleteDst, &s.movesDeleteNew, &s.memoDeleteNode, &s.generation}
}

func (s *writeStmts) prepare(ctx context.Context, db *sql.DB) error {
	for _, q := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&s.upsertNode, upsertSQL()},
		{&s.insertNode, insertSQL()},
		{&s.ftsDelete, "DELETE FROM nodes_fts WHERE rowid = ?"},
		{&s.ftsIndex, "INSERT OR REPLACE " + ftsFillSQL + " WHERE rowid = ?"},
		{&s.edgesDeleteSrc, "DELETE FROM edges WHERE src = ?"},
		// OR IGNORE: a repeated (rel, dst) in links: keeps the first (C.6.1).
		{&s.edgeInsert, "INSERT OR IGNORE INTO edges (src, rel, dst, confidence) VALUES (?, ?, ?, ?)"},
		{&s.movesDeleteOld, "DELETE FROM moves WHERE old_id = ?"},
		{&s.moveInsert, "INSERT OR REPLACE INTO moves (old_id, new_id) VALUES (?, ?)"},
		// An empty new hash can validate nothing (C.6.1 §2.2), so it drops
		// every row of the node; otherwise identical bytes keep their rows.
		{&s.memoInvalidate, "DELETE FROM sniff_memo WHERE node_id = ?1 AND (body_hash <> ?2 OR ?2 = '')"},
		{&s.nodeDelete, "DELETE FROM nodes WHERE id = ? RETURNING rowid"},
		{&s.edgesDeleteDst, "DELETE FROM edges WHERE dst = ?"},
		{&s.movesDeleteNew, "DELETE FROM moves WHERE new_id = ?"},
		{&s.memoDeleteNode, "DELETE FROM sniff_memo WHERE node_id = ?"},
		{&s.generation, `INSERT INTO catalog_meta(key, value) VALUES ('generation', 1)
			ON CONFLICT(key) DO UPDATE SET value = value + 1`},
	} {
		st, err := db.PrepareContext(ctx, q.query)
		if err != nil {
			return fmt.Errorf("%s: %w", q.query, err)
		}
		*q.dst = st
	}
	return nil
}

// bind returns the statements bound to tx.
func (s *writeStmts) bind(ctx context.Context, tx *sql.Tx) *writeStmts {
	b := &writeStmts{}
	src, dst := s.all(), b.all()
	for i := range src {
		*dst[i] = tx.StmtContext(ctx, *src[i])
	}
	return b
}

func (s *writeStmts) close() error {
	var errs []error
	for _, p := range s.all() {
		if *p != nil {
			errs = append(errs, (*p).Close())
		}
	}
	return errors.Join(errs...)
}

// Upsert writes the records in one transaction. For each node it replaces the
// row (keeping the dense layer's stale flag), its nodes_fts row and its
// out-edges; it makes the node's own address live again by dropping the
// waymark that pointed away from it, records a waymark for every id in
// MovedFrom, and deletes the node's sniff memo rows whose body hash differs
// from the new one (identical bytes invalidate nothing).
func (c *Catalog) Upsert(ctx context.Context, recs ...Record) error {
	if err := c.refuseReadOnly("Upsert"); err != nil {
		return err
	}
	for i := range recs {
		if err := validate(&recs[i]); err != nil {
			return err
		}
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		s := c.w.bind(ctx, tx)
		if err := s.bumpGeneration(ctx); err != nil {
			return err
		}
		rowids := make([]int64, len(recs))
		for i := range recs {
			rowid, err := s.upsert(ctx, &recs[i], true, true)
			if err != nil {
				return err
			}
			rowids[i] = rowid
		}
		// The index is written last; see ftsFillSQL.
		for i, rowid := range rowids {
			if _, err := s.ftsIndex.ExecContext(ctx, rowid); err != nil {
				return writeErr("index", recs[i].ID, err)
			}
		}
		return nil
	})
}

// Delete removes the nodes in one transaction, with their nodes_fts rows,
// their edges in both directions, the waymarks pointing at them and their
// sniff memo rows. Absent ids are ignored.
func (c *Catalog) Delete(ctx context.Context, ids ...string) error {
	if err := c.refuseReadOnly("Delete"); err != nil {
		return err
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		s := c.w.bind(ctx, tx)
		if err := s.bumpGeneration(ctx); err != nil {
			return err
		}
		var rowids []int64
		for _, id := range ids {
			rowid, ok, err := s.delete(ctx, id)
			if err != nil {
				return err
			}
			if ok {
				rowids = append(rowids, rowid)
			}
		}
		// The index is written last; see ftsFillSQL.
		for _, rowid := range rowids {
			if _, err := s.ftsDelete.ExecContext(ctx, rowid); err != nil {
				return fmt.Errorf("catalog: unindex row %d: %w", rowid, err)
			}
		}
		return nil
	})
}

// progressEvery is how many records Rebuild inserts between progress calls.
const progressEvery = 1000

// Rebuild replaces the whole catalog with recs (reindex): it empties nodes,
// edges, nodes_fts and moves, inserts every record, and deletes the sniff
// memo rows of nodes that no longer exist, never those of surviving nodes
// (their rows stay valid while the body hash matches). The dense layer's
// stale flags of surviving nodes are carried over. Everything happens in one
// transaction: readers see the old catalog until the new one is complete,
// and a failure or cancellation leaves the old one in place.
//
// A record whose id repeats replaces the earlier one. progress, when not
// nil, is called every 1000 records and once at the end with the number
// inserted so far; it runs inside the transaction, on the calling goroutine,
// and must not call the Catalog's write methods. Rebuild returns the counts
// of the new catalog.
func (c *Catalog) Rebuild(ctx context.Context, recs iter.Seq[Record], progress func(done int)) (Stats, error) {
	if err := c.refuseReadOnly("Rebuild"); err != nil {
		return Stats{}, err
	}
	var st Stats
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		if err := execAll(ctx, tx, rebuildBefore); err != nil {
			return err
		}
		s := c.w.bind(ctx, tx)
		if err := s.bumpGeneration(ctx); err != nil {
			return err
		}
		done := 0
		seen := make(map[string]struct{})
		for r := range recs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := validate(&r); err != nil {
				return err
			}
			// The tables start empty: only a repeated id has rows to replace.
			_, again := seen[r.ID]
			seen[r.ID] = struct{}{}
			if err := s.rebuildRow(ctx, &r, again); err != nil {
				return err
			}
			done++
			if progress != nil && done%progressEvery == 0 {
				progress(done)
			}
		}
		if err := execAll(ctx, tx, rebuildAfter); err != nil {
			return err
		}
		if progress != nil && done%progressEvery != 0 {
			progress(done)
		}
		var err error
		st, err = scanStats(tx.QueryRowContext(ctx, statsSQL))
		return err
	})
	if err != nil {
		return Stats{}, err
	}
	return st, nil
}

// rebuildBefore empties the derived tables. nodes_fts is dropped and
// recreated: deleting from a regular FTS5 table re-tokenizes every old row.
// The secondary indexes of nodes and edges are dropped too and built again
// once the rows are in (rebuildAfter): one sort per index instead of a
// random B-tree insert per row, which at 100,000 nodes was a fifth of the
// rebuild. The primary keys stay; rows arrive in walk order, close to id
// order.
var rebuildBefore = slices.Concat([]string{
	"CREATE TEMP TABLE IF NOT EXISTS rebuild_stale (id TEXT PRIMARY KEY)",
	"DELETE FROM temp.rebuild_stale",
	"INSERT INTO temp.rebuild_stale SELECT id FROM nodes WHERE stale <> 0",
}, dropIndexes(nodesTable, edgesTable), []string{
	"DELETE FROM nodes",
	"DELETE FROM edges",
	"DELETE FROM moves",
	"DROP TABLE IF EXISTS nodes_fts",
	ftsDDL,
})

// rebuildAfter rebuilds the dropped indexes, indexes every node in one
// statement (see ftsFillSQL), restores the stale flags, settles the memo,
// and applies the waymark rule whatever order the records came in: a live
// node's address is no waymark.
var rebuildAfter = slices.Concat(nodesTable.indexes, edgesTable.indexes, []string{
	"INSERT " + ftsFillSQL,
	"DELETE FROM moves WHERE old_id IN (SELECT id FROM nodes)",
	"UPDATE nodes SET stale = 1 WHERE id IN (SELECT id FROM temp.rebuild_stale)",
	"DELETE FROM temp.rebuild_stale",
	"DELETE FROM sniff_memo WHERE node_id NOT IN (SELECT id FROM nodes)",
	// The memo's per-term counts follow what the line above removed.
	"UPDATE sniff_terms SET rows = (SELECT count(*) FROM sniff_memo m WHERE m.term = sniff_terms.term)",
	"DELETE FROM sniff_terms WHERE rows = 0",
})

// dropIndexes returns a DROP INDEX statement for each CREATE INDEX of the
// tables.
func dropIndexes(tables ...table) []string {
	var out []string
	for _, t := range tables {
		for _, ddl := range t.indexes {
			out = append(out, "DROP INDEX IF EXISTS "+indexName(ddl))
		}
	}
	return out
}

// indexName reads the name out of "CREATE INDEX IF NOT EXISTS name ON ...".
func indexName(ddl string) string {
	f := strings.Fields(ddl)
	for i, w := range f {
		if strings.EqualFold(w, "ON") && i > 0 {
			return f[i-1]
		}
	}
	panic("catalog: no index name in " + ddl) // the schema is a literal: a test catches it
}

func execAll(ctx context.Context, tx *sql.Tx, stmts []string) error {
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("catalog: %s: %w", q, err)
		}
	}
	return nil
}

// Write runs fn in a transaction on the writer connection and commits when
// fn returns nil. It serves the catalog's side tables whose rules live with
// their owners (sniff_memo entries stored after an answer, embed_memo, the
// stale flag); nodes, edges, nodes_fts and moves are kept in step by Upsert,
// Delete and Rebuild only. fn must not use the Catalog's write methods: the
// writer has one connection, which fn holds.
func (c *Catalog) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := c.refuseReadOnly("Write"); err != nil {
		return err
	}
	return c.inTx(ctx, fn)
}

// inTx runs fn in a writer transaction, rolling back on error or panic.
func (c *Catalog) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := c.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("catalog: begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	committed = true
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("catalog: commit: %w", err)
	}
	return nil
}

// upsert writes one record's row, edges and waymarks, and returns the row's
// rowid for the index. replace deletes the node's previous out-edges and
// the waymark at its address first. memo applies the sniff memo
// invalidation, which reindex never does.
func (s *writeStmts) upsert(ctx context.Context, r *Record, replace, memo bool) (int64, error) {
	hash := bodyHash(r)
	var rowid int64
	err := s.upsertNode.QueryRowContext(ctx, nodeArgs(r, hash)...).Scan(&rowid)
	if err != nil {
		return 0, writeErr("upsert", r.ID, err)
	}
	if replace {
		if _, err := s.edgesDeleteSrc.ExecContext(ctx, r.ID); err != nil {
			return 0, writeErr("delete out-edges of", r.ID, err)
		}
		// The node's own address is live again (v0.58).
		if _, err := s.movesDeleteOld.ExecContext(ctx, r.ID); err != nil {
			return 0, writeErr("clear waymark of", r.ID, err)
		}
	}
	if memo {
		if _, err := s.memoInvalidate.ExecContext(ctx, r.ID, hash); err != nil {
			return 0, writeErr("invalidate sniff memo of", r.ID, err)
		}
	}
	return rowid, s.insertLinks(ctx, r)
}

// rebuildRow writes one record during Rebuild, whose tables start empty:
// a first-seen id is a plain insert, and only a repeated id (again) goes
// through upsert to replace the earlier record's rows.
func (s *writeStmts) rebuildRow(ctx context.Context, r *Record, again bool) error {
	if again {
		_, err := s.upsert(ctx, r, true, false)
		return err
	}
	if _, err := s.insertNode.ExecContext(ctx, nodeArgs(r, bodyHash(r))...); err != nil {
		return writeErr("insert", r.ID, err)
	}
	return s.insertLinks(ctx, r)
}

// nodeArgs binds a record to upsertColumns, in order.
func nodeArgs(r *Record, hash string) []any {
	return []any{
		r.ID, r.Kind, r.Type, r.Title, r.Summary, jsonList(r.Tags), jsonList(r.Aliases),
		r.Created, r.Updated, r.Confidence, null(r.Source), null(r.EntityKind), null(r.Payload),
		null(r.PayloadType), null(r.PayloadHash), null(r.Origin), null(r.Parent),
		jsonList(r.Trail), null(r.Coverage), r.BodyTokens, jsonList(r.Outline), hash, null(r.Lang),
	}
}

// insertLinks writes a record's out-edges and the waymarks of MovedFrom.
func (s *writeStmts) insertLinks(ctx context.Context, r *Record) error {
	for _, e := range r.Edges {
		if _, err := s.edgeInsert.ExecContext(ctx, r.ID, e.Rel, e.Dst, e.Confidence); err != nil {
			return writeErr("insert edge of", r.ID, err)
		}
	}
	for _, old := range r.MovedFrom {
		if old == "" || old == r.ID {
			continue
		}
		if _, err := s.moveInsert.ExecContext(ctx, old, r.ID); err != nil {
			return writeErr("record waymark to", r.ID, err)
		}
	}
	return nil
}

// delete removes one node's row, edges, waymarks and memo rows, and returns
// the rowid of its index row when it had a row.
func (s *writeStmts) delete(ctx context.Context, id string) (rowid int64, ok bool, err error) {
	err = s.nodeDelete.QueryRowContext(ctx, id).Scan(&rowid)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// No row: still drop edges, waymarks and memo rows naming the id,
		// which a half-applied history may have left behind.
	case err != nil:
		return 0, false, writeErr("delete", id, err)
	default:
		ok = true
	}
	for _, st := range []*sql.Stmt{s.edgesDeleteSrc, s.edgesDeleteDst, s.movesDeleteNew, s.memoDeleteNode} {
		if _, err := st.ExecContext(ctx, id); err != nil {
			return 0, false, writeErr("delete rows of", id, err)
		}
	}
	return rowid, ok, nil
}

func writeErr(op, id string, err error) error {
	return fmt.Errorf("catalog: %s %q: %w", op, id, err)
}

// bodyHash is the hash to store: a cached or reference body is not inline,
// and an inline-only memo must never match it (C.6.1 §2.2).
func bodyHash(r *Record) string {
	switch r.Content {
	case "cached", "reference":
		return ""
	}
	return r.BodyHash
}

// validate refuses records that would corrupt the catalog's invariants.
func validate(r *Record) error {
	if r.ID == "" {
		return envelope.New(envelope.Schema,
			"catalog record has an empty id; expected the node's forest-relative path without .md",
			"build the record from a parsed node, whose id is never empty")
	}
	if r.Kind != "branch" && r.Kind != "note" {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("catalog record %q has kind %q; expected \"branch\" or \"note\"", r.ID, r.Kind),
			"kind is \"branch\" when type is branch, else \"note\"").
			With("id", r.ID).With("kind", r.Kind)
	}
	if math.IsNaN(r.Confidence) {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("catalog record %q has confidence NaN; expected a number", r.ID),
			"a non-numeric confidence defaults to 1.0").With("id", r.ID)
	}
	for _, e := range r.Edges {
		if math.IsNaN(e.Confidence) {
			return envelope.New(envelope.Schema,
				fmt.Sprintf("catalog record %q has an edge %s -> %s with confidence NaN; expected a number", r.ID, e.Rel, e.Dst),
				"a non-numeric link confidence defaults to 1.0").With("id", r.ID)
		}
	}
	return nil
}

// null maps "" to SQL NULL.
func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// jsonList encodes a list as JSON, "[]" when empty, with non-ASCII and
// HTML characters kept raw so the column reads as written.
func jsonList(list []string) string {
	if len(list) == 0 {
		return "[]"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(list); err != nil {
		return "[]" // a []string always encodes
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// bumpGeneration advances the catalog generation inside a write, with a
// statement prepared once instead of parsed again for every write.
func (s *writeStmts) bumpGeneration(ctx context.Context) error {
	if _, err := s.generation.ExecContext(ctx); err != nil {
		return fmt.Errorf("catalog: advance generation: %w", err)
	}
	return nil
}

// Generation is the catalog's write counter: it changes with every
// Upsert, Delete and Rebuild. Facts derived from the catalog (such as the
// sniff memo's coverage markers) record it and hold only while it stands.
// It is read from the file once per committed transaction (any writer's,
// in any process) and from memory in between.
func (c *Catalog) Generation(ctx context.Context) (int64, error) {
	if c.r.generation == nil {
		return 0, nil // an older file without the counter: nothing to compare with
	}
	// The mark is read before the counter: a counter read after it is
	// at least as new, so it holds for as long as the mark stands.
	mark, ok := c.watch.Mark()
	if ok {
		if g, hit := c.gen.Get(mark); hit {
			return g, nil
		}
	}
	var g int64
	err := c.r.generation.QueryRowContext(ctx).Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		g, err = 0, nil
	}
	if err == nil && ok {
		c.gen.Put(mark, g)
	}
	return g, err
}
