// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// getColumns are the nodes columns Get reads, in scan order.
var getColumns = []string{
	"id", "kind", "type", "title", "summary", "tags", "aliases", "created", "updated",
	"confidence", "source", "entity_kind", "payload", "payload_type", "payload_hash",
	"origin", "parent", "trail", "coverage", "body_tokens", "outline", "body_hash", "lang",
}

// statsSQL counts the rows of a complete catalog; readers of an older file
// build theirs with countSQL.
var statsSQL = countSQL(nil)

// countSQL counts nodes, branches, edges and waymarks; a table missing from
// have (when have is not nil) counts as 0.
func countSQL(have map[string]map[string]bool) string {
	count := func(table, where string) string {
		if have != nil && len(have[table]) == 0 {
			return "0"
		}
		return "(SELECT count(*) FROM " + table + where + ")"
	}
	return "SELECT " + count("nodes", "") + ", " + count("nodes", " WHERE kind = 'branch'") + ", " +
		count("edges", "") + ", " + count("moves", "")
}

// readStmts are prepared on the reader pool; database/sql prepares each
// lazily once per connection and reuses it. A statement over a table the
// file lacks (a read-only open of an old file) is nil and reads as empty.
type readStmts struct {
	get     *sql.Stmt
	getMany *sql.Stmt // the node columns of the ids in a JSON list
	movedTo *sql.Stmt
	inEdges *sql.Stmt
	// inDegree counts inEdges; inEdgesSample is inEdges cut to the first
	// n rows plus the rows from a JSON list of sources.
	inDegree      *sql.Stmt
	inEdgesSample *sql.Stmt
	stats         *sql.Stmt
	generation    *sql.Stmt // every sniff and most locates read it
	empty         *sql.Stmt
	probe         *sql.Stmt
	match         *sql.Stmt
	branches      *sql.Stmt // every write that changes a summary lists them
}

func (s *readStmts) prepare(ctx context.Context, db *sql.DB, have map[string]map[string]bool) error {
	edgeConf := selectList(edgesTable, []string{"confidence"}, have["edges"])
	for _, q := range []struct {
		dst   **sql.Stmt
		table string // the statement is left nil when the file lacks it
		query string
	}{
		{&s.get, "nodes", getSQL(have)},
		{&s.getMany, "nodes", "SELECT " + selectList(nodesTable, getColumns, have["nodes"]) +
			" FROM nodes WHERE id IN (SELECT value FROM json_each(?))"},
		{&s.movedTo, "moves", "SELECT new_id FROM moves WHERE old_id = ?"},
		{&s.inEdges, "edges", "SELECT src, rel, " + edgeConf + " FROM edges WHERE dst = ? ORDER BY rowid"},
		{&s.inDegree, "edges", "SELECT count(*) FROM edges WHERE dst = ?"},
		{&s.inEdgesSample, "edges", "SELECT src, rel, " + edgeConf + " FROM edges WHERE rowid IN (" +
			"SELECT rowid FROM (SELECT rowid FROM edges WHERE dst = ?1 ORDER BY rowid LIMIT ?2+0) " +
			"UNION SELECT rowid FROM edges WHERE dst = ?1 AND src IN (SELECT value FROM json_each(?3))) ORDER BY rowid"},
		{&s.stats, "nodes", countSQL(have)},
		{&s.generation, "catalog_meta", "SELECT value FROM catalog_meta WHERE key = 'generation'"},
		{&s.empty, "nodes", "SELECT NOT EXISTS (SELECT 1 FROM nodes)"},
		{&s.probe, "nodes", "SELECT title FROM nodes WHERE title <> '' ORDER BY rowid LIMIT 16"},
		{&s.branches, "nodes", "SELECT id FROM nodes WHERE kind = 'branch' ORDER BY id"},
		// The shape RankExpr documents for locate.
		{&s.match, "nodes_fts", "SELECT n.id, f.rank FROM (SELECT rowid, " + RankExpr + " AS rank FROM nodes_fts " +
			"WHERE nodes_fts MATCH ? ORDER BY rank LIMIT 25) AS f JOIN nodes AS n ON n.rowid = f.rowid ORDER BY f.rank"},
	} {
		if len(have[q.table]) == 0 {
			continue
		}
		st, err := db.PrepareContext(ctx, q.query)
		if err != nil {
			return fmt.Errorf("%s: %w", q.query, err)
		}
		*q.dst = st
	}
	return nil
}

