// SPDX-License-Identifier: Apache-2.0

package sqlguard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func TestQueryAccepts(t *testing.T) {
	tests := []struct {
		name, sql string
		wantSQL   string
		wantVerb  string
	}{
		{name: "plain", sql: "SELECT * FROM ledger", wantSQL: "SELECT * FROM ledger", wantVerb: "SELECT"},
		{name: "trailing semicolons and space", sql: "  select 1 ;;;  ", wantSQL: "select 1", wantVerb: "SELECT"},
		{name: "own limit kept as written", sql: "SELECT * FROM ledger LIMIT 5", wantSQL: "SELECT * FROM ledger LIMIT 5", wantVerb: "SELECT"},
		{name: "limit in a literal is left alone", sql: "SELECT * FROM t WHERE x = 'LIMIT 5'",
			wantSQL: "SELECT * FROM t WHERE x = 'LIMIT 5'", wantVerb: "SELECT"},
		{name: "limit in a comment is left alone", sql: "SELECT * FROM t -- LIMIT 5",
			wantSQL: "SELECT * FROM t -- LIMIT 5", wantVerb: "SELECT"},
		{name: "column named like a keyword", sql: "SELECT updated, created_at, deleted_flag FROM t", wantVerb: "SELECT"},
		{name: "comment then semicolon", sql: "SELECT 1 /* a */;", wantSQL: "SELECT 1 /* a */", wantVerb: "SELECT"},
		{name: "with", sql: "WITH x AS (SELECT 1) SELECT * FROM x", wantVerb: "WITH"},
		{name: "with recursive", sql: "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT n FROM c",
			wantVerb: "WITH"},
		{name: "with materialized, several", sql: "WITH x AS NOT MATERIALIZED (SELECT 1), y(a) AS MATERIALIZED (SELECT 2) SELECT * FROM x, y",
			wantVerb: "WITH"},
		{name: "with values", sql: "WITH x AS (SELECT 1) VALUES (1)", wantVerb: "WITH"},
		{name: "replace as a function", sql: "SELECT replace(memo, 'a', 'b') FROM ledger", wantVerb: "SELECT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Query(tt.sql)
			require.NoError(t, err)
			if tt.wantSQL != "" {
				assert.Equal(t, tt.wantSQL, s.SQL, "the text is never rewritten")
			}
			assert.Equal(t, tt.wantVerb, s.Verb)
		})
	}
}

// TestQueryRefuses is the query injection suite of C.5 (F.11-style).
func TestQueryRefuses(t *testing.T) {
	tests := []struct {
		name, sql string
		mention   string
	}{
		{"empty", "", "an empty statement"},
		{"only semicolons", " ;; ", "an empty statement"},
		{"stacked drop", "SELECT 1; DROP TABLE ledger", "exactly one statement"},
		{"semicolon drop no space", "SELECT * FROM ledger;DROP TABLE ledger;", "exactly one statement"},
		{"semicolon in a literal", "SELECT ';' AS s", "exactly one statement"},
		{"semicolon in a comment", "SELECT 1 -- a;b", "exactly one statement"},
		{"parenthesis first", "(SELECT 1)", `"(SELECT"`},
		{"comment first", "/* hi */ SELECT 1", `"/*"`},
		{"no space after select", "SELECT*FROM ledger", `"SELECT*FROM"`},
		{"delete", "DELETE FROM ledger WHERE 1", `"DELETE"`},
		{"values first", "VALUES (1)", `"VALUES"`},
		{"attach first", "ATTACH DATABASE 'x.db' AS x", `"ATTACH"`},
		{"vacuum into", "VACUUM INTO '/tmp/copy.db'", `"VACUUM"`},
		{"pragma first", "PRAGMA writable_schema = 1", `"PRAGMA"`},
		{"keyword in a literal", "SELECT * FROM ledger WHERE memo = 'to delete'", "forbidden keyword: DELETE"},
		{"keyword mixed case in a literal", "SELECT * FROM ledger WHERE memo = 'UpDaTe'", "forbidden keyword: UPDATE"},
		{"keyword in a comment", "SELECT 1 -- drop", "forbidden keyword: DROP"},
		{"pragma in a block comment", "SELECT 1 /* PRAGMA writable_schema=1 */", "forbidden keyword: PRAGMA"},
		{"attach after select", "SELECT 1 WHERE 0 ATTACH", "forbidden keyword: ATTACH"},
		{"vacuum after select", "SELECT 1 VACUUM", "forbidden keyword: VACUUM"},
		{"pragma function", "SELECT * FROM pragma_table_info('ledger')", "forbidden keyword: PRAGMA_TABLE_INFO"},
		{"pragma function in a subquery", "SELECT * FROM ledger WHERE account IN (SELECT name FROM pragma_table_list)",
			"forbidden keyword: PRAGMA_TABLE_LIST"},
		{"pragma function quoted", `SELECT * FROM "PRAGMA_database_list"`, "forbidden keyword: PRAGMA_DATABASE_LIST"},
		{"pragma function bracketed", "SELECT * FROM [pragma_database_list]", "forbidden keyword: PRAGMA_DATABASE_LIST"},
		{"with delete", "WITH x AS (SELECT 1) DELETE FROM ledger WHERE 1", "forbidden keyword: DELETE"},
		{"with insert", "WITH x AS (SELECT 1) INSERT INTO ledger SELECT * FROM x", "forbidden keyword: INSERT"},
		{"with replace", "WITH x AS (SELECT 1) REPLACE INTO ledger SELECT * FROM x", "a REPLACE, not a SELECT"},
		{"with replace, cte named like a keyword", "WITH \"select\" AS (SELECT 1) REPLACE INTO t SELECT * FROM \"select\"",
			"a REPLACE, not a SELECT"},
		{"with nothing after", "WITH x AS (SELECT 1)", "no SELECT"},
		{"upsert", "SELECT 1 ON CONFLICT DO UPDATE SET a = 1", "forbidden keyword: UPDATE"},
		{"create", "SELECT 1 WHERE 0 OR (CREATE)", "forbidden keyword: CREATE"},
		{"reindex", "SELECT reindex FROM t", "forbidden keyword: REINDEX"},
		{"detach", "SELECT 1 -- detach x", "forbidden keyword: DETACH"},
		{"alter", "SELECT 'ALTER'", "forbidden keyword: ALTER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Query(tt.sql)
			require.Error(t, err)
			assert.Equal(t, envelope.QueryForbidden, envelope.CodeOf(err))
			assert.Contains(t, err.Error(), tt.mention)
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			assert.NotEmpty(t, e.Hint, "every refusal teaches the next move")
		})
	}
}

