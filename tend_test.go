// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/testforest"
)

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func head(t *testing.T, dir string) string {
	t.Helper()
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	sha, err := repo.Head()
	require.NoError(t, err)
	return sha
}

func readPassport(t *testing.T, dir, id string) *forest.Node {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(id)+".md"))
	require.NoError(t, err)
	n, err := forest.Parse(id, data)
	require.NoError(t, err)
	return n
}

// TestTendAuditTrail is A.3.1 for tend: the statement commits in the
// payload, the passport's payload_hash and updated are refreshed, and only
// the .md is committed under "tend(<id>): <VERB> <n> row(s)".
func TestTendAuditTrail(t *testing.T) {
	t.Parallel()
	v, dir := writableFixture(t)
	ctx := context.Background()
	db := filepath.Join(dir, "finance", "ledger-2026.db")
	oldHash := fileSHA(t, db)

	res, err := v.Tend(ctx, ledgerID, "INSERT INTO ledger VALUES ('2026-12-01', 'ice', 'Salvador', -42.5, 'ice for the storm');")
	require.NoError(t, err)
	assert.Equal(t, ledgerID, res.ID)
	assert.Equal(t, int64(1), res.RowsAffected)
	require.NotNil(t, res.Commit)
	assert.Len(t, *res.Commit, 40)
	assert.Equal(t, head(t, dir), *res.Commit)
	assert.Equal(t, fileSHA(t, db), res.PayloadHash)
	assert.NotEqual(t, oldHash, res.PayloadHash)
	assert.GreaterOrEqual(t, res.ElapsedMS, 0.0)

	n := readPassport(t, dir, ledgerID)
	assert.Equal(t, res.PayloadHash, n.PayloadHash())
	assert.Equal(t, "2026-12-01", n.Updated())
	assert.Equal(t, "tend(finance/ledger-2026): INSERT 1 row(s)", headSubject(t, dir, "finance/ledger-2026.md"))

	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	files, err := repo.TrackedFiles()
	require.NoError(t, err)
	for _, f := range files {
		assert.False(t, strings.HasSuffix(f, ".db"), "git never tracks a payload: %s", f)
	}
	if _, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command("git", "-C", dir, "show", "--name-only", "--format=", "HEAD").Output()
		require.NoError(t, err)
		assert.Equal(t, "finance/ledger-2026.md", strings.TrimSpace(string(out)), "the commit holds the passport alone")
	}

	rec, ok, err := v.cat.Get(ctx, ledgerID)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, res.PayloadHash, rec.PayloadHash, "the catalog follows the commit")
	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Errors+rep.Warnings, "no hash drift: %+v", rep.Findings)

	q, err := v.Query(ctx, ledgerID, "SELECT count(*) FROM ledger WHERE memo = 'ice for the storm'")
	require.NoError(t, err)
	assert.Equal(t, int64(1), q.Rows[0][0], "queryable at once")

	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Regexp(t, `^\{"id":"finance/ledger-2026","rows_affected":1,"payload_hash":"[0-9a-f]{64}","commit":"[0-9a-f]{40}","elapsed_ms":[0-9.]+\}$`, string(b))
}

func TestTendVerbs(t *testing.T) {
	t.Parallel()
	v, dir := queryForest(t)
	ctx := context.Background()
	tests := []struct {
		id, sql string
		n       int64
		subject string
	}{
		{ledgerID, "UPDATE ledger SET memo = 'checked' WHERE account = 'ice'", 66, "UPDATE 66 row(s)"},
		{ledgerID, "delete from ledger where account = 'subsidy'", 66, "DELETE 66 row(s)"},
		{ledgerID, "DELETE FROM ledger WHERE day IN (SELECT day FROM ledger WHERE account = 'fuel' LIMIT 2)", 2, "DELETE 2 row(s)"},
		{"finance/clients-2026", "INSERT INTO clients VALUES ('Coral', 'Ilhéus'), ('Delta', 'Itapuã'), ('Estrela', 'Salvador')", 3, "INSERT 3 row(s)"},
		{"finance/clients-2026", "INSERT INTO clients VALUES ('Acme', 'Lauro') ON CONFLICT(name) DO UPDATE SET site = excluded.site", 1, "INSERT 1 row(s)"},
		{"finance/clients-2026", "INSERT OR REPLACE INTO clients VALUES ('Borealis', 'Camaçari')", 1, "INSERT 1 row(s)"},
		{"finance/clients-2026", "INSERT INTO visits SELECT '2026-04-01', name FROM clients", 5, "INSERT 5 row(s)"},
		{"finance/clients-2026", "DELETE FROM visits WHERE day = '2026-04-01' RETURNING *", 5, "DELETE 5 row(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			res, err := v.Tend(ctx, tt.id, tt.sql)
			require.NoError(t, err)
			assert.Equal(t, tt.n, res.RowsAffected)
			require.NotNil(t, res.Commit)
			assert.Equal(t, "tend("+tt.id+"): "+tt.subject, headSubject(t, dir, tt.id+".md"))
		})
	}
	q, err := v.Query(ctx, "finance/clients-2026", "SELECT site FROM clients WHERE name IN ('Acme', 'Borealis') ORDER BY name")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"Lauro"}, {"Camaçari"}}, q.Rows)
}

