// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/sqlguard"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/payload"
)

const ledgerID = "finance/ledger-2026"

// queryForest is the fixture forest, writable, with two datasets planted
// beside the ledger: finance/clients-2026 (tables clients and visits, a
// view over each, born through plant) and finance/wide-2026 (one table of
// 50 wide text columns, three rows of about 2,500 tokens each).
func queryForest(t *testing.T) (*Vine, string) {
	t.Helper()
	v, dir := writableFixture(t)
	ctx := context.Background()
	_, err := v.Plant(ctx, NodeSpec{
		ID: "finance/clients-2026", Type: "dataset", Title: "Clients 2026", Parent: "finance/_index",
		Summary: "Clients of the cooperative and their 2026 visits, one row per visit.",
		Schema: []TableSpec{
			{Name: "clients", Columns: []ColumnSpec{{Name: "name", Type: "TEXT"}, {Name: "site", Type: "TEXT"}},
				PrimaryKey: []string{"name"}},
			{Name: "visits", Columns: []ColumnSpec{{Name: "day", Type: "TEXT"}, {Name: "client", Type: "TEXT"}}},
		},
		Rows: map[string][][]any{
			"clients": {{"Acme", "Itapuã"}, {"Borealis", "Salvador"}},
			"visits":  {{"2026-03-01", "Acme"}, {"2026-03-02", "Borealis"}, {"2026-03-05", "Acme"}},
		},
		rowsGiven: true,
	}, PlantOptions{})
	require.NoError(t, err)
	// Views are not born through plant; an adopted payload may carry them.
	conn, err := sqlite3.Open("file:" + filepath.ToSlash(filepath.Join(dir, "finance", "clients-2026.db")))
	require.NoError(t, err)
	require.NoError(t, conn.Exec(`CREATE VIEW v_visits AS SELECT * FROM visits; CREATE VIEW v_clients AS SELECT * FROM clients`))
	require.NoError(t, conn.Close())

	cols := make([]ColumnSpec, 50)
	row := make([]any, 50)
	for i := range cols {
		cols[i] = ColumnSpec{Name: fmt.Sprintf("c%02d", i), Type: "TEXT"}
		row[i] = strings.Repeat(string(rune('a'+i%26)), 200)
	}
	_, err = v.Plant(ctx, NodeSpec{
		ID: "finance/wide-2026", Type: "dataset", Title: "Wide export 2026", Parent: "finance/_index",
		Summary: "An ERP export with fifty wide text columns, three rows.",
		Schema:  []TableSpec{{Name: "wide", Columns: cols}},
		Rows:    map[string][][]any{"wide": {row, row, row}}, rowsGiven: true,
	}, PlantOptions{})
	require.NoError(t, err)
	return v, dir
}

// refusal asserts err is an envelope with the code and returns it.
func refusal(t *testing.T, err error, code envelope.Code) *envelope.Error {
	t.Helper()
	require.Error(t, err)
	var e *envelope.Error
	require.ErrorAs(t, err, &e, "want an envelope, got %v", err)
	require.Equal(t, code, e.Code, "%s", e.Message)
	return e
}

func TestQueryAnswersColumnsAndRows(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()

	res, err := v.Query(ctx, ledgerID, "SELECT account, COUNT(*) AS n FROM ledger GROUP BY account ORDER BY account;")
	require.NoError(t, err)
	assert.Equal(t, []string{"account", "n"}, res.Columns)
	assert.Equal(t, [][]any{{"fuel", int64(66)}, {"ice", int64(66)}, {"repairs", int64(66)}, {"sales", int64(66)},
		{"subsidy", int64(66)}}, res.Rows)
	assert.Equal(t, 5, res.RowCount)
	assert.False(t, res.Limited)
	assert.False(t, res.Truncated)
	assert.Empty(t, res.Hint)
	assert.GreaterOrEqual(t, res.ElapsedMS, 0.0)
	assert.Equal(t, res.ElapsedMS, float64(int64(res.ElapsedMS*100+0.5))/100, "two decimals")

	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Regexp(t, `^\{"columns":\["account","n"\],"rows":\[\["fuel",66\],.*\],"row_count":5,"limited":false,"elapsed_ms":[0-9.]+\}$`,
		string(b), "spec key order; truncated and hint absent")

	one, err := v.Query(ctx, ledgerID, "SELECT day, amount, memo, NULL AS none_col FROM ledger WHERE rowid = 1")
	require.NoError(t, err)
	require.Len(t, one.Rows, 1)
	assert.Equal(t, "2026-01-01", one.Rows[0][0])
	assert.IsType(t, float64(0), one.Rows[0][1])
	assert.Equal(t, "fuel entry 1", one.Rows[0][2])
	assert.Nil(t, one.Rows[0][3])

	empty, err := v.Query(ctx, ledgerID, "SELECT day FROM ledger WHERE 0")
	require.NoError(t, err)
	assert.Equal(t, []string{"day"}, empty.Columns, "columns come back even with no row")
	assert.Equal(t, [][]any{}, empty.Rows)
	b, _ = json.Marshal(empty)
	assert.Contains(t, string(b), `"rows":[]`, "never null")
}

