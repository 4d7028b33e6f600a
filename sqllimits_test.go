// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/sqlguard"
	"github.com/monkeyllm/vine/internal/testforest"
)

// bombViews are views a dataset file may carry: a payload is anyone's
// file, so the limits must hold for SQL the caller never wrote.
const bombViews = `CREATE VIEW bomb AS SELECT randomblob(1e9) AS b;
CREATE VIEW bomb_concat AS SELECT group_concat(printf('%.*c', 1000, 'x')) AS s FROM ledger a, ledger b`

// sqlBombs are statements that once answered E_INTERNAL ("internal
// panic") after asking SQLite for a gigabyte; each must now answer a
// clean E_QUERY_INVALID naming the limit it ran into.
var sqlBombs = []struct {
	name, sql, limit string
}{
	{"randomblob", "SELECT randomblob(1e9)", "sql_max_length"},
	{"printf width", "SELECT printf('%.*c', 1e9, 'x')", "sql_max_length"},
	{"zeroblob", "SELECT zeroblob(1e9)", "sql_max_length"},
	{"group_concat over a self-join", "SELECT length(group_concat(printf('%.*c', 1000, 'x'))) FROM ledger a, ledger b", "sql_max_length"},
	{"doubling recursive CTE", "WITH RECURSIVE c(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || s FROM c WHERE n < 40) " +
		"SELECT max(length(s)) FROM c", "sql_max_length"},
	{"bomb view in the dataset", "SELECT length(b) FROM bomb", "sql_max_length"},
	{"group_concat view in the dataset", "SELECT length(s) FROM bomb_concat", "sql_max_length"},
	// zeroblob || x'00' materializes 15 MB with a memset: the heap fills
	// fast even under the race detector.
	{"many values under the length limit", "SELECT zeroblob(15e6) || x'00', zeroblob(15e6) || x'00', " +
		"zeroblob(15e6) || x'00', zeroblob(15e6) || x'00', zeroblob(15e6) || x'00'", "sql_max_memory"},
	{"one wide text row", "SELECT printf('%.*c', 2000000, 'x')", "query_max_result_bytes"},
}

// bombForest is the fixture with the bomb views added to the ledger's
// payload, and its digest after that.
func bombForest(t *testing.T) (string, string) {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	conn, err := sqlite3.Open("file:" + filepath.ToSlash(filepath.Join(dir, "finance", "ledger-2026.db")))
	require.NoError(t, err)
	require.NoError(t, conn.Exec(bombViews))
	require.NoError(t, conn.Close())
	return dir, testforest.TreeDigest(t, dir)
}

func TestQueryMemoryBombs(t *testing.T) {
	t.Parallel()
	dir, digest := bombForest(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, tt := range sqlBombs {
		t.Run(tt.name, func(t *testing.T) {
			// The limit named in the refusal, not the clock, shows the
			// bomb was stopped by the limit rather than the deadline.
			_, err := v.query(ctx, ledgerID, tt.sql, bombHost())
			e := refusal(t, err, envelope.QueryInvalid)
			assertLimit(t, e, tt.limit)
			assert.Contains(t, e.Message, "limit")
			assert.NotEmpty(t, e.Hint)
		})
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "the Go heap never held a bomb")
	assert.Equal(t, digest, testforest.TreeDigest(t, dir))
	res, err := v.Query(ctx, ledgerID, "SELECT count(*) FROM ledger")
	require.NoError(t, err, "the next query is unaffected")
	assert.Equal(t, int64(330), res.Rows[0][0])
}

// TestQueryMemoryLimitsOptions: each limit is the Vine's option, zero
// meaning the default, and a refusal names the configured size.
func TestQueryMemoryLimitsOptions(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		opts    Options
		sql     string
		message string // "" means the statement runs
	}{
		{"default length admits 1 MiB", Options{}, "SELECT length(randomblob(1048576))", ""},
		{"length limit lowered", Options{SQLMaxLength: 1 << 20}, "SELECT length(randomblob(1048577))", "1 MiB per string or blob"},
		{"heap limit lowered", Options{SQLMaxMemory: 8 << 20}, "SELECT length(randomblob(12e6))", "8 MiB SQL memory limit"},
		{"result limit lowered", Options{QueryMaxResultBytes: 1000}, "SELECT printf('%.*c', 1001, 'x')", "1000 bytes result-size limit"},
		{"result limit counts every kept row", Options{QueryMaxResultBytes: 4 << 10},
			"SELECT printf('%.*c', 300, 'x') FROM ledger", "4 KiB result-size limit"},
		{"blobs are described, not copied", Options{QueryMaxResultBytes: 1000}, "SELECT randomblob(5000)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.ReadOnly = true
			v := openT(t, dir, &opts)
			_, err := v.Query(ctx, ledgerID, tt.sql)
			if tt.message == "" {
				require.NoError(t, err)
				return
			}
			e := refusal(t, err, envelope.QueryInvalid)
			assert.Contains(t, e.Message, tt.message)
		})
	}
}

