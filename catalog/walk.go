// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Walk reads every node row and every edge in one read snapshot, for
// whole-forest projections (the map routes of spec 07 §6): node calls
// nodes with each row's columns in id order (no Edges, no MovedFrom),
// then edge calls edges with each edge in declared order. A callback's
// error stops the walk and is returned as is. Either callback may be
// nil to skip that table.
func (c *Catalog) Walk(ctx context.Context, node func(Record) error, edge func(src string, e Edge) error) error {
	tx, err := c.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("catalog: walk: %w", err)
	}
	defer tx.Rollback()
	if node != nil {
		q := "SELECT " + selectList(nodesTable, getColumns, c.cols["nodes"]) + " FROM nodes ORDER BY id"
		if err := eachRow(ctx, tx, q, func(rows *sql.Rows) error {
			r, err := scanRecord(rows)
			if err != nil {
				return fmt.Errorf("catalog: walk nodes: %w", err)
			}
			return node(r)
		}); err != nil {
			return err
		}
	}
	if edge != nil && len(c.cols["edges"]) > 0 {
		q := "SELECT src, rel, dst, " + selectList(edgesTable, []string{"confidence"}, c.cols["edges"]) +
			" FROM edges ORDER BY rowid"
		if err := eachRow(ctx, tx, q, func(rows *sql.Rows) error {
			var src string
			var e Edge
			var conf sql.NullFloat64
			if err := rows.Scan(&src, &e.Rel, &e.Dst, &conf); err != nil {
				return fmt.Errorf("catalog: walk edges: %w", err)
			}
			e.Confidence = 1.0 // a NULL confidence reads as the default (C.6.1)
			if conf.Valid {
				e.Confidence = conf.Float64
			}
			return edge(src, e)
		}); err != nil {
			return err
		}
	}
	return nil
}

// eachRow runs q in tx and calls fn for every row; fn's error is
// returned unwrapped, the driver's are wrapped.
func eachRow(ctx context.Context, tx *sql.Tx, q string, fn func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("catalog: walk: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("catalog: walk: %w", err)
	}
	return nil
}