func TestQueryLimitInjection(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()
	tests := []struct {
		name    string
		sql     string
		rows    int
		limited bool
		first   string
	}{
		{"engine cap reached", "SELECT day FROM ledger", 200, true, "2026-01-01"},
		{"order kept under the cap", "SELECT day FROM ledger ORDER BY day DESC", 200, true, "2026-11-26"},
		{"trailing comment changes nothing", "SELECT day FROM ledger -- all of them", 200, true, "2026-01-01"},
		{"under the cap", "SELECT day FROM ledger WHERE account = 'fuel'", 66, false, "2026-01-01"},
		// The caller's LIMIT narrows, never widens: a cap that text could
		// switch off would be no cap.
		{"caller limit above the cap is capped", "SELECT day FROM ledger LIMIT 300", 200, true, "2026-01-01"},
		{"caller limit equal to the cap", "SELECT day FROM ledger LIMIT 200", 200, false, "2026-01-01"},
		{"caller limit below the cap", "SELECT day FROM ledger LIMIT 5", 5, false, "2026-01-01"},
		{"caller limit above the data", "SELECT day FROM ledger WHERE account = 'fuel' LIMIT 500", 66, false, "2026-01-01"},
		{"caller limit in a subquery", "SELECT * FROM (SELECT day FROM ledger LIMIT 250)", 200, true, "2026-01-01"},
		{"non-digit limit", "SELECT day FROM ledger LIMIT (250)", 200, true, "2026-01-01"},
		{"LIMIT in a string literal", "SELECT day FROM ledger WHERE day <> 'LIMIT 5'", 200, true, "2026-01-01"},
		{"LIMIT in a string literal, whole row", "SELECT day, 'LIMIT 5' FROM ledger", 200, true, "2026-01-01"},
		{"LIMIT in a line comment", "SELECT day FROM ledger -- LIMIT 5", 200, true, "2026-01-01"},
		{"LIMIT in a block comment", "SELECT day /* LIMIT 5 */ FROM ledger", 200, true, "2026-01-01"},
		{"LIMIT as a quoted alias", `SELECT day AS "LIMIT 5" FROM ledger`, 200, true, "2026-01-01"},
		{"recursive CTE stopped by the cap",
			"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT '2026-01-0' || n FROM c", 200, true, "2026-01-01"},
		{"recursive CTE with a LIMIT in a literal",
			"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT '2026-01-0' || n || substr('LIMIT 5', 1, 0) FROM c",
			200, true, "2026-01-01"},
		{"duplicate column names kept as written", "SELECT day, day FROM ledger", 200, true, "2026-01-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := v.Query(ctx, ledgerID, tt.sql)
			require.NoError(t, err)
			assert.Equal(t, tt.rows, res.RowCount)
			assert.Len(t, res.Rows, tt.rows)
			assert.Equal(t, tt.limited, res.Limited)
			assert.False(t, res.Truncated)
			assert.Equal(t, tt.first, res.Rows[0][0])
		})
	}
	res, err := v.Query(ctx, ledgerID, "SELECT day, day FROM ledger")
	require.NoError(t, err)
	assert.Equal(t, []string{"day", "day"}, res.Columns, "columns are named as the statement names them")
}