func (s *readStmts) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.get, s.getMany, s.movedTo, s.inEdges, s.inDegree, s.inEdgesSample, s.stats, s.generation, s.empty, s.probe, s.match, s.branches} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// Get returns the record of a node, with its out-edges in declared order and
// the waymarks pointing at it as MovedFrom. Content is not stored and comes
// back "". Empty lists come back nil. Leaves read as kind "note" whatever
// spelling an older writer stored. The row, edges and waymarks are read by
// one statement, so in one snapshot: a read transaction around three
// queries cost twice as much (every read primitive resolves its id here).
func (c *Catalog) Get(ctx context.Context, id string) (Record, bool, error) {
	var edges, movedFrom string
	r, err := scanRecord(c.r.get.QueryRowContext(ctx, id), &edges, &movedFrom)
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("catalog: get %q: %w", id, err)
	}
	if r.Edges, err = decodeEdges(edges); err != nil {
		return Record{}, false, fmt.Errorf("catalog: get %q: out-edges: %w", id, err)
	}
	if r.MovedFrom, err = ParseList(movedFrom); err != nil {
		return Record{}, false, fmt.Errorf("catalog: get %q: waymarks: %w", id, err)
	}
	return r, true, nil
}

// getSQL reads a row with its out-edges and the waymarks pointing at it
// folded into JSON arrays; a table the file lacks reads as empty.
func getSQL(have map[string]map[string]bool) string {
	edges, moves := "'[]'", "'[]'"
	if len(have["edges"]) > 0 {
		edges = "(SELECT json_group_array(json_array(rel, dst, confidence)) FROM (SELECT rel, dst, " +
			selectList(edgesTable, []string{"confidence"}, have["edges"]) + " FROM edges WHERE src = n.id ORDER BY rowid))"
	}
	if len(have["moves"]) > 0 {
		moves = "(SELECT json_group_array(old_id) FROM (SELECT old_id FROM moves WHERE new_id = n.id ORDER BY rowid))"
	}
	return "SELECT " + selectList(nodesTable, getColumns, have["nodes"]) + ", " + edges + ", " + moves +
		" FROM nodes AS n WHERE id = ?"
}

// decodeEdges parses getSQL's [[rel, dst, confidence], ...]; nil when
// empty.
func decodeEdges(s string) ([]Edge, error) {
	ts, err := decodeTriples(s)
	if err != nil || ts == nil {
		return nil, err
	}
	out := make([]Edge, len(ts))
	for i, t := range ts {
		out[i] = Edge{Rel: t.a, Dst: t.b, Confidence: t.n}
	}
	return out, nil
}

// GetMany returns the rows of the given ids that exist, keyed by id, in
// one prepared query over the ids as a JSON list: the node columns only
// (no Edges, no MovedFrom), for callers that rank or sort many nodes by
// their row. Missing ids are absent from the map.
func (c *Catalog) GetMany(ctx context.Context, ids []string) (map[string]Record, error) {
	out := make(map[string]Record, len(ids))
	if c.r.getMany == nil || len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("catalog: get many: %w", err)
	}
	rows, err := c.r.getMany.QueryContext(ctx, string(list))
	if err != nil {
		return nil, fmt.Errorf("catalog: get many: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("catalog: get many: %w", err)
		}
		out[r.ID] = r
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("catalog: get many: %w", err)
	}
	return out, nil
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(dest ...any) error }

