// SPDX-License-Identifier: Apache-2.0

package sqlguard

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// payload creates a small database: a granted table, a withheld one, views
// over each, and a table whose trigger writes the withheld one.
func payload(t *testing.T) *sqlite3.Conn {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.db")
	conn, err := sqlite3.Open("file:" + filepath.ToSlash(path))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	require.NoError(t, conn.Exec(`
		CREATE TABLE ledger(day TEXT, amount REAL);
		CREATE TABLE secret(k TEXT, v TEXT);
		CREATE TABLE seq(id INTEGER PRIMARY KEY AUTOINCREMENT, x);
		CREATE TABLE audited(x);
		CREATE TRIGGER audit AFTER INSERT ON audited BEGIN INSERT INTO secret VALUES (new.x, 'seen'); END;
		CREATE VIEW v_secret AS SELECT * FROM secret;
		CREATE VIEW v_ledger AS SELECT * FROM ledger;
		INSERT INTO ledger VALUES ('2026-01-01', 1), ('2026-01-02', 2);
		INSERT INTO secret VALUES ('a', 'b');
		INSERT INTO seq(x) VALUES (1);`))
	return conn
}

// TestAuthorizer is the allow-list suite of C.5.3 (F.54(a)): whatever
// the syntax, SQLite asks the policy about every table it touches.
func TestAuthorizer(t *testing.T) {
	ledgerOnly := []string{"ledger"}
	tests := []struct {
		name   string
		write  bool
		tables []string
		sql    string
		want   Reason
	}{
		// Reads under an allow-list.
		{"granted table", false, ledgerOnly, "SELECT * FROM ledger", Allowed},
		{"granted table, other case", false, []string{"LEDGER"}, "SELECT day FROM Ledger", Allowed},
		{"aggregate over the granted table", false, ledgerOnly, "SELECT count(*), sum(amount) FROM ledger", Allowed},
		{"withheld table", false, ledgerOnly, "SELECT * FROM secret", OutsideList},
		{"withheld table, no column read", false, ledgerOnly, "SELECT count(*) FROM secret", OutsideList},
		{"withheld table, constant", false, ledgerOnly, "SELECT 1 FROM secret", OutsideList},
		{"withheld table, schema-qualified", false, ledgerOnly, "SELECT * FROM main.secret", OutsideList},
		{"subquery in WHERE", false, ledgerOnly, "SELECT * FROM ledger WHERE day IN (SELECT k FROM secret)", OutsideList},
		{"EXISTS subquery", false, ledgerOnly, "SELECT 1 FROM ledger WHERE EXISTS (SELECT 1 FROM secret)", OutsideList},
		{"scalar subquery", false, ledgerOnly, "SELECT (SELECT v FROM secret) FROM ledger", OutsideList},
		{"join", false, ledgerOnly, "SELECT * FROM ledger JOIN secret ON 1", OutsideList},
		{"CTE", false, ledgerOnly, "WITH s AS (SELECT * FROM secret) SELECT * FROM s", OutsideList},
		{"CTE named like the granted table", false, ledgerOnly, "WITH ledger AS (SELECT * FROM secret) SELECT * FROM ledger", OutsideList},
		{"recursive CTE over granted", false, ledgerOnly,
			"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < 3) SELECT n, (SELECT count(*) FROM ledger) FROM c", Allowed},
		{"view not granted", false, ledgerOnly, "SELECT * FROM v_ledger", OutsideList},
		{"granted view reading a withheld table", false, []string{"v_secret"}, "SELECT * FROM v_secret", OutsideList},
		{"granted view over a granted table", false, []string{"v_ledger", "ledger"}, "SELECT * FROM v_ledger", Allowed},
		{"schema table", false, ledgerOnly, "SELECT name FROM sqlite_master", Internal},
		{"schema table, new name", false, ledgerOnly, "SELECT sql FROM sqlite_schema", Internal},
		{"schema table, granted by name", false, []string{"ledger", "sqlite_master"}, "SELECT name FROM sqlite_master", Internal},
		{"schema table in a subquery", false, ledgerOnly, "SELECT * FROM ledger WHERE day IN (SELECT name FROM sqlite_master)", Internal},
		{"pragma function", false, ledgerOnly, "SELECT * FROM pragma_table_info('secret')", Pragma},
		{"pragma function in a subquery", false, ledgerOnly, "SELECT * FROM ledger WHERE day IN (SELECT name FROM pragma_table_list)", Pragma},
		{"table-valued function not granted", false, ledgerOnly, "SELECT * FROM json_each('[1]')", OutsideList},
		{"pragma", false, ledgerOnly, "PRAGMA writable_schema = 1", Pragma},
		{"attach", false, ledgerOnly, "ATTACH ':memory:' AS x", Attach},
		{"write in a read", false, ledgerOnly, "INSERT INTO ledger VALUES ('d', 1)", Write},
		{"create", false, ledgerOnly, "CREATE TABLE x(a)", Schema},
		{"begin", false, ledgerOnly, "BEGIN", Transaction},

		// Reads without an allow-list: the payload is the caller's.
		{"no list: any table", false, nil, "SELECT * FROM secret", Allowed},
		{"no list: view", false, nil, "SELECT * FROM v_secret", Allowed},
		{"no list: schema is readable", false, nil, "SELECT name FROM sqlite_master", Allowed},
		{"no list: table-valued function", false, nil, "SELECT * FROM json_each('[1]')", Allowed},
		{"no list: pragma function", false, nil, "SELECT * FROM pragma_table_info('secret')", Pragma},
		{"no list: pragma", false, nil, "PRAGMA writable_schema = 1", Pragma},
		{"no list: write in a read", false, nil, "DELETE FROM ledger WHERE 1", Write},
		{"no list: upsert in a read", false, nil, "INSERT INTO ledger VALUES (1, 2) ON CONFLICT DO NOTHING", Write},
		{"no list: drop", false, nil, "DROP TABLE ledger", Schema},
		{"no list: detach", false, nil, "DETACH x", Attach},

		// Writes under an allow-list: writing is a way of reading.
		{"tend granted insert", true, ledgerOnly, "INSERT INTO ledger VALUES ('d', 1)", Allowed},
		{"tend granted update", true, ledgerOnly, "UPDATE ledger SET amount = amount + 1 WHERE day = 'd'", Allowed},
		{"tend insert select from withheld", true, ledgerOnly, "INSERT INTO ledger SELECT k, 1 FROM secret", OutsideList},
		{"tend update reading withheld", true, ledgerOnly,
			"UPDATE ledger SET amount = (SELECT count(*) FROM secret) WHERE 1", OutsideList},
		{"tend delete where reading withheld", true, ledgerOnly,
			"DELETE FROM ledger WHERE day IN (SELECT k FROM secret)", OutsideList},
		{"tend delete withheld", true, ledgerOnly, "DELETE FROM secret WHERE 1", OutsideList},
		{"tend trigger writes withheld", true, []string{"audited"}, "INSERT INTO audited VALUES (1)", OutsideList},
		{"tend internal table", true, []string{"ledger", "sqlite_sequence"}, "UPDATE sqlite_sequence SET seq = 0 WHERE 1", Internal},

		// Writes without an allow-list.
		{"tend no list: any table", true, nil, "INSERT INTO ledger SELECT k, 1 FROM secret", Allowed},
		{"tend no list: trigger", true, nil, "INSERT INTO audited VALUES (1)", Allowed},
		{"tend no list: internal table write", true, nil, "UPDATE sqlite_sequence SET seq = 0 WHERE 1", Internal},
		{"tend no list: internal table delete", true, nil, "DELETE FROM sqlite_sequence WHERE 1", Internal},
		{"tend no list: pragma function", true, nil, "DELETE FROM ledger WHERE day IN (SELECT name FROM pragma_table_list)", Pragma},
		{"tend no list: create", true, nil, "CREATE TABLE x(a)", Schema},
		{"tend no list: create index", true, nil, "CREATE INDEX i ON ledger(day)", Schema},
		{"tend no list: alter", true, nil, "ALTER TABLE ledger ADD COLUMN x", Schema},
		{"tend no list: savepoint", true, nil, "SAVEPOINT s", Transaction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := payload(t)
			a := NewAuthorizer(tt.write, tt.tables)
			require.NoError(t, conn.SetAuthorizer(a.Authorize))
			st, _, err := conn.Prepare(tt.sql)
			if st != nil {
				st.Close()
			}
			require.NoError(t, conn.SetAuthorizer(nil))
			assert.Equal(t, tt.want, a.Denied(), "reason")
			if tt.want == Allowed {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, sqlite3.AUTH), "a denial is SQLITE_AUTH, got %v", err)
		})
	}
}