// TestQueryBudget is F.46: partial and zero-row truncation with columns
// intact and the required hints; narrower rewrites and aggregates fit;
// limited and truncated are independent.
func TestQueryBudget(t *testing.T) {
	t.Parallel()
	v, _ := queryForest(t)
	ctx := context.Background()

	t.Run("partial truncation, both flags", func(t *testing.T) {
		res, err := v.Query(ctx, ledgerID, "SELECT * FROM ledger")
		require.NoError(t, err)
		assert.True(t, res.Limited, "the injected cap was reached")
		assert.True(t, res.Truncated, "and the budget cut rows: independent flags")
		assert.Equal(t, []string{"day", "account", "port", "amount", "memo"}, res.Columns)
		assert.Greater(t, res.RowCount, 50)
		assert.Less(t, res.RowCount, 200)
		assert.Len(t, res.Rows, res.RowCount)
		assert.Equal(t, "2026-01-01", res.Rows[0][0], "the kept rows are the leading ones")
		assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), BudgetQuery)
		assert.True(t, strings.HasPrefix(res.Hint, fmt.Sprintf("Kept %d of 200 rows; the other %d exist and matched",
			res.RowCount, 200-res.RowCount)), res.Hint)
		assert.Contains(t, res.Hint, "not your WHERE")
		assert.Contains(t, res.Hint, "5 columns returned")
		assert.Contains(t, res.Hint, "aggregate")

		// The cut is the longest prefix: spent (the response without rows)
		// plus each kept row's cost fits, and the next row's does not.
		rows := res.Rows
		res.Rows = [][]any{}
		spent := budget.EstimatePayloadTokens(res)
		res.Rows = rows
		for _, row := range rows {
			spent += budget.EstimateTokens(budget.Render(row) + ", ")
		}
		assert.LessOrEqual(t, spent, BudgetQuery)
		next, err := v.Query(ctx, ledgerID, fmt.Sprintf("SELECT * FROM ledger LIMIT 1 OFFSET %d", res.RowCount))
		require.NoError(t, err)
		assert.Greater(t, spent+budget.EstimateTokens(budget.Render(next.Rows[0])+", "), BudgetQuery)
	})

	t.Run("truncated without limited", func(t *testing.T) {
		res, err := v.Query(ctx, ledgerID, "SELECT * FROM ledger LIMIT 150")
		require.NoError(t, err)
		assert.True(t, res.Truncated)
		assert.False(t, res.Limited)
		assert.Contains(t, res.Hint, "of 150 rows")
		assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), BudgetQuery)
	})

	t.Run("a huge caller LIMIT is capped and counted", func(t *testing.T) {
		res, err := v.Query(ctx, ledgerID,
			"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 3000) SELECT n, printf('%.40c', 'x') FROM c")
		require.NoError(t, err)
		assert.True(t, res.Truncated)
		assert.True(t, res.Limited, "the engine's cap cut it, not the caller's LIMIT")
		assert.Contains(t, res.Hint, "of 200 rows")
		assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), BudgetQuery)
	})

	t.Run("three-column rewrite fits", func(t *testing.T) {
		res, err := v.Query(ctx, ledgerID, "SELECT day, account, amount FROM ledger WHERE account = 'fuel'")
		require.NoError(t, err)
		assert.False(t, res.Truncated)
		assert.Equal(t, 66, res.RowCount)
		assert.Empty(t, res.Hint)
	})

	t.Run("aggregates never truncate", func(t *testing.T) {
		res, err := v.Query(ctx, ledgerID,
			"SELECT account, COUNT(*), SUM(amount), AVG(amount), MIN(day), MAX(day) FROM ledger GROUP BY account")
		require.NoError(t, err)
		assert.False(t, res.Truncated)
		assert.Equal(t, 5, res.RowCount)
	})

	t.Run("limited without truncated", func(t *testing.T) {
		res, err := v.Query(ctx, ledgerID, "SELECT account FROM ledger")
		require.NoError(t, err)
		assert.True(t, res.Limited)
		assert.False(t, res.Truncated)
	})

	t.Run("zero rows kept, columns intact", func(t *testing.T) {
		res, err := v.Query(ctx, "finance/wide-2026", "SELECT * FROM wide")
		require.NoError(t, err)
		assert.True(t, res.Truncated)
		assert.False(t, res.Limited)
		assert.Equal(t, 0, res.RowCount)
		assert.Equal(t, [][]any{}, res.Rows)
		require.Len(t, res.Columns, 50, "columns are never dropped")
		assert.Equal(t, "c00", res.Columns[0])
		assert.True(t, strings.HasPrefix(res.Hint, "Kept 0 of 3 rows; all 3 exist and matched"), res.Hint)
		assert.Regexp(t, `One row costs about \d{4} tokens across 50 columns`, res.Hint)
		assert.Contains(t, res.Hint, "Query manual")

		narrow, err := v.Query(ctx, "finance/wide-2026", "SELECT c00, length(c01) FROM wide")
		require.NoError(t, err)
		assert.False(t, narrow.Truncated, "naming fewer columns fits")
		assert.Equal(t, 3, narrow.RowCount)
	})
}

