// SPDX-License-Identifier: Apache-2.0

// Package sqlguard judges the SQL that the query and tend primitives run
// over a dataset's SQLite payload (spec C.5, C.10).
//
// Defence is layered, and no layer trusts another:
//
//   - the textual guard of the specification (Query, Tend): one
//     statement, the leading keyword, forbidden keywords anywhere in the
//     text (string literals and comments included, by design), and for
//     tend the WHERE that a mass update or delete lacks;
//   - a lexer that finds what the text alone cannot: the verb a WITH
//     statement really ends in, a WHERE that is code and not a comment;
//   - the Authorizer, which SQLite consults at prepare time for every
//     table, column, function and pragma the statement actually touches
//     (subqueries, CTEs, views and table-valued functions alike), and
//     which enforces a host's table allow-list.
//
// The caller adds the last layers: a read-only connection for query, and
// SQLite's own verdict that the prepared statement is read-only.
//
// The query row cap is not here: the engine enforces it by counting the
// rows it steps, because any reading of the caller's text (a LIMIT in a
// string literal or a comment) can be fooled.
package sqlguard

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// RowCap is the most rows one query answers (C.5): the engine stops
// stepping there, whatever LIMIT the text holds.
const RowCap = 200

// Statement is a caller's statement that passed the textual guard.
type Statement struct {
	// SQL is the normalized text: trimmed, trailing semicolons removed.
	// It is what SQLite is asked to judge.
	SQL string
	// Verb is the leading keyword, upper-cased: SELECT or WITH for query,
	// INSERT, UPDATE or DELETE for tend (the commit subject's VERB).
	Verb string
}

var (
	queryForbidden = regexp.MustCompile(`(?i)\b(?:ATTACH|DETACH|PRAGMA|INSERT|UPDATE|DELETE|DROP|ALTER|CREATE|VACUUM|REINDEX)\b|\bpragma_\w*`)
	tendForbidden  = regexp.MustCompile(`(?i)\b(?:ATTACH|DETACH|PRAGMA|DROP|ALTER|CREATE|VACUUM|REINDEX|BEGIN|COMMIT|TRANSACTION)\b|\bpragma_\w*`)
)

// Normalize trims sql, strips every trailing semicolon and trims again
// (C.5 step 3). Any semicolon left means more than one statement.
func Normalize(sql string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(sql), ";"))
}

// Query judges the text of a query statement in the order of C.5 steps
// 3-5. A refusal is E_QUERY_FORBIDDEN naming the rule and what arrived.
// Step 6 (the row cap) is the engine's: it counts rows, it reads no text.
func Query(sql string) (Statement, error) {
	s := Statement{SQL: Normalize(sql)}
	if err := oneStatement("query", s.SQL); err != nil {
		return s, err
	}
	s.Verb = leadingWord(s.SQL)
	if s.Verb != "SELECT" && s.Verb != "WITH" {
		return s, refuse(fmt.Sprintf("query: the statement must start with SELECT or WITH, got %s", describeWord(s.Verb)),
			"query runs one read-only SELECT (or WITH … SELECT) and the keyword must come first, before any "+
				"comment or '('; writes go through tend")
	}
	if m := queryForbidden.FindString(s.SQL); m != "" {
		return s, forbiddenKeyword(m, "query refuses ATTACH, DETACH, PRAGMA, INSERT, UPDATE, DELETE, DROP, ALTER, "+
			"CREATE, VACUUM, REINDEX and any pragma_* name anywhere in the text, string literals and comments "+
			"included (a column such as updated is fine); writes go through tend")
	}
	toks := code(lex(s.SQL))
	if verb := mainVerb(s.SQL, toks); verb != "SELECT" && verb != "VALUES" {
		what := "no SELECT after its common table expressions"
		if verb != "" {
			what = "a " + verb + ", not a SELECT, after its common table expressions"
		}
		return s, refuse("query: the WITH statement has "+what+"; query runs reads only",
			"end the WITH in a SELECT; writes go through tend (one INSERT, UPDATE or DELETE, without WITH)")
	}
	return s, nil
}

// Tend judges the text of a tend statement in the order of C.10 steps
// 2-5. A refusal is E_QUERY_FORBIDDEN naming the rule and what arrived.
func Tend(sql string) (Statement, error) {
	s := Statement{SQL: Normalize(sql)}
	if err := oneStatement("tend", s.SQL); err != nil {
		return s, err
	}
	s.Verb = leadingWord(s.SQL)
	switch s.Verb {
	case "INSERT", "UPDATE", "DELETE":
	default:
		return s, refuse(fmt.Sprintf("tend: the statement must start with INSERT, UPDATE or DELETE, got %s", describeWord(s.Verb)),
			"reads go through query and schema changes are the Gardener's (tend never runs DDL); WITH … and "+
				"REPLACE INTO are refused too: write INSERT OR REPLACE or INSERT … ON CONFLICT DO UPDATE")
	}
	if m := tendForbidden.FindString(s.SQL); m != "" {
		return s, forbiddenKeyword(m, "tend refuses ATTACH, DETACH, PRAGMA, DROP, ALTER, CREATE, VACUUM, REINDEX, "+
			"BEGIN, COMMIT, TRANSACTION and any pragma_* name anywhere in the text, string literals and comments "+
			"included; tend runs one INSERT, UPDATE or DELETE in a transaction of its own")
	}
	toks := code(lex(s.SQL))
	if s.Verb != "INSERT" && !topLevelWhere(s.SQL, toks) {
		return s, refuse(fmt.Sprintf("tend: %s without a WHERE clause is refused (it would touch every row)", s.Verb),
			"add a WHERE naming the rows to change; rewriting a whole table is the Gardener's job, not tend's")
	}
	return s, nil
}

