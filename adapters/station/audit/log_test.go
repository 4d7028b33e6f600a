// SPDX-License-Identifier: Apache-2.0

package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/station/audit"
)

// TestMigrateIsAdditive opens a registry whose audit table has the
// reference's v0.59 shape: its rows stay, the later columns and the
// indexes are added, and an old row claims no clock and no cost.
func TestMigrateIsAdditive(t *testing.T) {
	db, _ := openDB(t)
	_, err := db.Exec(`CREATE TABLE audit (ts TEXT, principal TEXT, forest TEXT, primitive TEXT, args TEXT,
		result TEXT, size INTEGER, commit_sha TEXT)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO audit VALUES ('2026-01-02T03:04:05Z', 'ana', 'acme', 'look', '{"id":"a"}', 'ok', 12, NULL)`)
	require.NoError(t, err)
	for range 2 { // twice: migrating a migrated table changes nothing
		l, err := audit.New(context.Background(), db, nil)
		require.NoError(t, err)
		require.NoError(t, l.Close())
	}
	var cols []string
	rows, err := db.Query(`SELECT name FROM pragma_table_info('audit') ORDER BY cid`)
	require.NoError(t, err)
	for rows.Next() {
		var c string
		require.NoError(t, rows.Scan(&c))
		cols = append(cols, c)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []string{"ts", "principal", "forest", "primitive", "args", "result", "size", "commit_sha",
		"error_code", "ms", "model_ms", "cost_usd", "via"}, cols)
	var idx []string
	rows, err = db.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit' ORDER BY name`)
	require.NoError(t, err)
	for rows.Next() {
		var c string
		require.NoError(t, rows.Scan(&c))
		idx = append(idx, c)
	}
	assert.Equal(t, []string{"audit_forest", "audit_forest_ts", "audit_principal", "audit_ts"}, idx)

	l, err := audit.New(context.Background(), db, nil)
	require.NoError(t, err)
	defer l.Close()
	page, err := l.Query(context.Background(), audit.Scope{Owner: true}, audit.Filter{})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	e := page.Entries[0]
	assert.Nil(t, e.MS)
	assert.Nil(t, e.CostUSD)
	assert.Empty(t, e.ErrorCode)
	assert.Empty(t, e.Via, "an old row names no extension, and is not read as 'none'")
	raw, err := json.Marshal(e)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), `"via"`, "absent, omitted")
	assert.JSONEq(t, `{"id":"a"}`, string(e.Args))
	assert.Nil(t, page.Totals.SpentUSD, "nothing priced: no money")
}

// TestRowRoundTrip writes every field and reads it back; absent optional
// fields stay absent (NULL, omitted).
func TestRowRoundTrip(t *testing.T) {
	l, db, _ := newLog(t, nil)
	at := time.Date(2026, 8, 31, 14, 2, 9, 500, time.FixedZone("x", 3600))
	l.Record(context.Background(), record.Call{Time: at, Principal: "ana", Forest: "acme", Primitive: "plant",
		Args: record.Digest("plant", []byte(`{"node":{"body":"secret"}}`)), Result: record.OK, Size: 42,
		CommitSHA: "abc", MS: ptr(1.25), ModelMS: ptr(300.0), CostUSD: ptr(0.002), Via: "ext:clip"})
	l.Record(context.Background(), record.Call{Principal: "bob", Primitive: "auth.login", Result: record.Refused})
	require.NoError(t, l.Flush(context.Background()))
	page, err := l.Query(context.Background(), audit.Scope{Owner: true}, audit.Filter{})
	require.NoError(t, err)
	require.Len(t, page.Entries, 2)
	full, bare := page.Entries[1], page.Entries[0]
	if full.Principal != "ana" {
		full, bare = bare, full
	}
	assert.Equal(t, "2026-08-31T13:02:09Z", full.TS, "UTC to the second")
	assert.Equal(t, audit.Entry{TS: full.TS, Principal: "ana", Forest: "acme", Primitive: "plant",
		Args: []byte(`{"node":"<17 chars>"}`), Result: "ok", Size: ptr(int64(42)), CommitSHA: "abc",
		MS: ptr(1.25), ModelMS: ptr(300.0), CostUSD: ptr(0.002), Via: "ext:clip"}, full)
	assert.Equal(t, record.NoForest, bare.Forest, "no forest is -")
	assert.Nil(t, bare.MS)
	var code, via sql.NullString
	require.NoError(t, db.QueryRow(`SELECT error_code, via FROM audit WHERE principal = 'bob'`).Scan(&code, &via))
	assert.False(t, code.Valid || via.Valid, "absent strings are NULL, not empty")
}