// TestQueryRefusals is the query injection suite plus C.5.2: what the
// guard refuses is E_QUERY_FORBIDDEN (403), what SQLite rejects is
// E_QUERY_INVALID (400) with the name hint, in check order.
func TestQueryRefusals(t *testing.T) {
	t.Parallel()
	v, dir := queryForest(t)
	ctx := context.Background()
	before := testforest.TreeDigest(t, dir)
	tests := []struct {
		name, id, sql string
		code          envelope.Code
		message       string // exact when it has no "…"; else a fragment
		hint          string // a fragment; "-" means no hint
	}{
		{"absent id", "finance/nope", "SELECT 1", envelope.NotFound, "node not found: finance/nope", ""},
		{"escaping id", "../outside", "SELECT 1", envelope.NotFound, "node not found: ../outside", ""},
		{"not a dataset, before the guard", "finance/budget-rules", "DROP TABLE x", envelope.QueryForbidden,
			"query: finance/budget-rules is a node of type note, not a sqlite dataset", "payload_type sqlite"},
		{"branch", "finance/_index", "SELECT 1", envelope.QueryForbidden, "type branch", ""},
		{"stacked drop", ledgerID, "SELECT 1; DROP TABLE ledger", envelope.QueryForbidden, "exactly one statement", ""},
		{"semicolon drop", ledgerID, "SELECT * FROM ledger;DROP TABLE ledger", envelope.QueryForbidden, "exactly one statement", ""},
		{"attach", ledgerID, "ATTACH DATABASE '/tmp/x.db' AS x", envelope.QueryForbidden, "must start with SELECT or WITH", "tend"},
		{"attach inside", ledgerID, "SELECT * FROM ledger WHERE 'attach'", envelope.QueryForbidden, "forbidden keyword: ATTACH", ""},
		{"pragma", ledgerID, "PRAGMA writable_schema = 1", envelope.QueryForbidden, "must start with SELECT or WITH", ""},
		{"pragma function", ledgerID, "SELECT * FROM pragma_table_info('ledger')", envelope.QueryForbidden,
			"forbidden keyword: PRAGMA_TABLE_INFO", ""},
		{"pragma function in a subquery", ledgerID, "SELECT * FROM ledger WHERE memo IN (SELECT file FROM pragma_database_list)",
			envelope.QueryForbidden, "forbidden keyword: PRAGMA_DATABASE_LIST", ""},
		{"delete in a literal", ledgerID, "SELECT * FROM ledger WHERE memo = 'to delete'", envelope.QueryForbidden,
			"forbidden keyword: DELETE", ""},
		{"with delete", ledgerID, "WITH x AS (SELECT 1) DELETE FROM ledger WHERE 1", envelope.QueryForbidden, "forbidden keyword: DELETE", ""},
		{"with replace", ledgerID, "WITH x AS (SELECT 1) REPLACE INTO ledger(day) SELECT 'x' FROM x", envelope.QueryForbidden, "REPLACE", ""},
		{"vacuum into", ledgerID, "VACUUM INTO '/tmp/copy.db'", envelope.QueryForbidden, "must start with SELECT or WITH", ""},
		{"unknown table", ledgerID, "SELECT * FROM ledgr", envelope.QueryInvalid, "SQL error: no such table: ledgr",
			"Tables in this dataset: ledger."},
		{"unknown table lists views too", "finance/clients-2026", "SELECT * FROM client", envelope.QueryInvalid,
			"SQL error: no such table: client", "Tables in this dataset: clients, v_clients, v_visits, visits."},
		{"unknown column", ledgerID, "SELECT amout FROM ledger", envelope.QueryInvalid, "SQL error: no such column: amout",
			"Columns: ledger(day, account, port, amount, memo)."},
		{"unknown column, several tables", "finance/clients-2026", "SELECT nme FROM clients", envelope.QueryInvalid,
			"SQL error: no such column: nme", "Columns: clients(name, site); v_clients(name, site); v_visits(day, client); visits(day, client)."},
		{"syntax", ledgerID, "SELECT * FROM ledger WHERE", envelope.QueryInvalid, "SQL error: incomplete input", "-"},
		{"syntax near", ledgerID, "SELECT * FROM ledger WHERE day = = 1", envelope.QueryInvalid, `SQL error: near "=": syntax error`, "-"},
		{"unknown function", ledgerID, "SELECT nosuch(day) FROM ledger", envelope.QueryInvalid, "SQL error: no such function: nosuch", "-"},
		{"load_extension is not there", ledgerID, "SELECT load_extension('/tmp/x.so')", envelope.QueryInvalid,
			"SQL error: no such function: load_extension", "-"},
		{"arg count", ledgerID, "SELECT substr() FROM ledger", envelope.QueryInvalid, "wrong number of arguments", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Query(ctx, tt.id, tt.sql)
			e := refusal(t, err, tt.code)
			assert.Contains(t, e.Message, tt.message)
			switch tt.hint {
			case "":
			case "-":
				assert.Empty(t, e.Hint)
			default:
				assert.Contains(t, e.Hint, tt.hint)
			}
			switch tt.code {
			case envelope.QueryForbidden:
				assert.Equal(t, http.StatusForbidden, e.Code.HTTPStatus())
			case envelope.QueryInvalid:
				assert.Equal(t, http.StatusBadRequest, e.Code.HTTPStatus())
			}
		})
	}
	absent, err := v.Query(ctx, "finance/nope", "SELECT 1")
	assert.Nil(t, absent)
	assert.Equal(t, string(notFound("finance/nope").Body()), string(refusal(t, err, envelope.NotFound).Body()),
		"the one absent envelope")
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "query never changes the forest or a payload")
}

