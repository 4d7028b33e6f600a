// SPDX-License-Identifier: Apache-2.0

package registry_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/scrypt"

	"github.com/monkeyllm/vine/adapters/station/registry"
)

// referencePhaseA is a registry as the reference laid out its first
// tables, before the columns added later (no passwords, owner, key
// lifecycle or allow/deny/tables), with data in it.
const referencePhaseA = `
CREATE TABLE principals (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'service', created TEXT NOT NULL);
CREATE TABLE api_keys (key_hash TEXT PRIMARY KEY, principal TEXT NOT NULL REFERENCES principals(id), label TEXT, created TEXT NOT NULL);
CREATE TABLE grants (principal TEXT NOT NULL REFERENCES principals(id), forest TEXT NOT NULL, caps TEXT NOT NULL, PRIMARY KEY (principal, forest));
CREATE TABLE audit (ts TEXT NOT NULL, principal TEXT NOT NULL, forest TEXT NOT NULL, primitive TEXT NOT NULL, args TEXT NOT NULL, result TEXT NOT NULL, size INTEGER NOT NULL DEFAULT 0, commit_sha TEXT);
INSERT INTO principals VALUES ('svc', 'service', '2026-01-01T00:00:00+00:00');
INSERT INTO api_keys VALUES ('%s', 'svc', 'old', '2026-01-01T00:00:00+00:00');
INSERT INTO grants VALUES ('svc', 'acme', 'query,read');
`

// referenceV83 is a registry of the reference's latest layout, stamped at
// the given user_version, with a Python scrypt password, a masked pair
// key and a grant narrowed to read.
const referenceV83 = `
CREATE TABLE principals (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'service', created TEXT NOT NULL,
  pw_salt TEXT, pw_hash TEXT, owner INTEGER NOT NULL DEFAULT 0, email TEXT);
CREATE TABLE api_keys (key_hash TEXT PRIMARY KEY, principal TEXT NOT NULL REFERENCES principals(id), label TEXT,
  created TEXT NOT NULL, prefix TEXT, kind TEXT NOT NULL DEFAULT 'api', expires_at TEXT, revoked_at TEXT,
  last_used_at TEXT, caps TEXT);
CREATE TABLE grants (principal TEXT NOT NULL REFERENCES principals(id), forest TEXT NOT NULL, caps TEXT NOT NULL,
  allow TEXT NOT NULL DEFAULT '[""]', deny TEXT NOT NULL DEFAULT '[]', tables TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (principal, forest));
CREATE TABLE model_bindings (forest TEXT NOT NULL, role TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
  max_tokens INTEGER NOT NULL DEFAULT 1500, reasoning TEXT NOT NULL DEFAULT 'off', PRIMARY KEY (forest, role));
CREATE TABLE forest_settings (forest TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (forest, key));
CREATE UNIQUE INDEX idx_single_owner ON principals(owner) WHERE owner = 1;
INSERT INTO principals VALUES ('ada', 'user', '2026-01-01T00:00:00+00:00', '%s', '%s', 1, 'ada@example.org');
INSERT INTO api_keys VALUES ('%s', 'ada', 'clipper', '2026-01-01T00:00:00+00:00', 'mk_pair00', 'api',
  '2027-12-01T00:00:00+00:00', NULL, NULL, '["ingest", "read"]');
INSERT INTO grants VALUES ('ada', 'acme', 'read', '["sales"]', '[]', '{"sales/q1": ["orders"]}');
INSERT INTO model_bindings VALUES ('acme', 'answer', 'p', 'm', 600, 'off');
INSERT INTO forest_settings VALUES ('acme', 'gauntlet', 'false');
`

func sqlDigest(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }

// layout writes a registry file from statements, stamped at version.
func layout(t *testing.T, stmts string, version int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "station.db")
	db, err := driver.Open("file:" + filepath.ToSlash(path))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(stmts)
	require.NoError(t, err)
	_, err = db.Exec("PRAGMA user_version = " + string(rune('0'+version)))
	require.NoError(t, err)
	return path
}

func one[T any](t *testing.T, db *sql.DB, q string, args ...any) T {
	t.Helper()
	var v T
	require.NoError(t, db.QueryRow(q, args...).Scan(&v))
	return v
}

// migrationCase is a registry file to open and what must hold of it.
type migrationCase struct {
	name         string
	file         func(t *testing.T) string
	repairedFrom int
	check        func(t *testing.T, r *registry.Registry)
}