// scanRecord scans the getColumns of a row, then any extra columns into
// extra.
func scanRecord(row rowScanner, extra ...any) (Record, error) {
	var (
		r                                      Record
		kind, typ, title, summary              sql.NullString
		tags, aliases, created, updated        sql.NullString
		source, entityKind, payload, payloadTy sql.NullString
		payloadHash, origin, parent, trail     sql.NullString
		coverage, outline, bodyHash, lang      sql.NullString
		confidence                             sql.NullFloat64
		bodyTokens                             sql.NullInt64
	)
	err := row.Scan(append([]any{&r.ID, &kind, &typ, &title, &summary, &tags, &aliases, &created, &updated,
		&confidence, &source, &entityKind, &payload, &payloadTy, &payloadHash,
		&origin, &parent, &trail, &coverage, &bodyTokens, &outline, &bodyHash, &lang}, extra...)...)
	if err != nil {
		return Record{}, err
	}
	r.Kind = "note"
	if kind.String == "branch" {
		r.Kind = "branch"
	}
	r.Type, r.Title, r.Summary = typ.String, title.String, summary.String
	r.Created, r.Updated = created.String, updated.String
	r.Confidence = confidence.Float64
	r.Source, r.EntityKind, r.Payload = source.String, entityKind.String, payload.String
	r.PayloadType, r.PayloadHash, r.Origin = payloadTy.String, payloadHash.String, origin.String
	r.Parent, r.Coverage, r.BodyHash, r.Lang = parent.String, coverage.String, bodyHash.String, lang.String
	r.BodyTokens = int(bodyTokens.Int64)
	for _, l := range []struct {
		dst *[]string
		src sql.NullString
		col string
	}{{&r.Tags, tags, "tags"}, {&r.Aliases, aliases, "aliases"}, {&r.Trail, trail, "trail"}, {&r.Outline, outline, "outline"}} {
		if *l.dst, err = ParseList(l.src.String); err != nil {
			return Record{}, fmt.Errorf("column %s: %w", l.col, err)
		}
	}
	return r, nil
}

// ParseList decodes a JSON list column as the catalog stores them (tags,
// aliases, trail, coverage, outline); nil when empty. Lists of plain
// strings (no escapes), which is nearly every trail, tag and outline,
// are split directly: every record read decodes four of them.
func ParseList(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	if list, ok := plainList(s); ok {
		return list, nil
	}
	var list []string
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, nil
	}
	return list, nil
}

// plainList splits ["a", "b"] when no element holds a backslash; ok is
// false for anything else, which encoding/json then reads.
func plainList(s string) ([]string, bool) {
	const jsonSpace = " \t\n\r"
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' || strings.IndexByte(s, '\\') >= 0 {
		return nil, false
	}
	var out []string
	rest := strings.Trim(s[1:len(s)-1], jsonSpace)
	for rest != "" {
		if rest[0] != '"' {
			return nil, false
		}
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return nil, false
		}
		elem := rest[1 : 1+end]
		if !utf8.ValidString(elem) || strings.ContainsFunc(elem, func(r rune) bool { return r < 0x20 }) {
			return nil, false
		}
		out = append(out, elem)
		rest = strings.Trim(rest[2+end:], jsonSpace)
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return nil, false
		}
		rest = strings.Trim(rest[1:], jsonSpace)
		if rest == "" {
			return nil, false // a trailing comma
		}
	}
	return out, len(out) > 0
}

func queryStrings(ctx context.Context, st *sql.Stmt, args ...any) ([]string, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// MovedTo returns where the waymark at id points: the id the node was moved
// to (E_MOVED's moved_to). ok is false when id is no waymark. The target may
// itself be a waymark; following chains is the caller's decision.
func (c *Catalog) MovedTo(ctx context.Context, id string) (string, bool, error) {
	if c.r.movedTo == nil {
		return "", false, nil
	}
	var to string
	err := c.r.movedTo.QueryRowContext(ctx, id).Scan(&to)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("catalog: moved-to %q: %w", id, err)
	}
	return to, true, nil
}

// InEdges returns the edges whose destination is id, in declaration order,
// with the rel as declared by the source; the caller applies the dialect's
// inverse (C.6.1: inverses are materialized at read time).
func (c *Catalog) InEdges(ctx context.Context, id string) ([]InEdge, error) {
	if c.r.inEdges == nil {
		return nil, nil
	}
	rows, err := c.r.inEdges.QueryContext(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("catalog: in-edges %q: %w", id, err)
	}
	return scanInEdges(rows, id)
}

