// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// AdjacencyNode is a node row as a reader of neighbours needs it: what a
// neighbour shows of itself and whose child it is ("" for the root).
type AdjacencyNode struct {
	ID      string
	Type    string
	Summary string
	Parent  string
}

// Adjacency reads, in one read snapshot, what an in-memory copy of the
// forest's adjacency needs: node calls fn with every node row in id
// order, then edge with every edge in declared (rowid) order. It returns
// the catalog generation the rows are of. A catalog that keeps no
// generation is refused: a copy of it could not tell it is stale. A
// callback's error stops the read and is returned as is.
func (c *Catalog) Adjacency(ctx context.Context, node func(*AdjacencyNode) error, edge func(src, rel, dst string) error) (gen int64, err error) {
	if len(c.cols["catalog_meta"]) == 0 || !c.cols["nodes"]["type"] || !c.cols["nodes"]["summary"] || !c.cols["nodes"]["parent"] {
		return 0, errors.New("catalog: adjacency: this catalog keeps no generation or lacks node columns")
	}
	tx, err := c.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("catalog: adjacency: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT coalesce((SELECT value FROM catalog_meta WHERE key = 'generation'), 0)").Scan(&gen); err != nil {
		return 0, fmt.Errorf("catalog: adjacency: generation: %w", err)
	}
	var n AdjacencyNode
	err = eachRow(ctx, tx, "SELECT id, coalesce(type, ''), coalesce(summary, ''), coalesce(parent, '') FROM nodes ORDER BY id",
		func(rows *sql.Rows) error {
			if err := rows.Scan(&n.ID, &n.Type, &n.Summary, &n.Parent); err != nil {
				return fmt.Errorf("catalog: adjacency nodes: %w", err)
			}
			return node(&n)
		})
	if err != nil || len(c.cols["edges"]) == 0 {
		return gen, err
	}
	var src, rel, dst string
	err = eachRow(ctx, tx, "SELECT src, rel, dst FROM edges ORDER BY rowid", func(rows *sql.Rows) error {
		if err := rows.Scan(&src, &rel, &dst); err != nil {
			return fmt.Errorf("catalog: adjacency edges: %w", err)
		}
		return edge(src, rel, dst)
	})
	return gen, err
}
