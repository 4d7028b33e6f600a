// SPDX-License-Identifier: Apache-2.0

// Package migration brings the Station's tables in the registry file up
// to date additively: a table is created when it is missing, a column
// added after the table first shipped is added when the file lacks it,
// and indexes are created last, since they may name added columns. No
// row is ever touched, so a registry written by an older Station or by
// the reference keeps its data and opens in either.
//
// Each Station package (registry, audit, webhooks, shares) owns its
// tables and describes them as a [Plan]; this package owns only the
// mechanism, so the packages agree on how a file is migrated.
package migration

import (
	"context"
	"database/sql"
	"fmt"
)

// Column is one column added to a table after the table first shipped.
type Column struct {
	Table string
	Name  string
	Decl  string // the type and constraints, as in ALTER TABLE ADD COLUMN
}

// Plan is what one package migrates: statements run in order, each of
// which may hold several SQL statements.
type Plan struct {
	// Create holds CREATE TABLE IF NOT EXISTS statements: the tables in
	// their current shape.
	Create []string
	// Columns are added, in this order, to a table that lacks them.
	Columns []Column
	// Indexes run after the columns (CREATE INDEX IF NOT EXISTS).
	Indexes []string
}

// Run applies p in one transaction of db and commits it.
func Run(ctx context.Context, db *sql.DB, p Plan) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := p.Apply(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Apply applies p in tx, for a caller that does more in the same
// transaction (the registry's data repairs).
func (p Plan) Apply(ctx context.Context, tx *sql.Tx) error {
	if err := execAll(ctx, tx, p.Create); err != nil {
		return err
	}
	if err := addColumns(ctx, tx, p.Columns); err != nil {
		return err
	}
	return execAll(ctx, tx, p.Indexes)
}

func execAll(ctx context.Context, tx *sql.Tx, stmts []string) error {
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// addColumns adds the columns each table lacks, reading a table's
// columns once.
func addColumns(ctx context.Context, tx *sql.Tx, cols []Column) error {
	have := map[string]map[string]bool{}
	for _, c := range cols {
		if have[c.Table] == nil {
			names, err := tableColumns(ctx, tx, c.Table)
			if err != nil {
				return err
			}
			have[c.Table] = names
		}
		if have[c.Table][c.Name] {
			continue
		}
		// ALTER TABLE takes no parameters; the names are constants of the
		// calling package, never input.
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+c.Table+" ADD COLUMN "+c.Name+" "+c.Decl); err != nil {
			return fmt.Errorf("add %s.%s: %w", c.Table, c.Name, err)
		}
		have[c.Table][c.Name] = true
	}
	return nil
}

// tableColumns names the columns of table as they stand in tx; empty for
// a table that does not exist.
func tableColumns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}