// OnlyTrivia reports whether s holds nothing but whitespace and comments:
// the tail SQLite leaves after preparing exactly one statement.
func OnlyTrivia(s string) bool { return len(code(lex(s))) == 0 }

// oneStatement is C.5 step 3: after normalization no ';' may remain,
// textually (a ';' inside a literal is refused too).
func oneStatement(op, sql string) error {
	if strings.Contains(sql, ";") {
		return refuse(op+" takes exactly one statement; the SQL still holds ';' after its trailing semicolons were removed",
			"send one statement per call; a ';' inside a string literal is refused too (write char(59) instead)")
	}
	return nil
}

// leadingWord is the first whitespace-delimited token, upper-cased.
func leadingWord(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(f[0])
}

func describeWord(w string) string {
	if w == "" {
		return "an empty statement"
	}
	const limit = 40
	if len(w) > limit {
		w = w[:limit] + "…"
	}
	return strconv.Quote(w)
}

func forbiddenKeyword(match, hint string) error {
	return refuse("forbidden keyword: "+strings.ToUpper(match), hint).With("keyword", strings.ToUpper(match))
}

func refuse(msg, hint string) *envelope.Error {
	return envelope.New(envelope.QueryForbidden, msg, hint)
}

// verbs are the keywords that begin the main statement of a WITH.
var verbs = map[string]bool{"SELECT": true, "VALUES": true, "INSERT": true, "REPLACE": true, "UPDATE": true, "DELETE": true}

// mainVerb is the keyword that begins the statement proper: the first
// token for a plain statement; for WITH, the token after the common table
// expressions, each `name [(columns)] AS [NOT] [MATERIALIZED] (body)`.
// When the shape is not recognized it falls back to the first verb at
// parenthesis depth zero; SQLite rejects such text anyway.
func mainVerb(sql string, toks []token) string {
	if len(toks) == 0 {
		return ""
	}
	if upperWord(sql, toks[0]) != "WITH" {
		return upperWord(sql, toks[0])
	}
	if i, ok := skipCTEs(sql, toks, 1); ok && i < len(toks) {
		return upperWord(sql, toks[i])
	}
	depth := 0
	for _, t := range toks[1:] {
		depth = nest(sql, t, depth)
		if w := upperWord(sql, t); depth == 0 && verbs[w] {
			return w
		}
	}
	return ""
}

// skipCTEs walks the CTE list starting at toks[i] and returns the index of
// the first token after it.
func skipCTEs(sql string, toks []token, i int) (int, bool) {
	if i < len(toks) && upperWord(sql, toks[i]) == "RECURSIVE" {
		i++
	}
	for {
		if i >= len(toks) || (toks[i].kind != kWord && toks[i].kind != kQuoted && toks[i].kind != kString) {
			return i, false
		}
		i++ // the name
		if isPunct(sql, toks, i, '(') {
			if i = skipParens(sql, toks, i); i < 0 {
				return 0, false
			}
		}
		if i >= len(toks) || upperWord(sql, toks[i]) != "AS" {
			return i, false
		}
		i++
		if i < len(toks) && upperWord(sql, toks[i]) == "NOT" {
			i++
		}
		if i < len(toks) && upperWord(sql, toks[i]) == "MATERIALIZED" {
			i++
		}
		if !isPunct(sql, toks, i, '(') {
			return i, false
		}
		if i = skipParens(sql, toks, i); i < 0 {
			return 0, false
		}
		if !isPunct(sql, toks, i, ',') {
			return i, true
		}
		i++
	}
}

// skipParens returns the index after the parenthesis group opening at
// toks[i], or -1 when it never closes.
func skipParens(sql string, toks []token, i int) int {
	depth := 0
	for ; i < len(toks); i++ {
		depth = nest(sql, toks[i], depth)
		if depth == 0 {
			return i + 1
		}
	}
	return -1
}

func isPunct(sql string, toks []token, i int, c byte) bool {
	return i < len(toks) && toks[i].kind == kPunct && sql[toks[i].start] == c
}

// nest updates the parenthesis depth for one token.
func nest(sql string, t token, depth int) int {
	if t.kind != kPunct {
		return depth
	}
	switch sql[t.start] {
	case '(':
		return depth + 1
	case ')':
		return max(0, depth-1)
	}
	return depth
}

// topLevelWhere reports a WHERE keyword outside every parenthesis: the
// WHERE of the UPDATE or DELETE itself, not of a subquery, and never one
// inside a comment or literal.
func topLevelWhere(sql string, toks []token) bool {
	depth := 0
	for _, t := range toks {
		depth = nest(sql, t, depth)
		if depth == 0 && upperWord(sql, t) == "WHERE" {
			return true
		}
	}
	return false
}