func TestTendAccepts(t *testing.T) {
	tests := []struct {
		name, sql, verb string
	}{
		{"insert", "INSERT INTO ledger VALUES ('2026-12-01', 'fuel', 'Salvador', -10.5, 'diesel');", "INSERT"},
		{"multi-row insert", "insert into t values (1), (2), (3)", "INSERT"},
		{"insert or replace", "INSERT OR REPLACE INTO t VALUES (1)", "INSERT"},
		{"upsert", "INSERT INTO t(a, b) VALUES (1, 2) ON CONFLICT(a) DO UPDATE SET b = excluded.b", "INSERT"},
		{"insert select", "INSERT INTO t SELECT * FROM u", "INSERT"},
		{"insert returning", "INSERT INTO t VALUES (1) RETURNING *", "INSERT"},
		{"update", "UPDATE ledger SET memo = 'x' WHERE rowid = 1", "UPDATE"},
		{"update from", "UPDATE t SET a = u.a FROM (SELECT * FROM u) AS u WHERE t.id = u.id", "UPDATE"},
		{"delete", "DELETE FROM ledger WHERE account = 'ice'", "DELETE"},
		{"delete where in subquery", "DELETE FROM t WHERE id IN (SELECT id FROM u WHERE x)", "DELETE"},
		{"lower-case where", "delete from t where 1", "DELETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Tend(tt.sql)
			require.NoError(t, err)
			assert.Equal(t, tt.verb, s.Verb)
			assert.False(t, strings.HasSuffix(s.SQL, ";"))
		})
	}
}

// TestTendRefuses is the tend guard suite of C.10 (F.11).
func TestTendRefuses(t *testing.T) {
	tests := []struct {
		name, sql string
		mention   string
	}{
		{"select", "SELECT * FROM ledger", `got "SELECT"`},
		{"with insert", "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", `got "WITH"`},
		{"with delete", "WITH x AS (SELECT 1) DELETE FROM t WHERE 1", `got "WITH"`},
		{"replace into", "REPLACE INTO t VALUES (1)", `got "REPLACE"`},
		{"create", "CREATE TABLE x(a)", `got "CREATE"`},
		{"drop", "DROP TABLE ledger", `got "DROP"`},
		{"alter", "ALTER TABLE ledger ADD COLUMN x", `got "ALTER"`},
		{"begin", "BEGIN", `got "BEGIN"`},
		{"pragma", "PRAGMA writable_schema = ON", `got "PRAGMA"`},
		{"attach", "ATTACH 'x.db' AS x", `got "ATTACH"`},
		{"vacuum into", "VACUUM INTO 'copy.db'", `got "VACUUM"`},
		{"empty", "  ", "an empty statement"},
		{"stacked", "DELETE FROM ledger WHERE 1; DROP TABLE ledger", "exactly one statement"},
		{"semicolon in literal", "INSERT INTO t VALUES (';')", "exactly one statement"},
		{"drop in literal", "INSERT INTO t VALUES ('drop')", "forbidden keyword: DROP"},
		{"begin in comment", "INSERT INTO t VALUES (1) -- begin", "forbidden keyword: BEGIN"},
		{"commit", "UPDATE t SET a = 'commit' WHERE 1", "forbidden keyword: COMMIT"},
		{"transaction", "DELETE FROM transaction_log WHERE 1 AND 'transaction'", "forbidden keyword: TRANSACTION"},
		{"pragma function", "UPDATE t SET a = 1 WHERE b IN (SELECT name FROM pragma_table_info('t'))",
			"forbidden keyword: PRAGMA_TABLE_INFO"},
		{"attach inside", "INSERT INTO t SELECT 1 WHERE 'attach'", "forbidden keyword: ATTACH"},
		{"vacuum inside", "DELETE FROM t WHERE vacuum = 1", "forbidden keyword: VACUUM"},
		{"delete without where", "DELETE FROM ledger", "DELETE without a WHERE"},
		{"update without where", "UPDATE ledger SET memo = ''", "UPDATE without a WHERE"},
		{"where only in a comment", "DELETE FROM ledger -- WHERE id = 1", "DELETE without a WHERE"},
		{"where only in a block comment", "DELETE FROM ledger /* WHERE id = 1 */", "DELETE without a WHERE"},
		{"where only in a literal", "UPDATE ledger SET memo = 'WHERE'", "UPDATE without a WHERE"},
		{"where only as a quoted name", `UPDATE ledger SET "where" = 1`, "UPDATE without a WHERE"},
		{"where only in a subquery", "UPDATE ledger SET memo = (SELECT memo FROM ledger WHERE rowid = 1)",
			"UPDATE without a WHERE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Tend(tt.sql)
			require.Error(t, err)
			assert.Equal(t, envelope.QueryForbidden, envelope.CodeOf(err))
			assert.Contains(t, err.Error(), tt.mention)
		})
	}
}