func TestQueryPayloadMissingAndOrder(t *testing.T) {
	t.Parallel()
	v, dir := writableFixture(t)
	ctx := context.Background()
	db := filepath.Join(dir, "finance", "ledger-2026.db")
	require.NoError(t, os.Rename(db, db+".away"))

	_, err := v.Query(ctx, ledgerID, "DELETE FROM ledger")
	refusal(t, err, envelope.QueryForbidden) // the guard runs before the payload is looked for
	_, err = v.Query(ctx, ledgerID, "SELECT 1")
	e := refusal(t, err, envelope.NotFound)
	assert.Equal(t, "payload missing: ledger-2026.db", e.Message)
	_, statErr := os.Stat(db)
	assert.True(t, os.IsNotExist(statErr), "a read-only open never creates the payload")

	// A payload path that leaves the forest is missing, never opened.
	outside := filepath.Join(filepath.Dir(dir), "outside.db")
	require.NoError(t, os.Rename(db+".away", outside))
	escaping := readPassport(t, dir, ledgerID)
	escaping.Front.Set("payload", "../../outside.db")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "finance", "ledger-2026.md"), escaping.Bytes(), 0o644))
	rec := recordOf(escaping)
	require.NoError(t, v.cat.Upsert(ctx, rec))
	_, err = v.Query(ctx, ledgerID, "SELECT 1")
	e = refusal(t, err, envelope.NotFound)
	assert.Equal(t, "payload missing: ../../outside.db", e.Message)
	assert.Contains(t, e.Hint, "never through ..", "the hint states the payload rule")

	// A file that is not a database is the passport's fault, not the SQL's
	// and not the engine's: a clear refusal, and nothing changes.
	escaping.Front.Set("payload", "ledger-2026.db")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "finance", "ledger-2026.md"), escaping.Bytes(), 0o644))
	require.NoError(t, v.cat.Upsert(ctx, recordOf(escaping)))
	require.NoError(t, os.WriteFile(db, []byte(strings.Repeat("not a database ", 100)), 0o644))
	_, err = call(t, v, "query", `{"id": "finance/ledger-2026", "sql": "SELECT 1 FROM ledger"}`)
	e = refusal(t, err, envelope.QueryForbidden)
	assert.Contains(t, e.Message, "not a SQLite database")
	before := testforest.TreeDigest(t, dir)
	_, err = call(t, v, "tend", `{"id": "finance/ledger-2026", "sql": "DELETE FROM ledger WHERE 1"}`)
	e = refusal(t, err, envelope.QueryForbidden)
	assert.Contains(t, e.Message, "not a SQLite database")
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
}

