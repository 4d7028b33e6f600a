// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ScentRow is one row of the metadata index (nodes_fts) as an in-memory
// copy of the index needs it: the indexed text of the four searched
// columns, and the node columns a locate filters on, read from the nodes
// row with the same rowid (Node false when there is none).
type ScentRow struct {
	RowID   int64
	Title   string
	Aliases string // space-joined, as indexed
	Tags    string // space-joined, as indexed
	Summary string

	Node    bool
	ID      string
	Kind    string
	Type    string
	Created string
	Updated string
}

// ScentRows calls fn for every row of nodes_fts in rowid order, in one
// read transaction, and returns the catalog generation the rows are of
// and the number of nodes rows (a count above the rows with Node set
// means some node has no index row). It refuses a catalog whose index is
// not declared as this package declares it, or that keeps no generation:
// a copy of such an index could neither match its ranking nor be kept
// fresh (ScentTracked says which).
func (c *Catalog) ScentRows(ctx context.Context, fn func(*ScentRow) error) (gen int64, nodes int, err error) {
	tx, err := c.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, 0, fmt.Errorf("catalog: scent rows: %w", err)
	}
	defer tx.Rollback()
	switch ok, err := scentTracked(ctx, tx, c.cols); {
	case err != nil:
		return 0, 0, fmt.Errorf("catalog: scent rows: %w", err)
	case !ok:
		return 0, 0, errors.New("catalog: scent rows: nodes_fts is not declared as this catalog declares it")
	}
	if err := tx.QueryRowContext(ctx, "SELECT coalesce((SELECT value FROM catalog_meta WHERE key = 'generation'), 0)").Scan(&gen); err != nil {
		return 0, 0, fmt.Errorf("catalog: scent rows: generation: %w", err)
	}
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM nodes").Scan(&nodes); err != nil {
		return 0, 0, fmt.Errorf("catalog: scent rows: count: %w", err)
	}
	rows, err := tx.QueryContext(ctx, scentRowsSQL(c.cols["nodes"]))
	if err != nil {
		return 0, 0, fmt.Errorf("catalog: scent rows: %w", err)
	}
	defer rows.Close()
	var r ScentRow
	for rows.Next() {
		if err := rows.Scan(&r.RowID, &r.Title, &r.Aliases, &r.Tags, &r.Summary,
			&r.Node, &r.ID, &r.Kind, &r.Type, &r.Created, &r.Updated); err != nil {
			return 0, 0, fmt.Errorf("catalog: scent rows: %w", err)
		}
		if err := fn(&r); err != nil {
			return 0, 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("catalog: scent rows: %w", err)
	}
	return gen, nodes, nil
}

// scentRowsSQL reads the index rows with their node columns; a node
// column the file lacks reads as its default.
func scentRowsSQL(have map[string]bool) string {
	decl := map[string]string{}
	for _, col := range nodesTable.columns {
		decl[col.name] = col.decl
	}
	var parts []string
	for _, name := range []string{"kind", "type", "created", "updated"} {
		expr := defaultOf(decl[name])
		if have[name] {
			expr = "n." + name
		}
		parts = append(parts, "coalesce(CAST("+expr+" AS TEXT), '')")
	}
	return "SELECT f.rowid, coalesce(f.title, ''), coalesce(f.aliases, ''), coalesce(f.tags, ''), coalesce(f.summary, ''), " +
		"n.rowid IS NOT NULL, coalesce(n.id, ''), " + strings.Join(parts, ", ") +
		" FROM nodes_fts AS f LEFT JOIN nodes AS n ON n.rowid = f.rowid ORDER BY f.rowid"
}

// ScentTracked reports whether an in-memory copy of the metadata index
// can stand in for it: nodes_fts is declared exactly as this package
// declares it (columns and tokenizer) and the catalog keeps its
// generation, so a copy can tell when it is stale. A catalog written by
// another implementation may declare either differently; its index is
// then searched where it is.
func (c *Catalog) ScentTracked(ctx context.Context) (bool, error) {
	return scentTracked(ctx, c.reader, c.cols)
}

func scentTracked(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, cols map[string]map[string]bool) (bool, error) {
	if len(cols["catalog_meta"]) == 0 || len(cols["nodes"]) == 0 {
		return false, nil
	}
	var ddl string
	err := q.QueryRowContext(ctx, "SELECT coalesce(sql, '') FROM sqlite_master WHERE type = 'table' AND name = 'nodes_fts'").Scan(&ddl)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return normalDDL(ddl) == normalDDL(ftsDDL), nil
}

// normalDDL folds the spellings SQLite may store a declaration under:
// "IF NOT EXISTS" dropped, white space collapsed, case folded.
func normalDDL(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Replace(s, " IF NOT EXISTS ", " ", 1)
	return strings.ToLower(s)
}
