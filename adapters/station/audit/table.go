// SPDX-License-Identifier: Apache-2.0

package audit

import (
	"context"
	"database/sql"

	"github.com/monkeyllm/vine/adapters/station/internal/migration"
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
var addedColumns = []migration.Column{
	{Table: "audit", Name: "error_code", Decl: "TEXT"},
	{Table: "audit", Name: "ms", Decl: "REAL"},
	{Table: "audit", Name: "model_ms", Decl: "REAL"},
	{Table: "audit", Name: "cost_usd", Decl: "REAL"},
	{Table: "audit", Name: "via", Decl: "TEXT"},
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
	return migration.Run(ctx, db, migration.Plan{Create: []string{createTable}, Columns: addedColumns, Indexes: indexes})
}
