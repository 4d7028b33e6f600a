// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"fmt"
)

// The reads in this file are for the packages built on the catalog
// (gardener, ranger, canopy, the root's engines): each is one question they
// asked with raw SQL before, so the schema stays this package's to change.

// Match is one node a ranked metadata search found.
type Match struct {
	ID      string
	Kind    string
	Title   string
	Summary string
}

// Search ranks nodes by locate's BM25 over the metadata index (RankExpr)
// for match, an FTS5 expression as MatchExpr renders it, and returns at most
// limit of them, best first. An empty match finds nothing.
func (c *Catalog) Search(ctx context.Context, match string, limit int) ([]Match, error) {
	if match == "" || limit <= 0 || len(c.cols["nodes_fts"]) == 0 {
		return nil, nil
	}
	rows, err := c.reader.QueryContext(ctx, `SELECT n.id, n.kind, n.title, n.summary FROM (
		SELECT rowid, `+RankExpr+` AS rank FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT ?) AS f
		JOIN nodes AS n ON n.rowid = f.rowid ORDER BY f.rank`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("catalog: search: %w", err)
	}
	defer rows.Close()
	var out []Match
	for rows.Next() {
		var m Match
		var title, summary sql.NullString
		if err := rows.Scan(&m.ID, &m.Kind, &title, &summary); err != nil {
			return nil, fmt.Errorf("catalog: search: %w", err)
		}
		m.Title, m.Summary = title.String, summary.String
		out = append(out, m)
	}
	return out, rows.Err()
}

// Branches lists the ids of the branch rows in byte order. With source set,
// only branches whose source field is that value (e.g. "ingest") are listed.
func (c *Catalog) Branches(ctx context.Context, source string) ([]string, error) {
	var out []string
	var err error
	switch {
	case source == "" && c.r.branches != nil:
		out, err = queryStrings(ctx, c.r.branches)
	case source == "":
	case c.HasColumn("nodes", "source"): // a file older than the field names no source
		out, err = c.queryIDs(ctx, `SELECT id FROM nodes WHERE kind = 'branch' AND source = ? ORDER BY id`, source)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: branches: %w", err)
	}
	return out, nil
}

// queryIDs runs a one-column query of ids on the reader pool.
func (c *Catalog) queryIDs(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := c.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// EdgeDegrees counts, for every id an edge names, the edge rows it takes
// part in, as source plus as destination. Ids may be link targets that are
// not nodes. Folder placement is no edge and is not counted.
func (c *Catalog) EdgeDegrees(ctx context.Context) (map[string]int, error) {
	deg := map[string]int{}
	if len(c.cols["edges"]) == 0 {
		return deg, nil
	}
	rows, err := c.reader.QueryContext(ctx,
		`SELECT id, count(*) FROM (SELECT src AS id FROM edges UNION ALL SELECT dst FROM edges) GROUP BY id`)
	if err != nil {
		return nil, fmt.Errorf("catalog: edge degrees: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("catalog: edge degrees: %w", err)
		}
		deg[id] = n
	}
	return deg, rows.Err()
}