// TestRecordNeverBlocks holds the registry's write lock from another
// connection, as a long transaction would: Record keeps returning (the
// test would hang otherwise), the overflow is dropped and counted, and
// once the lock is released every row not dropped is written, exactly.
func TestRecordNeverBlocks(t *testing.T) {
	l, db, file := newLog(t, &audit.Options{Queue: 8, Batch: 4})
	lock := holdWriteLock(t, file)
	const n = 100
	for i := range n {
		l.Record(context.Background(), record.Call{Principal: "p", Forest: "f", Primitive: "look", Size: int64(i)})
	}
	// Every Record returned while the file was locked; at most the queue
	// and the batch the writer holds can be waiting.
	assert.GreaterOrEqual(t, l.Dropped(), int64(n-8-4))
	lock()
	require.NoError(t, l.Close())
	assert.Equal(t, int64(n), count(t, db)+l.Dropped()+l.Failed(), "every row is written, dropped or failed: none vanish")
	assert.Zero(t, l.Failed(), "the writer waited for the lock (busy timeout), it did not fail")
	l.Record(context.Background(), record.Call{Principal: "late"})
	assert.Equal(t, int64(n+1), count(t, db)+l.Dropped(), "a row after Close is dropped, counted")
}

// holdWriteLock takes the registry's write lock on a connection of its
// own and returns its release.
func holdWriteLock(t *testing.T, file string) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite3", dsn(file))
	require.NoError(t, err)
	conn, err := other.Conn(context.Background())
	require.NoError(t, err)
	_, err = conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`)
	require.NoError(t, err)
	released := false
	release = func() {
		if !released {
			released = true
			_, err := conn.ExecContext(context.Background(), `COMMIT`)
			assert.NoError(t, err)
			conn.Close()
			other.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// TestRetention prunes rows older than RetainDays at start and, on the
// injected clock, again an hour later; 0 keeps everything.
func TestRetention(t *testing.T) {
	now := time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)
	var clockAt atomic.Int64 // the writer reads the clock on its own goroutine
	clockAt.Store(now.UnixNano())
	clock := func() time.Time { return time.Unix(0, clockAt.Load()).UTC() }
	db, _ := openDB(t)
	seed, err := audit.New(context.Background(), db, &audit.Options{Now: clock})
	require.NoError(t, err)
	for _, days := range []int{40, 31, 29, 1} {
		seed.Record(context.Background(), record.Call{Time: now.AddDate(0, 0, -days), Principal: "p", Primitive: "look"})
	}
	require.NoError(t, seed.Close())
	assert.Equal(t, int64(4), count(t, db), "RetainDays 0 keeps every row")

	l, err := audit.New(context.Background(), db, &audit.Options{Now: clock, RetainDays: 30})
	require.NoError(t, err)
	defer l.Close()
	l.Record(context.Background(), record.Call{Principal: "p", Primitive: "look"}) // the writer sweeps at start
	require.NoError(t, l.Flush(context.Background()))
	assert.Equal(t, int64(3), count(t, db), "the 40- and 31-day rows went at start")
	clockAt.Store(now.AddDate(0, 0, 2).Add(time.Hour).UnixNano()) // the 29-day row is now 31 days old; an hour passed
	l.Record(context.Background(), record.Call{Principal: "p", Primitive: "look"})
	require.NoError(t, l.Flush(context.Background()))
	l.Record(context.Background(), record.Call{Principal: "p", Primitive: "look"})
	require.NoError(t, l.Flush(context.Background()))
	assert.Equal(t, int64(4), count(t, db), "the 29-day row aged out; three recent rows remain")
}

// TestNoSecretInTheFile records a plant whose body holds a secret: the
// registry file never holds the body.
func TestNoSecretInTheFile(t *testing.T) {
	l, _, file := newLog(t, nil)
	l.Record(context.Background(), record.Call{Principal: "p", Forest: "f", Primitive: "plant",
		Args: record.Digest("plant", []byte(`{"node":{"id":"a","body":"hunter2-secret"}}`))})
	require.NoError(t, l.Close())
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(file + suffix)
		if err != nil {
			continue
		}
		assert.False(t, strings.Contains(string(b), "hunter2-secret"), "file%s holds the body", suffix)
	}
}
