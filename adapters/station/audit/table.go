// SPDX-License-Identifier: Apache-2.0

package audit

import (
	"context"
	"database/sql"
	"fmt"
)

// createTable is the audit table of spec 09 §2 as the reference named
// it. Columns past commit_sha came later (v0.73 error_code, ms,
// model_ms, cost_usd; v0.80 via) and are nullable: absent stays NULL.
const createTable = `CREATE TABLE IF NOT EXISTS audit (
	ts         TEXT NOT NULL,
	principal  TEXT NOT NULL,
	forest     TEXT NOT NULL,
	primitive  TEXT NOT NULL,
	args       TEXT,
	result     TEXT NOT NULL,
	size       INTEGER,
	commit_sha TEXT
)`

// addedColumns are the columns a registry of an older shape lacks, added
// in this order by ALTER TABLE.
var addedColumns = []struct{ name, decl string }{
	{"error_code", "TEXT"},
	{"ms", "REAL"},
	{"model_ms", "REAL"},
	{"cost_usd", "REAL"},
	{"via", "TEXT"},
}

// indexes serve the scope predicate and the filters: time for the page,
// principal and forest for their filters, (forest, ts) for a forest
// administrator's page (§18.3).
var indexes = []string{
	`CREATE INDEX IF NOT EXISTS audit_ts ON audit(ts)`,
	`CREATE INDEX IF NOT EXISTS audit_principal ON audit(principal)`,
	`CREATE INDEX IF NOT EXISTS audit_forest ON audit(forest)`,
	`CREATE INDEX IF NOT EXISTS audit_forest_ts ON audit(forest, ts)`,
}

// migrate creates the table, adds the columns it lacks and the indexes,
// in one transaction: additive only, never a row touched.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, createTable); err != nil {
		return err
	}
	have, err := columns(ctx, tx)
	if err != nil {
		return err
	}
	for _, c := range addedColumns {
		if have[c.name] {
			continue
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("ALTER TABLE audit ADD COLUMN %s %s", c.name, c.decl)); err != nil {
			return err
		}
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// columns names the audit table's columns as they stand.
func columns(ctx context.Context, tx *sql.Tx) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info('audit')`)
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
