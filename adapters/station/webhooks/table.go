// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"database/sql"

	"github.com/monkeyllm/vine/adapters/station/internal/migration"
)

// The tables of 09 §2 under the reference's names. suspended holds the
// reason ("failing", "authority") or NULL; a registry of the reference
// may hold 0/1 there, read as not suspended / failing.
var tables = []string{
	`CREATE TABLE IF NOT EXISTS webhooks (
		id               TEXT PRIMARY KEY,
		scope            TEXT NOT NULL,
		owner            TEXT NOT NULL,
		label            TEXT NOT NULL DEFAULT '',
		url              TEXT NOT NULL,
		secret           TEXT NOT NULL,
		events           TEXT NOT NULL DEFAULT '[]',
		branches         TEXT NOT NULL DEFAULT '[]',
		headers          TEXT NOT NULL DEFAULT '{}',
		include_metadata INTEGER NOT NULL DEFAULT 0,
		enabled          INTEGER NOT NULL DEFAULT 1,
		suspended        TEXT,
		fail_streak      INTEGER NOT NULL DEFAULT 0,
		created          TEXT NOT NULL,
		last_status      INTEGER,
		last_at          TEXT
	)`,
	`CREATE TABLE IF NOT EXISTS webhook_deliveries (
		webhook  TEXT NOT NULL,
		delivery TEXT NOT NULL,
		event    TEXT NOT NULL,
		attempt  INTEGER NOT NULL,
		ts       TEXT NOT NULL,
		status   INTEGER,
		ms       REAL,
		error    TEXT,
		response TEXT,
		body     TEXT
	)`,
}

// indexes serve a webhook's delivery log.
var indexes = []string{
	`CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook ON webhook_deliveries(webhook, delivery)`,
}

// migrate creates the tables and index in one transaction: additive
// only.
func migrate(ctx context.Context, db *sql.DB) error {
	return migration.Run(ctx, db, migration.Plan{Create: tables, Indexes: indexes})
}
