// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/adapters/station/internal/migration"
)

// schema creates this package's tables with the reference's table and
// column names (spec 09 §2), so a registry written by either opens in the
// other. Columns added since the first schema are listed again in
// columns, for a file that predates them.
const schema = `
CREATE TABLE IF NOT EXISTS principals (
    id      TEXT PRIMARY KEY,
    kind    TEXT NOT NULL DEFAULT 'service',
    created TEXT NOT NULL,
    pw_salt TEXT,
    pw_hash TEXT,
    owner   INTEGER NOT NULL DEFAULT 0,
    email   TEXT
);
CREATE TABLE IF NOT EXISTS api_keys (
    key_hash     TEXT PRIMARY KEY,
    principal    TEXT NOT NULL REFERENCES principals(id),
    label        TEXT,
    created      TEXT NOT NULL,
    prefix       TEXT,
    kind         TEXT NOT NULL DEFAULT 'api',
    expires_at   TEXT,
    revoked_at   TEXT,
    last_used_at TEXT,
    caps         TEXT
);
CREATE TABLE IF NOT EXISTS grants (
    principal TEXT NOT NULL REFERENCES principals(id),
    forest    TEXT NOT NULL,
    caps      TEXT NOT NULL,
    allow     TEXT NOT NULL DEFAULT '[""]',
    deny      TEXT NOT NULL DEFAULT '[]',
    tables    TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (principal, forest)
);
CREATE TABLE IF NOT EXISTS forest_settings (
    forest TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (forest, key)
);
`

// columns are the additive migrations: every column added after a table
// first shipped, by table, in the order they are added.
var columns = []migration.Column{
	{Table: "principals", Name: "pw_salt", Decl: "TEXT"},
	{Table: "principals", Name: "pw_hash", Decl: "TEXT"},
	{Table: "principals", Name: "owner", Decl: "INTEGER NOT NULL DEFAULT 0"},
	{Table: "principals", Name: "email", Decl: "TEXT"},
	{Table: "api_keys", Name: "prefix", Decl: "TEXT"},
	{Table: "api_keys", Name: "kind", Decl: "TEXT NOT NULL DEFAULT 'api'"},
	{Table: "api_keys", Name: "expires_at", Decl: "TEXT"},
	{Table: "api_keys", Name: "revoked_at", Decl: "TEXT"},
	{Table: "api_keys", Name: "last_used_at", Decl: "TEXT"},
	{Table: "api_keys", Name: "caps", Decl: "TEXT"},
	{Table: "grants", Name: "allow", Decl: `TEXT NOT NULL DEFAULT '[""]'`},
	{Table: "grants", Name: "deny", Decl: "TEXT NOT NULL DEFAULT '[]'"},
	{Table: "grants", Name: "tables", Decl: "TEXT NOT NULL DEFAULT '{}'"},
}

// indexes run after the migrations, since they name migrated columns.
// idx_single_owner makes "exactly one owner" a property of the file, not
// of the code path that writes it.
const indexes = `
CREATE UNIQUE INDEX IF NOT EXISTS idx_single_owner ON principals(owner) WHERE owner = 1;
CREATE INDEX IF NOT EXISTS idx_api_keys_principal ON api_keys(principal);
`

// repairs are the one-time data repairs, in the reference's order; the
// file's PRAGMA user_version counts how many ran. Never edit one that has
// shipped, only append: a registry that ran it will not run it again. A
// nil repair belongs to a table another package owns (see RepairedFrom).
var repairs = []func(ctx context.Context, tx *sql.Tx) error{
	nil,              // 1, v0.63: answer bindings max_tokens 600 → 1500 (model_bindings)
	repairGrantRead,  // 2, v0.82: answer wherever a grant carries read
	repairMaskedRead, // 3, v0.82: answer wherever a key mask carries read
}

// migrate brings the file's schema and data up to date in one
// transaction and returns the repair stamp it found.
func migrate(ctx context.Context, db *sql.DB) (found int, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	plan := migration.Plan{Create: []string{schema}, Columns: columns, Indexes: []string{indexes}}
	if err := plan.Apply(ctx, tx); err != nil {
		return 0, err
	}
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&found); err != nil {
		return 0, err
	}
	for i := found; i < len(repairs); i++ {
		if repairs[i] == nil {
			continue
		}
		if err := repairs[i](ctx, tx); err != nil {
			return 0, fmt.Errorf("data repair %d: %w", i+1, err)
		}
	}
	if found < len(repairs) {
		// PRAGMA takes no parameter; the value is a constant of ours.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(repairs))); err != nil {
			return 0, err
		}
	}
	return found, tx.Commit()
}

// repairGrantRead adds answer to every grant carrying read (v0.82: answer
// became its own capability, and read meant it until then). Caps stay
// comma-joined and sorted.
func repairGrantRead(ctx context.Context, tx *sql.Tx) error {
	return rewriteCaps(ctx, tx, "SELECT rowid, caps FROM grants", "UPDATE grants SET caps = ? WHERE rowid = ?",
		func(s string) []string { return strings.Split(s, ",") },
		func(c []string) string { return strings.Join(c, ",") })
}

// repairMaskedRead adds answer to every stored key mask carrying read,
// kept a sorted JSON list. An unmasked key (NULL) needs nothing.
func repairMaskedRead(ctx context.Context, tx *sql.Tx) error {
	return rewriteCaps(ctx, tx, "SELECT rowid, caps FROM api_keys WHERE caps IS NOT NULL AND caps != ''",
		"UPDATE api_keys SET caps = ? WHERE rowid = ?",
		func(s string) []string {
			var l []string
			if json.Unmarshal([]byte(s), &l) != nil {
				return nil // unreadable: Resolve fails it closed; not ours to guess
			}
			return l
		},
		func(c []string) string { b, _ := json.Marshal(c); return string(b) })
}

// rewriteCaps adds answer to each row's caps that hold read and lack it.
func rewriteCaps(ctx context.Context, tx *sql.Tx, query, update string,
	split func(string) []string, join func([]string) string) error {
	type change struct {
		rowid int64
		caps  string
	}
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	var todo []change
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.rowid, &c.caps); err != nil {
			rows.Close()
			return err
		}
		caps := split(c.caps)
		if slices.Contains(caps, "read") && !slices.Contains(caps, "answer") {
			caps = append(caps, "answer")
			slices.Sort(caps)
			todo = append(todo, change{c.rowid, join(caps)})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range todo {
		if _, err := tx.ExecContext(ctx, update, c.caps, c.rowid); err != nil {
			return err
		}
	}
	return nil
}
