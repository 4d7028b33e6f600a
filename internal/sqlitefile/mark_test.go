// SPDX-License-Identifier: Apache-2.0

package sqlitefile_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/sqlitefile"
)

// counterFile is a shared file with one counter row, opened by one handle.
func counterFile(t *testing.T) (path string, db *sql.DB) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "s.db")
	db = openShared(t, path)
	_, err := db.Exec(`CREATE TABLE c(n INTEGER NOT NULL); INSERT INTO c VALUES (0)`)
	require.NoError(t, err)
	return path, db
}

func openShared(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sqlitefile.Open(path, "", nil)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func skipWithoutMarks(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("a watch vouches only where it can see its wal-index unlinked")
	}
}

func readCounter(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT n FROM c`).Scan(&n))
	return n
}

// TestMarkChangesWithEveryCommit: two handles on one file; the mark holds
// while nobody writes, reads included, and moves with each commit of
// either handle, so a fact cached at the old mark is never served after.
func TestMarkChangesWithEveryCommit(t *testing.T) {
	skipWithoutMarks(t)
	path, a := counterFile(t)
	b := openShared(t, path)
	w := sqlitefile.NewWatch(path)
	defer w.Close()

	m0, ok := w.Mark()
	require.True(t, ok, "a file in WAL with a live wal-index is vouched for")
	readCounter(t, a)
	readCounter(t, b)
	m1, ok := w.Mark()
	require.True(t, ok)
	assert.Equal(t, m0, m1, "reads leave the mark alone")

	seen := map[sqlitefile.Mark]bool{m0: true}
	for i, db := range []*sql.DB{a, b, a, b} {
		_, err := db.Exec(`UPDATE c SET n = n + 1`)
		require.NoError(t, err)
		m, ok := w.Mark()
		require.True(t, ok, "write %d", i)
		assert.False(t, seen[m], "write %d left a mark seen before", i)
		seen[m] = true
	}
	_, err := a.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	require.NoError(t, err)
	_, err = b.Exec(`UPDATE c SET n = n + 1`)
	require.NoError(t, err)
	m, ok := w.Mark()
	require.True(t, ok)
	assert.False(t, seen[m], "a commit into a restarted WAL leaves a new mark")
}

// TestMarkWithoutWALIndex: no -shm (no connection yet, an unreadable or
// short one) is never vouched for; a wal-index deleted by the last close
// and made anew by the next opener is read afresh.
func TestMarkWithoutWALIndex(t *testing.T) {
	skipWithoutMarks(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	w := sqlitefile.NewWatch(path)
	defer w.Close()
	_, ok := w.Mark()
	assert.False(t, ok, "no file yet")

	require.NoError(t, os.WriteFile(path+"-shm", []byte("short"), 0o644))
	_, ok = w.Mark()
	assert.False(t, ok, "a short -shm")
	require.NoError(t, os.Remove(path+"-shm"))
	w.Close()

	w = sqlitefile.NewWatch(path)
	defer w.Close()
	db, err := sqlitefile.Open(path, "", nil)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE c(n INTEGER NOT NULL); INSERT INTO c VALUES (0)`)
	require.NoError(t, err)
	before, ok := w.Mark()
	require.True(t, ok)
	require.NoError(t, db.Close()) // the last close deletes the wal-index
	_, err = os.Stat(path + "-shm")
	require.ErrorIs(t, err, os.ErrNotExist, "this test needs the last close to delete the -shm")
	_, ok = w.Mark()
	assert.False(t, ok, "a deleted wal-index is not vouched for")

	db = openShared(t, path)
	_, err = db.Exec(`UPDATE c SET n = 1`)
	require.NoError(t, err)
	after, ok := w.Mark()
	require.True(t, ok, "the new wal-index is opened")
	assert.NotEqual(t, before, after)
}

// TestMarkTornHeader: copies that differ, or a checksum that fails, are a
// writer at work and never a mark.
func TestMarkTornHeader(t *testing.T) {
	skipWithoutMarks(t)
	path, _ := counterFile(t)
	w := sqlitefile.NewWatch(path)
	defer w.Close()
	_, ok := w.Mark()
	require.True(t, ok)
	shm, err := os.ReadFile(path + "-shm")
	require.NoError(t, err)

	// The copy is a file of its own: the live wal-index is left alone.
	fake := filepath.Join(t.TempDir(), "f.db")
	tests := []struct {
		name string
		edit func(b []byte)
		ok   bool
	}{
		{"intact", func([]byte) {}, true},
		{"copies differ", func(b []byte) { b[16]++ }, false},
		{"both copies changed, checksum stale", func(b []byte) { b[16]++; b[48+16]++ }, false},
		{"not initialised", func(b []byte) { b[12], b[48+12] = 0, 0 }, false},
	}
	for _, tt := range tests {
		b := append([]byte(nil), shm...)
		tt.edit(b)
		require.NoError(t, os.WriteFile(fake+"-shm", b, 0o644))
		fw := sqlitefile.NewWatch(fake)
		_, ok := fw.Mark()
		fw.Close()
		assert.Equal(t, tt.ok, ok, tt.name)
	}
}

// TestMemoFreshUnderConcurrentWrites is the ordering a cache keyed by
// marks must keep: a reader never gets a value older than the last
// commit that finished before its read began, while another handle
// commits as fast as it can.
func TestMemoFreshUnderConcurrentWrites(t *testing.T) {
	skipWithoutMarks(t)
	path, writer := counterFile(t)
	reader := openShared(t, path)
	w := sqlitefile.NewWatch(path)
	defer w.Close()
	var memo sqlitefile.Memo[int]
	cached := func() int {
		m, ok := w.Mark()
		if ok {
			if n, hit := memo.Get(m); hit {
				return n
			}
		}
		n := readCounter(t, reader)
		if ok {
			memo.Put(m, n)
		}
		return n
	}

	var committed atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := 1; i <= 300; i++ {
			if _, err := writer.Exec(`UPDATE c SET n = ?`, i); !assert.NoError(t, err) {
				return
			}
			committed.Store(int64(i))
		}
	})
	hits := atomic.Int64{}
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				floor := committed.Load()
				if got := cached(); int64(got) < floor {
					t.Errorf("read %d after commit %d had finished", got, floor)
					return
				}
				hits.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 300, cached(), "the last commit is seen")
	assert.Positive(t, hits.Load())
	m, ok := w.Mark()
	require.True(t, ok)
	n, hit := memo.Get(m)
	assert.True(t, hit, "without writes the memo answers")
	assert.Equal(t, 300, n)
}