func TestQueryMovedAnswersMoved(t *testing.T) {
	t.Parallel()
	v, _ := writableFixture(t)
	ctx := context.Background()
	rec, ok, err := v.cat.Get(ctx, ledgerID)
	require.NoError(t, err)
	require.True(t, ok)
	rec.MovedFrom = []string{"finance/ledger-old"}
	require.NoError(t, v.cat.Upsert(ctx, rec))

	_, err = v.Query(ctx, "finance/ledger-old", "SELECT 1")
	e := refusal(t, err, envelope.Moved)
	to, _ := e.Get("moved_to")
	assert.Equal(t, ledgerID, to)
}

// TestQueryAllowList is F.54(a): under a host's allow-list SQLite's
// authorizer refuses any reach outside it, in any syntax, and the refusal
// never names the table.
func TestQueryAllowList(t *testing.T) {
	t.Parallel()
	v, dir := queryForest(t)
	ctx := context.Background()
	const id = "finance/clients-2026"
	host := sqlHost{tables: []string{"clients", "v_clients"}}
	before := testforest.TreeDigest(t, dir)

	res, err := v.query(ctx, id, "SELECT name FROM clients ORDER BY name", host)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"Acme"}, {"Borealis"}}, res.Rows)
	res, err = v.query(ctx, id, "SELECT * FROM V_CLIENTS", host)
	require.NoError(t, err, "names are case-insensitive")
	assert.Equal(t, 2, res.RowCount)

	for _, sql := range []string{
		"SELECT * FROM visits",
		"SELECT count(*) FROM visits",
		"SELECT * FROM clients WHERE name IN (SELECT client FROM visits)",
		"SELECT (SELECT max(day) FROM visits) FROM clients",
		"WITH v AS (SELECT * FROM visits) SELECT * FROM v",
		"WITH clients AS (SELECT * FROM visits) SELECT * FROM clients",
		"SELECT * FROM v_visits",
		"SELECT name FROM sqlite_master",
		"SELECT * FROM clients WHERE name IN (SELECT name FROM sqlite_schema)",
		"SELECT * FROM json_each('[1]')",
		"SELECT * FROM no_such_table",
	} {
		t.Run(sql, func(t *testing.T) {
			_, err := v.query(ctx, id, sql, host)
			e := refusal(t, err, envelope.QueryForbidden)
			assert.Equal(t, "query: the statement reaches outside the tables this access allows", e.Message)
			assert.Equal(t, "permitted tables: clients, v_clients; the SQLite schema is not readable under this access", e.Hint)
			body := string(e.Body())
			for _, name := range []string{"visits", "v_visits", "sqlite_master", "sqlite_schema", "no_such_table"} {
				assert.NotContains(t, body, name, "a refusal never names a table")
			}
		})
	}

	_, err = v.query(ctx, id, "SELECT * FROM clients WHERE name IN (SELECT name FROM pragma_table_list)", host)
	refusal(t, err, envelope.QueryForbidden)

	_, err = v.query(ctx, id, "SELECT nme FROM clients", host)
	e := refusal(t, err, envelope.QueryInvalid)
	assert.Equal(t, "Columns: clients(name, site); v_clients(name, site).", e.Hint, "the name hint is filtered")
	_, err = v.query(ctx, id, "SELECT * FROM clients", sqlHost{tables: []string{"clients", "gone"}})
	require.NoError(t, err)
	_, err = v.query(ctx, id, "SELECT * FROM gone", sqlHost{tables: []string{"clients", "gone"}})
	e = refusal(t, err, envelope.QueryInvalid)
	assert.Equal(t, "Tables in this dataset: clients.", e.Hint, "a granted name that does not exist is SQLite's to reject")

	res, err = v.query(ctx, id, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", sqlHost{})
	require.NoError(t, err, "without an allow-list there is no scope to hide the schema from")
	assert.Equal(t, [][]any{{"clients"}, {"visits"}}, res.Rows)
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
}

