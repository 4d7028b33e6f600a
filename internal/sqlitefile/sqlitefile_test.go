// SPDX-License-Identifier: Apache-2.0

package sqlitefile_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/sqlitefile"
)

func TestURI(t *testing.T) {
	tests := []struct {
		path, query, want string
	}{
		{"/a/b.db", "", "file:/a/b.db"},
		{"/a/b.db", "mode=ro", "file:/a/b.db?mode=ro"},
		{"/we?ird#dir%/x.db", "", "file:/we%3Fird%23dir%25/x.db"},
		{"C:/x.db", "", "file:/C:/x.db"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sqlitefile.URI(tt.path, tt.query), tt.path)
	}
}

func TestOpenSetsWAL(t *testing.T) {
	db, err := sqlitefile.Open(filepath.Join(t.TempDir(), "s.db"), "", nil)
	require.NoError(t, err)
	defer db.Close()
	var mode string
	require.NoError(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	assert.Equal(t, "wal", mode)
	var sync int
	require.NoError(t, db.QueryRow(`PRAGMA synchronous`).Scan(&sync))
	assert.Equal(t, 1, sync, "synchronous=NORMAL")
}

// TestManyOpenersWhileWriting opens and closes the file from many
// connections at once while another writes and checkpoints: every open
// succeeds. (Setting WAL through a DSN pragma failed here now and then
// with "database is locked", which the busy timeout did not cover.)
func TestManyOpenersWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	first, err := sqlitefile.Open(path, "", nil)
	require.NoError(t, err)
	_, err = first.Exec(`CREATE TABLE t(x)`)
	require.NoError(t, err)
	require.NoError(t, first.Close()) // the last close drops the WAL

	ctx, cancel := context.WithCancel(context.Background())
	var writer sync.WaitGroup
	writer.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			db, err := sqlitefile.Open(path, "", nil)
			if !assert.NoError(t, err) {
				return
			}
			_, err = db.Exec(`INSERT INTO t VALUES (?)`, i)
			assert.NoError(t, err)
			_, err = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
			assert.NoError(t, err)
			assert.NoError(t, db.Close())
		}
	})
	var openers sync.WaitGroup
	for g := range 6 {
		openers.Go(func() {
			for i := range 40 {
				db, err := sqlitefile.Open(path, "", nil)
				if !assert.NoError(t, err, "opener %d, round %d", g, i) {
					return
				}
				assert.NoError(t, count(db), "opener %d, round %d", g, i)
				assert.NoError(t, db.Close())
			}
		})
	}
	openers.Wait()
	cancel()
	writer.Wait()
}

func count(db *sql.DB) error {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
		return fmt.Errorf("count: %w", err)
	}
	return nil
}