func migrationCases(t *testing.T) []migrationCase {
	ctx := context.Background()
	oldSecret := "mk_old-reference-key"
	pairSecret := "mk_pair-reference-key"
	salt := "00112233445566778899aabbccddeeff"
	rawSalt, _ := hex.DecodeString(salt)
	sum, err := scrypt.Key([]byte("a python password"), rawSalt, 1<<14, 8, 1, 32)
	require.NoError(t, err)
	pyHash := hex.EncodeToString(sum)
	return []migrationCase{
		{"fresh", func(t *testing.T) string { return filepath.Join(t.TempDir(), "sub", "station.db") }, 0,
			func(t *testing.T, r *registry.Registry) {
				open, err := r.SetupOpen(ctx)
				require.NoError(t, err)
				assert.True(t, open)
				assert.Equal(t, "wal", one[string](t, r.DB(), "PRAGMA journal_mode"))
				assert.Equal(t, 5000, one[int](t, r.DB(), "PRAGMA busy_timeout"))
			}},
		{"reference phase A: columns added, read gains answer, the old key expires a year after it was made", func(t *testing.T) string {
			return layout(t, fmtSQL(referencePhaseA, sqlDigest(oldSecret)), 0)
		}, 0, func(t *testing.T, r *registry.Registry) {
			g, err := r.Grants(ctx, "svc")
			require.NoError(t, err)
			require.Len(t, g, 1)
			assert.Equal(t, caps(an, qu, rd), g[0].Caps, "v0.82 repair")
			assert.Equal(t, []string{""}, g[0].Allow, "the migrated default is the whole forest")
			assert.Equal(t, "answer,query,read", one[string](t, r.DB(), "SELECT caps FROM grants"), "stored sorted")
			k, err := r.ListKeys(ctx, nil)
			require.NoError(t, err)
			require.Len(t, k, 1)
			assert.Equal(t, "expired", k[0].Status, "created 2026-01-01 with no expiry: a year later is past on the test clock")
			_, err = r.DB().Exec("SELECT error_code, via FROM audit")
			assert.Error(t, err, "the audit table is not this package's to migrate")
		}},
		{"reference v0.83 before the v0.82 repair: python password verifies, mask gains answer", func(t *testing.T) string {
			return layout(t, fmtSQL(referenceV83, salt, pyHash, sqlDigest(pairSecret)), 1)
		}, 1, func(t *testing.T, r *registry.Registry) {
			ok, err := r.VerifyPassword(ctx, "ada", "a python password")
			require.NoError(t, err)
			assert.True(t, ok, "a bare hex hash is the reference's scrypt")
			p, ok := r.Resolve(ctx, pairSecret)
			require.True(t, ok, "+00:00 times read as UTC")
			assert.Equal(t, caps(an, in, rd), p.Mask)
			assert.True(t, p.Owner)
			assert.False(t, p.IsOwner(), "a mask without admin hides the owner bit")
			pol, ok := p.Policy("acme")
			require.True(t, ok)
			assert.Equal(t, []string{"sales/"}, pol.Allow, "reference prefixes read normalised")
			assert.Equal(t, []string{"orders"}, pol.Datasets["sales/q1"].Tables)
			assert.Equal(t, caps(rd, an), pol.Caps, "the grant gained answer")
			assert.Equal(t, 600, one[int](t, r.DB(), "SELECT max_tokens FROM model_bindings"),
				"the v0.63 binding repair is the model_bindings owner's")
			var gauntlet bool
			found, err := r.Setting(ctx, "acme", "gauntlet", &gauntlet)
			require.NoError(t, err)
			assert.True(t, found)
			assert.False(t, gauntlet)
		}},
		{"reference already repaired: a grant narrowed to read stays read", func(t *testing.T) string {
			return layout(t, fmtSQL(referenceV83, salt, pyHash, sqlDigest(pairSecret)), 3)
		}, 3, func(t *testing.T, r *registry.Registry) {
			assert.Equal(t, "read", one[string](t, r.DB(), "SELECT caps FROM grants"))
			assert.Equal(t, `["ingest", "read"]`, one[string](t, r.DB(), "SELECT caps FROM api_keys"))
		}},
	}
}

func TestMigrations(t *testing.T) {
	for _, tt := range migrationCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.file(t)
			c := newClock()
			c.t = c.t.AddDate(1, 0, 0) // 2027-03-01
			opt := &registry.Options{Now: c.Now}
			r := openAt(t, path, opt)
			assert.Equal(t, tt.repairedFrom, r.RepairedFrom())
			assert.Equal(t, 3, one[int](t, r.DB(), "PRAGMA user_version"))
			assert.Equal(t, 1, one[int](t, r.DB(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'idx_single_owner'"))
			tt.check(t, r)
			require.NoError(t, r.Close())

			again := openAt(t, path, opt) // reopening changes nothing and repairs nothing twice
			assert.Equal(t, 3, again.RepairedFrom())
			tt.check(t, again)
		})
	}
}

func TestOneOwnerIsStructural(t *testing.T) {
	r, _ := open(t, nil)
	_, err := r.DB().Exec("INSERT INTO principals (id, created, owner) VALUES ('a', 'x', 1)")
	require.NoError(t, err)
	_, err = r.DB().Exec("INSERT INTO principals (id, created, owner) VALUES ('b', 'x', 1)")
	require.Error(t, err, "the unique owner index refuses a second owner, whatever writes it")
}
