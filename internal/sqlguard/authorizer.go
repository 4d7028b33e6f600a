// SPDX-License-Identifier: Apache-2.0

package sqlguard

import (
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Reason says why the Authorizer denied a statement. It never carries the
// name of what was denied: under an allow-list, naming a table would
// answer "does it exist?".
type Reason uint8

// The reasons of a denial.
const (
	Allowed     Reason = iota
	OutsideList        // a table the host's allow-list does not name
	Internal           // an sqlite_* table (any access under an allow-list, writes always)
	Pragma             // a pragma, or a pragma_* table-valued function
	Attach             // ATTACH or DETACH, or a schema other than main
	Write              // an INSERT, UPDATE or DELETE in a read
	Schema             // DDL: CREATE, DROP, ALTER, REINDEX, ANALYZE, virtual tables
	Transaction        // BEGIN, COMMIT, ROLLBACK or a savepoint inside the statement
	Function           // a function with side effects outside the database
)

// String describes the reason for a refusal message, naming no table.
func (r Reason) String() string {
	switch r {
	case Allowed:
		return "allowed"
	case OutsideList:
		return "the statement reaches outside the tables this access allows"
	case Internal:
		return "the statement reaches SQLite's internal sqlite_* tables"
	case Pragma:
		return "the statement runs a pragma (PRAGMA or a pragma_* function)"
	case Attach:
		return "the statement reaches a database other than the payload (ATTACH, DETACH or another schema)"
	case Write:
		return "the statement writes, and query only reads"
	case Schema:
		return "the statement changes the schema (CREATE, DROP, ALTER, REINDEX, ANALYZE)"
	case Transaction:
		return "the statement controls the transaction, which the engine owns"
	case Function:
		return "the statement calls a function with effects outside the database"
	}
	return "the statement was not authorized"
}

// sideEffects are functions whose effects reach past the payload. Most
// are absent from the engine's SQLite build; the list is the second lock.
var sideEffects = []string{"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "sqlite_dbpage"}

// Authorizer is the SQLite authorizer policy of query (write false) and
// tend (write true). Install its Authorize method with
// sqlite3.Conn.SetAuthorizer around the caller's statement only: SQLite
// asks it at prepare time (and again if the statement is re-prepared) for
// each table, column, function and pragma the statement touches.
//
// Without an allow-list every table of the payload may be read (and, for
// tend, written), but pragmas, ATTACH/DETACH, DDL, transaction control,
// writes to sqlite_* tables, pragma_* functions and functions with side
// effects are denied. With an allow-list (C.5.3) reads and writes of any
// table it does not name are denied too, and so is every sqlite_* table,
// the schema included: it would map what is withheld.
//
// An Authorizer belongs to one connection; it is not safe for concurrent
// use.
type Authorizer struct {
	write  bool
	tables map[string]bool // ASCII-folded names; nil without an allow-list
	denied Reason
}

// NewAuthorizer returns the policy for a read (write false) or a write. A
// nil or empty tables means no allow-list.
func NewAuthorizer(write bool, tables []string) *Authorizer {
	a := &Authorizer{write: write}
	if len(tables) > 0 {
		a.tables = make(map[string]bool, len(tables))
		for _, t := range tables {
			a.tables[fold(t)] = true
		}
	}
	return a
}

// Restricted reports whether an allow-list is in force.
func (a *Authorizer) Restricted() bool { return a.tables != nil }

// Permits reports whether the allow-list lets a statement touch table;
// always true without one. Hints use it to filter schema listings.
func (a *Authorizer) Permits(table string) bool {
	return a.tables == nil || (a.tables[fold(table)] && !isInternal(table))
}

// Denied returns the reason of the first denial since the last Reset, or
// Allowed when nothing was denied.
func (a *Authorizer) Denied() Reason { return a.denied }

// Reset forgets earlier denials.
func (a *Authorizer) Reset() { a.denied = Allowed }

// Authorize is the callback for sqlite3.Conn.SetAuthorizer.
func (a *Authorizer) Authorize(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, _ string) sqlite3.AuthorizerReturnCode {
	r := a.judge(action, name3rd, name4th, schema)
	if r == Allowed {
		return sqlite3.AUTH_OK
	}
	if a.denied == Allowed {
		a.denied = r
	}
	return sqlite3.AUTH_DENY
}

func (a *Authorizer) judge(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema string) Reason {
	switch action {
	case sqlite3.AUTH_SELECT, sqlite3.AUTH_RECURSIVE:
		return Allowed
	case sqlite3.AUTH_READ:
		return a.table(name3rd, schema, false)
	case sqlite3.AUTH_INSERT, sqlite3.AUTH_UPDATE, sqlite3.AUTH_DELETE:
		if isSchemaTable(name3rd) {
			return Schema // SQLite asks this first for every CREATE and DROP
		}
		if !a.write {
			return Write
		}
		return a.table(name3rd, schema, true)
	case sqlite3.AUTH_FUNCTION:
		if slices.Contains(sideEffects, fold(name4th)) {
			return Function
		}
		return Allowed
	case sqlite3.AUTH_PRAGMA:
		return Pragma
	case sqlite3.AUTH_ATTACH, sqlite3.AUTH_DETACH:
		return Attach
	case sqlite3.AUTH_TRANSACTION, sqlite3.AUTH_SAVEPOINT:
		return Transaction
	}
	return Schema
}

// table judges one access to a table (or view, or table-valued function).
func (a *Authorizer) table(name, schema string, write bool) Reason {
	switch {
	case schema != "" && schema != "main":
		return Attach
	case strings.HasPrefix(fold(name), "pragma_"):
		return Pragma
	case isInternal(name) && (write || a.tables != nil):
		return Internal
	case a.tables != nil && !a.tables[fold(name)]:
		return OutsideList
	}
	return Allowed
}

func isSchemaTable(name string) bool {
	switch fold(name) {
	case "sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema":
		return true
	}
	return false
}

func isInternal(name string) bool { return strings.HasPrefix(fold(name), "sqlite_") }

// fold lower-cases ASCII letters only, as SQLite compares identifiers:
// Unicode folding would let a withheld "Äpfel" pass as a granted "äpfel".
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}