// TestTendMemoryBombs: a tend statement meets the same limits, and every
// refusal rolls back: payload, passport and history unchanged.
func TestTendMemoryBombs(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{Now: plantClock})
	ctx := context.Background()
	tests := []struct {
		name, sql, limit string
	}{
		{"randomblob", "INSERT INTO ledger(memo) VALUES (randomblob(1e9))", "sql_max_length"},
		{"printf width", "UPDATE ledger SET memo = printf('%.*c', 1e9, 'x') WHERE rowid = 1", "sql_max_length"},
		{"zeroblob", "INSERT INTO ledger(memo) VALUES (zeroblob(1e9))", "sql_max_length"},
		{"group_concat over a self-join", "INSERT INTO ledger(memo) SELECT group_concat(printf('%.*c', 1000, 'x')) " +
			"FROM ledger a, ledger b", "sql_max_length"},
		{"heap", "INSERT INTO ledger VALUES (zeroblob(15e6) || x'00', zeroblob(15e6) || x'00', " +
			"zeroblob(15e6) || x'00', zeroblob(15e6) || x'00', zeroblob(15e6) || x'00')", "sql_max_memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testforest.Unchanged(t, dir, func() {
				_, err := v.tend(ctx, ledgerID, tt.sql, bombHost())
				e := refusal(t, err, envelope.QueryInvalid)
				assertLimit(t, e, tt.limit)
				assert.Contains(t, e.Message, "the payload is unchanged")
			})
		})
	}
	res, err := v.Tend(ctx, ledgerID, "INSERT INTO ledger(memo) VALUES ('after the bombs')")
	require.NoError(t, err, "the next tend is unaffected")
	assert.Equal(t, int64(1), res.RowsAffected)
}

var sqlBombChild = flag.Bool("vine.sqlbomb-child", false, "run the SQL bombs as the child of TestSQLBombsPeakMemory")

// TestSQLBombsPeakMemory runs every bomb in a child process and reads its
// peak resident memory: the wasm heap SQLite allocates in lives outside
// the Go heap, so only the process can tell it never grew to gigabytes.
//
// The child reports its own high-water mark (VmHWM) after the bombs. The
// rusage the parent could read instead is no good: Linux carries the
// parent's peak across the fork and exec, so a child started by a big
// test process would report that process's peak.
func TestSQLBombsPeakMemory(t *testing.T) {
	if *sqlBombChild {
		runBombsInChild(t)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory swamps a resident-set measure; CI runs this without -race")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status on this platform")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLBombsPeakMemory$", "-test.v", "-vine.sqlbomb-child")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`peak-rss-kib=(\d+)`).FindSubmatch(out)
	require.NotNil(t, m, "the child reports its peak: %s", out)
	kib, err := strconv.ParseInt(string(m[1]), 10, 64)
	require.NoError(t, err)
	t.Logf("child peak RSS %d MiB", kib>>10)
	assert.Less(t, kib<<10, int64(256<<20), "the bombs stayed within the memory limits")
}

func runBombsInChild(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bombs.db")
	conn, err := sqlite3.Open("file:" + filepath.ToSlash(file))
	require.NoError(t, err)
	require.NoError(t, conn.Exec(`CREATE TABLE ledger(day, memo);
INSERT INTO ledger SELECT 'd' || value, 'm' FROM generate_series(1, 330);`+bombViews))
	require.NoError(t, conn.Close())
	for _, tt := range sqlBombs {
		_, _, err := runQuery(context.Background(), file, sqlguard.Statement{SQL: tt.sql, Verb: "SELECT"}, bombHost())
		assert.Equal(t, envelope.QueryInvalid, envelope.CodeOf(err), "%s: %v", tt.name, err)
	}
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	require.NotNil(t, m, "VmHWM in /proc/self/status")
	t.Logf("peak-rss-kib=%s", m[1])
}

func assertLimit(t *testing.T, e *envelope.Error, limit string) {
	t.Helper()
	got, _ := e.Get("limit")
	assert.Equal(t, limit, got, e.Message)
}

// bombHost is the host side of a bomb: the default deadline, or a long one
// under the race detector, where the slowed interpreter could reach the
// deadline before the limit and the test is about the limit.
func bombHost() sqlHost {
	if raceEnabled {
		return sqlHost{timeout: 30 * time.Second}
	}
	return sqlHost{}
}
