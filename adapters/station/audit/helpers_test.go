// SPDX-License-Identifier: Apache-2.0

package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/audit"
)

// dsn opens a registry file the way the Station does: WAL, a busy
// timeout, immediate transactions.
func dsn(file string) string {
	return "file:" + filepath.ToSlash(file) + "?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)&_txlock=immediate"
}

// openDB opens a fresh registry file.
func openDB(t testing.TB) (*sql.DB, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "station.db")
	db, err := sql.Open("sqlite3", dsn(file))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db, file
}

// newLog opens a Log over a fresh file, closed at cleanup.
func newLog(t testing.TB, opts *audit.Options) (*audit.Log, *sql.DB, string) {
	t.Helper()
	db, file := openDB(t)
	l, err := audit.New(context.Background(), db, opts)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l, db, file
}

func count(t testing.TB, db *sql.DB) int64 {
	t.Helper()
	var n int64
	require.NoError(t, db.QueryRow(`SELECT COUNT(*) FROM audit`).Scan(&n))
	return n
}

func ptr[T any](v T) *T { return &v }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
