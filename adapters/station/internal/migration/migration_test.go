// SPDX-License-Identifier: Apache-2.0

package migration

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.ToSlash(filepath.Join(t.TempDir(), "station.db")))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

var plan = Plan{
	Create: []string{`CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, a TEXT, b INTEGER NOT NULL DEFAULT 7)`},
	Columns: []Column{
		{Table: "t", Name: "a", Decl: "TEXT"},
		{Table: "t", Name: "b", Decl: "INTEGER NOT NULL DEFAULT 7"},
	},
	Indexes: []string{`CREATE INDEX IF NOT EXISTS t_b ON t(b)`},
}

func columnsOf(t *testing.T, db *sql.DB) map[string]bool {
	t.Helper()
	tx, err := db.Begin()
	require.NoError(t, err)
	defer tx.Rollback()
	cols, err := tableColumns(context.Background(), tx, "t")
	require.NoError(t, err)
	return cols
}

// An older file gains the columns it lacks, keeps its rows, and gets the
// index that names an added column; a second run changes nothing.
func TestRunAddsWhatAnOlderFileLacks(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	_, err := db.Exec(`CREATE TABLE t (id TEXT PRIMARY KEY); INSERT INTO t VALUES ('x')`)
	require.NoError(t, err)

	require.NoError(t, Run(ctx, db, plan))
	require.NoError(t, Run(ctx, db, plan))

	assert.Equal(t, map[string]bool{"id": true, "a": true, "b": true}, columnsOf(t, db))
	var id string
	var a sql.NullString
	var b int
	require.NoError(t, db.QueryRow(`SELECT id, a, b FROM t`).Scan(&id, &a, &b))
	assert.Equal(t, "x", id)
	assert.False(t, a.Valid, "an added column stays NULL")
	assert.Equal(t, 7, b, "an added column takes its default")
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 't_b'`).Scan(&n))
	assert.Equal(t, 1, n)
}

// A plan that fails part-way leaves the file as it was: Run is one
// transaction.
func TestRunFailureLeavesTheFile(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	_, err := db.Exec(`CREATE TABLE t (id TEXT PRIMARY KEY)`)
	require.NoError(t, err)
	bad := plan
	bad.Columns = append(append([]Column(nil), plan.Columns...), Column{Table: "t", Name: "c", Decl: "NOT A TYPE ("})

	err = Run(ctx, db, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "add t.c")
	assert.Equal(t, map[string]bool{"id": true}, columnsOf(t, db))
}
