// SPDX-License-Identifier: Apache-2.0

package shares

import (
	"context"
	"database/sql"

	"github.com/monkeyllm/vine/adapters/station/internal/migration"
)

// createTable is the shares table of spec 09 §2 as the reference named
// it. The token is kept only as its digest; expires and revoked_at are
// ISO-8601 UTC to the second, so they compare as text.
const createTable = `CREATE TABLE IF NOT EXISTS shares (
	id         TEXT PRIMARY KEY,
	token_hash TEXT NOT NULL UNIQUE,
	forest     TEXT NOT NULL,
	node       TEXT NOT NULL,
	issuer     TEXT NOT NULL,
	created    TEXT NOT NULL,
	expires    TEXT NOT NULL,
	revoked_at TEXT
)`

// indexes serve the listing (a forest's shares, an issuer's own).
var indexes = []string{
	`CREATE INDEX IF NOT EXISTS shares_forest ON shares(forest, issuer)`,
}

// migrate creates the table and its indexes in one transaction:
// additive only, never a row touched.
func migrate(ctx context.Context, db *sql.DB) error {
	return migration.Run(ctx, db, migration.Plan{Create: []string{createTable}, Indexes: indexes})
}