func TestAuthorizerFunctionsAndReset(t *testing.T) {
	a := NewAuthorizer(true, nil)
	for _, fn := range []string{"load_extension", "LOAD_EXTENSION", "fts3_tokenizer", "writefile", "readfile"} {
		assert.Equal(t, sqlite3.AUTH_DENY, a.Authorize(sqlite3.AUTH_FUNCTION, "", fn, "", ""), fn)
	}
	assert.Equal(t, Function, a.Denied())
	a.Reset()
	assert.Equal(t, Allowed, a.Denied())
	assert.Equal(t, sqlite3.AUTH_OK, a.Authorize(sqlite3.AUTH_FUNCTION, "", "upper", "", ""))
	assert.Equal(t, sqlite3.AUTH_DENY, a.Authorize(sqlite3.AUTH_READ, "t", "c", "temp", ""), "other schemas are out")
	assert.Equal(t, Attach, a.Denied(), "the first denial is kept")
	a.Authorize(sqlite3.AUTH_PRAGMA, "x", "", "", "")
	assert.Equal(t, Attach, a.Denied())
}

func TestAuthorizerPermitsFoldsASCIIOnly(t *testing.T) {
	a := NewAuthorizer(false, []string{"Ledger", "äpfel"})
	assert.True(t, a.Restricted())
	assert.True(t, a.Permits("LEDGER"))
	assert.True(t, a.Permits("äpfel"))
	assert.False(t, a.Permits("Äpfel"), "SQLite folds ASCII only, and so does the allow-list")
	assert.False(t, a.Permits("sqlite_master"))
	open := NewAuthorizer(false, []string{})
	assert.False(t, open.Restricted(), "an empty list is no list")
	assert.True(t, open.Permits("anything"))
}

func TestReasonNeverNamesATable(t *testing.T) {
	for r := Allowed; r <= Function; r++ {
		assert.NotContains(t, r.String(), "secret")
		assert.NotEmpty(t, r.String())
	}
}