func scanInEdges(rows *sql.Rows, id string) ([]InEdge, error) {
	defer rows.Close()
	var out []InEdge
	for rows.Next() {
		var e InEdge
		if err := rows.Scan(&e.Src, &e.Rel, &e.Confidence); err != nil {
			return nil, fmt.Errorf("catalog: in-edges %q: %w", id, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: in-edges %q: %w", id, err)
	}
	return out, nil
}

// InDegree counts the edges whose destination is id, without reading
// them: a hub has thousands.
func (c *Catalog) InDegree(ctx context.Context, id string) (int, error) {
	if c.r.inDegree == nil {
		return 0, nil
	}
	var n int
	if err := c.r.inDegree.QueryRowContext(ctx, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("catalog: in-degree %q: %w", id, err)
	}
	return n, nil
}

// InEdgesSample returns, in declaration order, the first n edges whose
// destination is id, followed by any later ones whose source is in from:
// what a reader showing the hottest few of a hub's in-edges needs, given
// the nodes that have heat.
func (c *Catalog) InEdgesSample(ctx context.Context, id string, n int, from []string) ([]InEdge, error) {
	if c.r.inEdgesSample == nil {
		return nil, nil
	}
	if from == nil {
		from = []string{}
	}
	arg, err := json.Marshal(from)
	if err != nil {
		return nil, err
	}
	rows, err := c.r.inEdgesSample.QueryContext(ctx, id, n, string(arg))
	if err != nil {
		return nil, fmt.Errorf("catalog: in-edges %q: %w", id, err)
	}
	return scanInEdges(rows, id)
}

// Stats counts nodes, branches, edges and waymarks.
func (c *Catalog) Stats(ctx context.Context) (Stats, error) {
	st, err := scanStats(c.r.stats.QueryRowContext(ctx))
	if err != nil {
		return Stats{}, fmt.Errorf("catalog: stats: %w", err)
	}
	return st, nil
}

func scanStats(row *sql.Row) (Stats, error) {
	var st Stats
	err := row.Scan(&st.Nodes, &st.Branches, &st.Edges, &st.Moves)
	return st, err
}

// IDs lists the id of every node row, in byte order: what validate
// compares with the files on disk.
func (c *Catalog) IDs(ctx context.Context) ([]string, error) {
	rows, err := c.reader.QueryContext(ctx, `SELECT id FROM nodes ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("catalog: ids: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("catalog: ids: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// Empty reports whether the catalog has no node rows: on open, an empty
// catalog calls for a full reindex (C.6.1).
func (c *Catalog) Empty(ctx context.Context) (bool, error) {
	var empty bool
	if err := c.r.empty.QueryRowContext(ctx).Scan(&empty); err != nil {
		return false, fmt.Errorf("catalog: empty: %w", err)
	}
	return empty, nil
}

// Warm faults the catalog's pages in through storage only (C.6.1 Warm): it
// counts the rows and runs a ranked FTS query once with a probe word taken
// from the catalog's own titles, never a fixed word, and reads no bodies.
// It goes through no primitive, so it traces nothing and deposits no heat.
func (c *Catalog) Warm(ctx context.Context) error {
	if _, err := c.Stats(ctx); err != nil {
		return err
	}
	if c.r.match == nil {
		return nil
	}
	word, err := c.probeWord(ctx)
	if err != nil || word == "" {
		return err
	}
	rows, err := c.r.match.QueryContext(ctx, MatchExpr([]string{word}))
	if err != nil {
		return fmt.Errorf("catalog: warm: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("catalog: warm: %w", err)
	}
	return nil
}

// probeWord returns the first word of at least two letters or digits in the
// first titles of the catalog; "" for an empty catalog.
func (c *Catalog) probeWord(ctx context.Context) (string, error) {
	titles, err := queryStrings(ctx, c.r.probe)
	if err != nil {
		return "", fmt.Errorf("catalog: warm: %w", err)
	}
	for _, t := range titles {
		for _, w := range strings.FieldsFunc(t, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			if len([]rune(w)) >= 2 {
				return w, nil
			}
		}
	}
	return "", nil
}