// TestTendNoChangeSameDay is §9.8: a tend that changed no payload bytes on
// the day of the last write has nothing to commit and answers commit null.
func TestTendNoChangeSameDay(t *testing.T) {
	t.Parallel()
	v, dir := writableFixture(t)
	ctx := context.Background()
	first, err := v.Tend(ctx, ledgerID, "DELETE FROM ledger WHERE 0")
	require.NoError(t, err)
	assert.Equal(t, int64(0), first.RowsAffected)
	require.NotNil(t, first.Commit, "updated moved to today: that is a change")
	assert.Equal(t, "tend(finance/ledger-2026): DELETE 0 row(s)", headSubject(t, dir, "finance/ledger-2026.md"))

	before := testforest.TreeDigest(t, dir)
	second, err := v.Tend(ctx, ledgerID, "UPDATE ledger SET memo = memo WHERE 0")
	require.NoError(t, err)
	assert.Nil(t, second.Commit)
	assert.Equal(t, first.PayloadHash, second.PayloadHash)
	assert.Equal(t, *first.Commit, head(t, dir), "no empty commit")
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
	b, err := json.Marshal(second)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"commit":null`)
}

// TestTendRefusalsChangeNothing is F.11: the guard suite, SQLite's
// rejections, the authorizer, the deadline, and every other refusal leave
// the forest and every payload byte-identical, with no commit.
func TestTendRefusalsChangeNothing(t *testing.T) {
	t.Parallel()
	v, dir := queryForest(t)
	ctx := context.Background()
	const clients = "finance/clients-2026"
	tests := []struct {
		name, id, sql string
		host          sqlHost
		code          envelope.Code
		message       string
		hint          string
	}{
		{"absent id", "finance/nope", "DELETE FROM x WHERE 1", sqlHost{}, envelope.NotFound, "node not found: finance/nope", ""},
		{"not a dataset", "finance/budget-rules", "DELETE FROM x WHERE 1", sqlHost{}, envelope.QueryForbidden, "type note, not a sqlite dataset", ""},
		{"select", ledgerID, "SELECT * FROM ledger", sqlHost{}, envelope.QueryForbidden, `got "SELECT"`, "reads go through query"},
		{"with insert", ledgerID, "WITH x AS (SELECT 1) INSERT INTO ledger(day) SELECT 1 FROM x", sqlHost{}, envelope.QueryForbidden, `got "WITH"`, ""},
		{"replace into", clients, "REPLACE INTO clients VALUES ('Acme', 'x')", sqlHost{}, envelope.QueryForbidden, `got "REPLACE"`, "INSERT OR REPLACE"},
		{"create", ledgerID, "CREATE TABLE x(a)", sqlHost{}, envelope.QueryForbidden, `got "CREATE"`, ""},
		{"drop", ledgerID, "DROP TABLE ledger", sqlHost{}, envelope.QueryForbidden, `got "DROP"`, ""},
		{"alter", ledgerID, "ALTER TABLE ledger ADD COLUMN x TEXT", sqlHost{}, envelope.QueryForbidden, `got "ALTER"`, ""},
		{"pragma", ledgerID, "PRAGMA writable_schema = ON", sqlHost{}, envelope.QueryForbidden, `got "PRAGMA"`, ""},
		{"attach", ledgerID, "ATTACH 'x.db' AS x", sqlHost{}, envelope.QueryForbidden, `got "ATTACH"`, ""},
		{"vacuum into", ledgerID, "VACUUM INTO 'copy.db'", sqlHost{}, envelope.QueryForbidden, `got "VACUUM"`, ""},
		{"stacked drop", ledgerID, "DELETE FROM ledger WHERE 1; DROP TABLE ledger", sqlHost{}, envelope.QueryForbidden, "exactly one statement", ""},
		{"begin in a literal", ledgerID, "INSERT INTO ledger(memo) VALUES ('begin')", sqlHost{}, envelope.QueryForbidden, "forbidden keyword: BEGIN", ""},
		{"pragma function", ledgerID, "DELETE FROM ledger WHERE memo IN (SELECT name FROM pragma_table_list)", sqlHost{},
			envelope.QueryForbidden, "forbidden keyword: PRAGMA_TABLE_LIST", ""},
		{"delete without where", ledgerID, "DELETE FROM ledger", sqlHost{}, envelope.QueryForbidden, "DELETE without a WHERE", ""},
		{"update with where only in a comment", ledgerID, "UPDATE ledger SET memo = '' -- WHERE rowid = 1", sqlHost{},
			envelope.QueryForbidden, "UPDATE without a WHERE", ""},
		{"schema table", ledgerID, "DELETE FROM sqlite_master WHERE type = 'table'", sqlHost{}, envelope.QueryInvalid,
			"SQL error: table sqlite_master may not be modified", ""},
		{"unknown table", ledgerID, "DELETE FROM ledgr WHERE 1", sqlHost{}, envelope.QueryInvalid, "SQL error: no such table: ledgr",
			"Tables in this dataset: ledger."},
		{"unknown column", ledgerID, "UPDATE ledger SET memoo = '' WHERE 1", sqlHost{}, envelope.QueryInvalid, "SQL error: no such column: memoo",
			"Columns: ledger(day, account, port, amount, memo)."},
		{"constraint", clients, "INSERT INTO clients VALUES ('Acme', 'twice')", sqlHost{}, envelope.QueryInvalid,
			"SQL error: UNIQUE constraint failed: clients.name", ""},
		{"constraint mid-statement", clients, "INSERT INTO clients VALUES ('Zed', 'a'), ('Zed', 'b')", sqlHost{}, envelope.QueryInvalid,
			"UNIQUE constraint failed", ""},
		{"view", clients, "INSERT INTO v_visits VALUES ('2026-01-01', 'Acme')", sqlHost{}, envelope.QueryInvalid, "cannot modify v_visits", ""},
		{"syntax", ledgerID, "UPDATE ledger SET WHERE 1", sqlHost{}, envelope.QueryInvalid, "syntax error", ""},
		{"allow-list: insert select from a withheld table", clients, "INSERT INTO clients SELECT client, day FROM visits",
			sqlHost{tables: []string{"clients"}}, envelope.QueryForbidden, "tend: the statement reaches outside the tables this access allows",
			"permitted tables: clients"},
		{"allow-list: write a withheld table", clients, "DELETE FROM visits WHERE 1",
			sqlHost{tables: []string{"clients"}}, envelope.QueryForbidden, "reaches outside the tables", ""},
		{"allow-list: where reads a withheld table", clients, "DELETE FROM clients WHERE name IN (SELECT client FROM visits)",
			sqlHost{tables: []string{"clients"}}, envelope.QueryForbidden, "reaches outside the tables", ""},
		{"deadline", clients,
			"INSERT INTO visits SELECT n, 'x' FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c)",
			sqlHost{timeout: 300 * time.Millisecond}, envelope.Timeout, "the payload is unchanged", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, sha := testforest.TreeDigest(t, dir), head(t, dir)
			_, err := v.tend(ctx, tt.id, tt.sql, tt.host)
			e := refusal(t, err, tt.code)
			assert.Contains(t, e.Message, tt.message)
			if tt.hint != "" {
				assert.Contains(t, e.Hint, tt.hint)
			}
			if len(tt.host.tables) > 0 {
				assert.NotContains(t, string(e.Body()), "visits", "a refusal never names a withheld table")
			}
			assert.Equal(t, before, testforest.TreeDigest(t, dir), "forest and payloads byte-identical")
			assert.Equal(t, sha, head(t, dir), "no commit")
		})
	}
	res, err := v.Tend(ctx, clients, "INSERT INTO clients VALUES ('Zed', 'a')")
	require.NoError(t, err, "the payload still takes a good write")
	assert.Equal(t, int64(1), res.RowsAffected)
}

func TestTendReadOnlyFirst(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	before := testforest.TreeDigest(t, dir)
	for _, id := range []string{"finance/nope", ledgerID} {
		_, err := v.Tend(context.Background(), id, "DROP TABLE ledger")
		e := refusal(t, err, envelope.ReadOnly)
		assert.Contains(t, e.Message, "tend")
	}
	_, err := call(t, v, "tend", `{"id": "finance/ledger-2026", "sql": "DELETE FROM ledger WHERE 1"}`)
	refusal(t, err, envelope.ReadOnly)
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
}

func TestTendPayloadMissingRemoteAndMoved(t *testing.T) {
	t.Parallel()
	v, dir := writableFixture(t)
	ctx := context.Background()

	remote := &forest.Node{ID: "finance/ledger-remote", Body: "# Ledger remote\n", Front: forest.NewFrontmatter(
		forest.Field{Key: "id", Value: "finance/ledger-remote"}, forest.Field{Key: "type", Value: "dataset"},
		forest.Field{Key: "title", Value: "Ledger remote"}, forest.Field{Key: "summary", Value: "The ledger kept in object storage."},
		forest.Field{Key: "created", Value: "2026-12-01"}, forest.Field{Key: "updated", Value: "2026-12-01"},
		forest.Field{Key: "payload", Value: "s3://coop-archive/ledger-remote.db"}, forest.Field{Key: "payload_type", Value: "sqlite"})}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "finance", "ledger-remote.md"), remote.Bytes(), 0o644))
	before := testforest.TreeDigest(t, dir)
	_, err := v.Tend(ctx, "finance/ledger-remote", "DELETE FROM ledger WHERE 1")
	e := refusal(t, err, envelope.QueryForbidden)
	assert.Contains(t, e.Message, "remote payload")
	assert.Contains(t, e.Hint, "local-first")
	_, err = v.Tend(ctx, "finance/ledger-remote", "DELETE FROM ledger")
	refusal(t, err, envelope.QueryForbidden) // the guard comes first, then the payload

	db := filepath.Join(dir, "finance", "ledger-2026.db")
	require.NoError(t, os.Rename(db, db+".away"))
	_, err = v.Tend(ctx, ledgerID, "DELETE FROM ledger WHERE 1")
	e = refusal(t, err, envelope.NotFound)
	assert.Equal(t, "payload missing: ledger-2026.db", e.Message)
	_, statErr := os.Stat(db)
	assert.True(t, os.IsNotExist(statErr), "tend never creates a payload")
	require.NoError(t, os.Rename(db+".away", db))
	assert.Equal(t, before, testforest.TreeDigest(t, dir))

	rec, ok, err := v.cat.Get(ctx, ledgerID)
	require.NoError(t, err)
	require.True(t, ok)
	rec.MovedFrom = []string{"finance/ledger-old"}
	require.NoError(t, v.cat.Upsert(ctx, rec))
	_, err = v.Tend(ctx, "finance/ledger-old", "DELETE FROM ledger WHERE 1")
	e = refusal(t, err, envelope.Moved)
	to, _ := e.Get("moved_to")
	assert.Equal(t, ledgerID, to)
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
}

// TestTendDriftHealed: a payload changed behind the engine's back shows as
// hash drift in validate; the next good tend records the true hash again.
func TestTendDriftHealed(t *testing.T) {
	t.Parallel()
	v, dir := writableFixture(t)
	ctx := context.Background()
	db := filepath.Join(dir, "finance", "ledger-2026.db")
	conn, err := sqlite3.Open("file:" + filepath.ToSlash(db))
	require.NoError(t, err)
	require.NoError(t, conn.Exec("UPDATE ledger SET memo = 'edited by hand' WHERE rowid = 1"))
	require.NoError(t, conn.Close())
	drift := func() int {
		rep, err := v.Validate(ctx)
		require.NoError(t, err)
		n := 0
		for _, f := range rep.Findings {
			if strings.Contains(fmt.Sprint(f), "payload_hash drift") {
				n++
			}
		}
		return n
	}
	require.Equal(t, 1, drift())

	res, err := v.Tend(ctx, ledgerID, "UPDATE ledger SET memo = 'b' WHERE rowid = 2")
	require.NoError(t, err)
	require.NotNil(t, res.Commit)
	assert.Equal(t, fileSHA(t, db), readPassport(t, dir, ledgerID).PayloadHash())
	assert.Equal(t, 0, drift())
}

func TestTendWire(t *testing.T) {
	t.Parallel()
	v, dir := writableFixture(t)
	out, err := call(t, v, "tend", `{"id": "finance/ledger-2026", "sql": "UPDATE ledger SET port = 'Itapuã' WHERE rowid <= 3"}`)
	require.NoError(t, err)
	assert.Equal(t, float64(3), out["rows_affected"])
	assert.Equal(t, head(t, dir), out["commit"])

	_, err = call(t, v, "tend", `{"id": "finance/ledger-2026", "sql": "DELETE FROM ledger WHERE 1", "tables": ["ledger"]}`)
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "unknown parameter 'tables'")

	sig, ok := LookupSignature("tend")
	require.True(t, ok)
	assert.False(t, sig.ReadOnly)
	assert.True(t, sig.Destructive)
	assert.Contains(t, sig.Doc, "query", "the description names the neighbour that reads")
}