func TestForbiddenKeywordData(t *testing.T) {
	_, err := Query("SELECT 'x' -- Pragma_Foo")
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "forbidden keyword: PRAGMA_FOO", e.Message)
	kw, ok := e.Get("keyword")
	require.True(t, ok)
	assert.Equal(t, "PRAGMA_FOO", kw)
}

func TestOnlyTrivia(t *testing.T) {
	assert.True(t, OnlyTrivia(""))
	assert.True(t, OnlyTrivia("  -- c\n /* d */ "))
	assert.True(t, OnlyTrivia("/* open"))
	assert.False(t, OnlyTrivia(" SELECT 1"))
	assert.False(t, OnlyTrivia("-- c\nx"))
}

func TestLex(t *testing.T) {
	sql := `SELECT 'it''s', "a""b", [c d], x'0F', 1.5e+3, 0x1e+2, :p, ?1 -- end`
	var got []string
	for _, tok := range lex(sql) {
		got = append(got, sql[tok.start:tok.end])
	}
	assert.Equal(t, []string{"SELECT", `'it''s'`, ",", `"a""b"`, ",", "[c d]", ",", "x'0F'", ",", "1.5e+3", ",",
		"0x1e", "+", "2", ",", ":p", ",", "?1", "-- end"}, got)
	for _, tok := range lex("SELECT 'open") {
		assert.LessOrEqual(t, tok.end, len("SELECT 'open"))
	}
}

// FuzzGuard checks the guard's invariants on arbitrary text: no panic,
// and whatever it accepts obeys the rules it claims to enforce.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM ledger", "SELECT 1; DROP TABLE x", "WITH x AS (SELECT 1) SELECT * FROM x -- c",
		"SELECT * FROM pragma_table_info('t')", "DELETE FROM t WHERE 1", "UPDATE t SET a = 'WHERE'",
		"INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE SET a = 2", "SELECT 'a /* b' /* c", "[", "'", "x'",
		"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT n FROM c LIMIT 5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		toks := lex(sql)
		prev := 0
		for _, tok := range toks {
			if tok.start < prev || tok.end <= tok.start || tok.end > len(sql) {
				t.Fatalf("token [%d,%d) out of order or bounds in %q", tok.start, tok.end, sql)
			}
			prev = tok.end
		}
		if s, err := Query(sql); err == nil {
			checkAccepted(t, s, queryForbidden)
			if s.Verb != "SELECT" && s.Verb != "WITH" {
				t.Fatalf("query accepted verb %q", s.Verb)
			}
		} else if envelope.CodeOf(err) != envelope.QueryForbidden {
			t.Fatalf("query refusal with code %q", envelope.CodeOf(err))
		}
		if s, err := Tend(sql); err == nil {
			checkAccepted(t, s, tendForbidden)
			switch s.Verb {
			case "INSERT":
			case "UPDATE", "DELETE":
				if !topLevelWhere(s.SQL, code(lex(s.SQL))) {
					t.Fatalf("tend accepted %s without WHERE: %q", s.Verb, s.SQL)
				}
			default:
				t.Fatalf("tend accepted verb %q", s.Verb)
			}
		} else if envelope.CodeOf(err) != envelope.QueryForbidden {
			t.Fatalf("tend refusal with code %q", envelope.CodeOf(err))
		}
	})
}

func checkAccepted(t *testing.T, s Statement, forbidden interface{ MatchString(string) bool }) {
	t.Helper()
	if strings.Contains(s.SQL, ";") {
		t.Fatalf("accepted a second statement: %q", s.SQL)
	}
	if forbidden.MatchString(s.SQL) {
		t.Fatalf("accepted a forbidden keyword: %q", s.SQL)
	}
	if s.SQL != Normalize(s.SQL) {
		t.Fatalf("accepted text %q is not normalized", s.SQL)
	}
}