func TestQueryTimeout(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()
	forever := "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c"

	start := time.Now()
	_, err := v.query(ctx, ledgerID, forever, sqlHost{timeout: 150 * time.Millisecond})
	e := refusal(t, err, envelope.Timeout)
	assert.Less(t, time.Since(start), time.Second)
	assert.Contains(t, e.Message, "deadline")
	assert.Equal(t, http.StatusGatewayTimeout, e.Code.HTTPStatus())

	start = time.Now()
	_, err = v.Query(ctx, ledgerID, forever)
	refusal(t, err, envelope.Timeout)
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, SQLDeadline)
	assert.Less(t, took, SQLDeadline+2*time.Second)

	res, err := v.Query(ctx, ledgerID, "SELECT count(*) FROM ledger")
	require.NoError(t, err, "a later query is unaffected")
	assert.Equal(t, int64(330), res.Rows[0][0])
}

func TestQueryRemotePayload(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	// No fetchers: this test is about the cache copy, not the network.
	v := openT(t, dir, &Options{Now: plantClock, Fetcher: payload.Registry{}})
	ctx := context.Background()
	const uri = "s3://coop-archive/ledger-remote.db"
	src, err := os.ReadFile(filepath.Join(dir, "finance", "ledger-2026.db"))
	require.NoError(t, err)
	sum := sha256.Sum256(src)
	node := &forest.Node{ID: "finance/ledger-remote", Body: "# Ledger remote\n", Front: forest.NewFrontmatter(
		forest.Field{Key: "id", Value: "finance/ledger-remote"}, forest.Field{Key: "type", Value: "dataset"},
		forest.Field{Key: "title", Value: "Ledger remote"}, forest.Field{Key: "summary", Value: "The ledger kept in object storage."},
		forest.Field{Key: "created", Value: "2026-12-01"}, forest.Field{Key: "updated", Value: "2026-12-01"},
		forest.Field{Key: "payload", Value: uri}, forest.Field{Key: "payload_type", Value: "sqlite"},
		forest.Field{Key: "payload_hash", Value: hex.EncodeToString(sum[:])})}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "finance", "ledger-remote.md"), node.Bytes(), 0o644))

	_, err = v.Query(ctx, "finance/ledger-remote", "SELECT count(*) FROM ledger")
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "which this engine does not fetch")

	uriSum := sha256.Sum256([]byte(uri))
	cache := filepath.Join(dir, forest.DerivedDir, "payloads", hex.EncodeToString(uriSum[:])[:16]+"-ledger-remote.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(cache), 0o755))
	require.NoError(t, os.WriteFile(cache, src, 0o644))
	res, err := v.Query(ctx, "finance/ledger-remote", "SELECT count(*) FROM ledger")
	require.NoError(t, err, "a read goes through the hash-checked cache copy")
	assert.Equal(t, int64(330), res.Rows[0][0])

	require.NoError(t, os.WriteFile(cache, append(src, 0), 0o644))
	_, err = v.Query(ctx, "finance/ledger-remote", "SELECT count(*) FROM ledger")
	e = refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "which this engine does not fetch", "a copy failing its hash is dropped, then refetched")
	assert.NoFileExists(t, cache, "a copy that fails its hash is never kept")
}

func TestQueryBlobAndReferenceForest(t *testing.T) {
	t.Parallel()
	v, _ := queryForest(t)
	ctx := context.Background()
	_, err := v.Tend(ctx, "finance/clients-2026", "INSERT INTO clients VALUES ('Blobby', x'00010203')")
	require.NoError(t, err)
	res, err := v.Query(ctx, "finance/clients-2026", "SELECT name, site FROM clients WHERE name = 'Blobby'")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"Blobby", "<blob 4 bytes>"}}, res.Rows)

	ref := openT(t, testforest.Reference(t), &Options{ReadOnly: true})
	out, err := ref.Query(ctx, "sales/report-q1-2026",
		"SELECT region, SUM(value) AS total FROM sales GROUP BY region ORDER BY total DESC")
	require.NoError(t, err)
	assert.Equal(t, []string{"region", "total"}, out.Columns)
	assert.Equal(t, 5, out.RowCount)
}

func TestQueryWire(t *testing.T) {
	t.Parallel()
	v, _ := queryForest(t)
	out, err := call(t, v, "query", `{"id": "finance/ledger-2026", "sql": "SELECT account FROM ledger GROUP BY account"}`)
	require.NoError(t, err)
	assert.Equal(t, []any{"account"}, out["columns"])
	assert.Equal(t, float64(5), out["row_count"])
	_, hasTrunc := out["truncated"]
	assert.False(t, hasTrunc)

	_, err = call(t, v, "query", `{"id": "finance/clients-2026", "sql": "SELECT 1", "tables": ["clients"]}`)
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "unknown parameter 'tables'", "the allow-list is unreachable from the wire")

	sig, ok := LookupSignature("query")
	require.True(t, ok)
	assert.Equal(t, BudgetQuery, sig.Budget)
	assert.True(t, sig.ReadOnly)
	assert.Len(t, sig.Params, 2)
	assert.Contains(t, sig.Doc, "tend", "the description names the neighbour that writes")
}

func TestQueryConcurrentWithTend(t *testing.T) {
	t.Parallel()
	v, _ := queryForest(t)
	ctx := context.Background()
	done := make(chan error, 4)
	for range 4 {
		go func() {
			for range 10 {
				if _, err := v.Query(ctx, ledgerID, "SELECT count(*), sum(amount) FROM ledger"); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for i := range 5 {
		_, err := v.Tend(ctx, ledgerID, fmt.Sprintf("INSERT INTO ledger VALUES ('2026-12-0%d', 'ice', 'Salvador', -1, 'c')", i+1))
		require.NoError(t, err)
	}
	for range 4 {
		require.NoError(t, <-done)
	}
	res, err := v.Query(ctx, ledgerID, "SELECT count(*) FROM ledger")
	require.NoError(t, err)
	assert.Equal(t, int64(335), res.Rows[0][0])
}

// TestQueryRunsTheTextAsWritten: runQuery prepares the caller's text
// unchanged, so SQLite's errors speak of it, and the engine's layers
// behind the guard still refuse what the guard would.
func TestQueryRunsTheTextAsWritten(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	file := filepath.Join(dir, "finance", "ledger-2026.db")
	ctx := context.Background()
	st := sqlguard.Statement{SQL: "SELECT day FROM ledger", Verb: "SELECT"}
	res, cut, err := runQuery(ctx, file, st, sqlHost{})
	require.NoError(t, err)
	assert.Equal(t, QueryRowCap, cut.total)
	assert.True(t, res.Limited)
	assert.Equal(t, []string{"day"}, res.Columns)

	st = sqlguard.Statement{SQL: "SELECT day FROM ledger WHERE", Verb: "SELECT"}
	_, _, err = runQuery(ctx, file, st, sqlHost{})
	e := refusal(t, err, envelope.QueryInvalid)
	assert.Equal(t, "SQL error: incomplete input", e.Message, "the error is about what the caller wrote")

	st = sqlguard.Statement{SQL: "INSERT INTO ledger(day) VALUES ('x')", Verb: "SELECT"}
	_, _, err = runQuery(ctx, file, st, sqlHost{})
	e = refusal(t, err, envelope.QueryForbidden)
	assert.Equal(t, "query: the statement writes, and query only reads", e.Message, "the authorizer backs the guard")

	st = sqlguard.Statement{SQL: "VACUUM", Verb: "SELECT"}
	_, _, err = runQuery(ctx, file, st, sqlHost{})
	e = refusal(t, err, envelope.QueryForbidden)
	assert.Contains(t, e.Message, "would write", "VACUUM asks no authorizer; SQLite's read-only verdict catches it")
}

// TestQueryDoubleQuotedStrings: a "text" that names no column is a string,
// as in the reference's SQLite, so a small model's WHERE account = "fuel"
// answers; a "name" that is a column stays the column.
func TestQueryDoubleQuotedStrings(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()
	tests := []struct {
		name, sql string
		want      [][]any
	}{
		{"string where no column has the name", `SELECT COUNT(*) FROM ledger WHERE account = "fuel"`, [][]any{{int64(66)}}},
		{"single quotes as ever", `SELECT COUNT(*) FROM ledger WHERE account = 'fuel'`, [][]any{{int64(66)}}},
		{"a column's name stays the column", `SELECT COUNT(*) FROM ledger WHERE "account" = account`, [][]any{{int64(330)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := v.Query(ctx, ledgerID, tt.sql)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Rows)
		})
	}
}
