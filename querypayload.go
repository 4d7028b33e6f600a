// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/sqlguard"
)

// SQLDeadline bounds the execution of one query or tend statement (C.5
// step 8, C.10 step 7); past it the statement is interrupted and the call
// answers E_TIMEOUT.
const SQLDeadline = 2 * time.Second

// sqlHost carries the engine-side arguments of query and tend that no wire
// field can reach (C.5.3, §7): a caller able to pass an allow-list could
// also leave it out. The scoped surface fills it from the grant
// (datasets.<id>.tables).
type sqlHost struct {
	tables  []string      // the table allow-list; empty means none
	timeout time.Duration // 0 means SQLDeadline; tests shorten it
	limits  sqlLimits     // the Vine's memory limits; zero fields mean the defaults
}

func (h sqlHost) deadline() time.Duration {
	if h.timeout > 0 {
		return h.timeout
	}
	return SQLDeadline
}

// sqliteDataset refuses a node that is not a dataset with a SQLite
// payload (C.5 step 2, C.10 step 1), naming what it is instead.
func sqliteDataset(op string, rec catalog.Record) error {
	hint := op + " works on nodes of type dataset with payload_type sqlite; read this node with look or pick"
	if rec.Type != "dataset" {
		return envelope.New(envelope.QueryForbidden,
			fmt.Sprintf("%s: %s is a node of type %s, not a sqlite dataset", op, rec.ID, rec.Type), hint)
	}
	if rec.PayloadType != "sqlite" {
		got := rec.PayloadType
		if got == "" {
			got = "(none)"
		}
		return envelope.New(envelope.QueryForbidden,
			fmt.Sprintf("%s: %s is a dataset with payload_type %s, not sqlite", op, rec.ID, got), hint)
	}
	return nil
}

// openPayload opens a dataset file: read-only twice over for query
// (mode=ro and query_only), read-write for tend; never created. Defensive
// mode keeps even a write from corrupting the schema, an untrusted
// schema keeps views and triggers from calling functions with side
// effects, and the memory limits keep a statement (or a view inside the
// file) from spending the host's memory.
func openPayload(file string, write bool, limits sqlLimits) (*sqlite3.Conn, error) {
	p := filepath.ToSlash(file)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	uri := "file:" + (&url.URL{Path: p}).EscapedPath()
	flags := sqlite3.OPEN_URI
	if write {
		uri += "?mode=rw"
		flags |= sqlite3.OPEN_READWRITE
	} else {
		uri += "?mode=ro&_pragma=query_only(1)"
		flags |= sqlite3.OPEN_READONLY
	}
	conn, err := sqlite3.OpenFlags(uri, flags)
	if err != nil {
		return nil, fmt.Errorf("vine: open payload %s: %w", filepath.Base(file), err)
	}
	// DQS_DML lets a statement's "text" be a string where no column has
	// that name, as the reference's SQLite does: small models write
	// WHERE region = "Southeast", and the same question must get the same
	// answer from both engines. Schema statements (DQS_DDL) stay strict.
	for _, c := range []struct {
		op sqlite3.DBConfig
		on bool
	}{{sqlite3.DBCONFIG_DEFENSIVE, true}, {sqlite3.DBCONFIG_TRUSTED_SCHEMA, false},
		{sqlite3.DBCONFIG_DQS_DML, true}, {sqlite3.DBCONFIG_DQS_DDL, false}} {
		if _, err := conn.Config(c.op, c.on); err != nil {
			conn.Close()
			return nil, fmt.Errorf("vine: configure payload connection: %w", err)
		}
	}
	limits.apply(conn)
	return conn, nil
}

// sqlFailure turns an error met while running the caller's statement into
// its envelope (C.5.2): the guard's or the authorizer's refusal is
// E_QUERY_FORBIDDEN, the deadline E_TIMEOUT, anything else SQLite
// rejected E_QUERY_INVALID with the name hint. ctx is the call's deadline
// context.
func sqlFailure(ctx context.Context, conn *sqlite3.Conn, op string, err error, auth *sqlguard.Authorizer, host sqlHost) error {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e
	}
	if r := auth.Denied(); r != sqlguard.Allowed || errors.Is(err, sqlite3.AUTH) {
		return sqlAuthRefusal(op, r, auth, host)
	}
	if ctx.Err() != nil || errors.Is(err, sqlite3.INTERRUPT) || errors.Is(err, sqlite3.BUSY) {
		return sqlTimeout(op, host)
	}
	if refusal := sqlLimitRefusal(op, err, host.limits); refusal != nil {
		return refusal
	}
	if errors.Is(err, sqlite3.READONLY) && op == "query" {
		return envelope.New(envelope.QueryForbidden, op+": the statement would write, and query only reads",
			"changing rows is tend's job")
	}
	if notADatabase(err) {
		return envelope.New(envelope.QueryForbidden,
			op+": the payload is not a SQLite database (or is damaged), so no statement can run on it",
			"the passport's payload must name a SQLite file; restore the file or correct the passport").
			With("payload_type", "sqlite")
	}
	if brokenPayload(err) {
		// Not the caller's SQL: the file itself fails. E_INTERNAL, with the
		// detail in the log.
		return fmt.Errorf("vine: %s: payload unusable: %w", op, err)
	}
	msg := sqliteMessage(err)
	if withheldTable(msg, auth) {
		return sqlAuthRefusal(op, sqlguard.OutsideList, auth, host)
	}
	conn.SetAuthorizer(nil) // only the caller's statement is judged
	conn.SetInterrupt(context.Background())
	return envelope.New(envelope.QueryInvalid, "SQL error: "+msg, nameHint(conn, msg, auth))
}

// notADatabase reports a payload file that SQLite cannot read as a
// database: the passport names the wrong file, or the file is damaged.
// The caller can act on that, so it is no internal error.
func notADatabase(err error) bool {
	return errors.Is(err, sqlite3.NOTADB) || errors.Is(err, sqlite3.CORRUPT)
}

// brokenPayload reports a failure of the payload file or the host rather
// than of the statement.
func brokenPayload(err error) bool {
	for _, code := range []sqlite3.ErrorCode{sqlite3.NOTADB, sqlite3.CORRUPT, sqlite3.IOERR, sqlite3.CANTOPEN,
		sqlite3.FULL, sqlite3.PERM, sqlite3.READONLY, sqlite3.NOMEM, sqlite3.PROTOCOL} {
		if errors.Is(err, code) {
			return true
		}
	}
	return false
}

// withheldTable reports SQLite's "no such table" for a name outside the
// allow-list. It is answered as the authorizer's refusal: otherwise 400
// for an absent table beside 403 for a withheld one would tell a scoped
// caller which withheld tables exist.
func withheldTable(msg string, auth *sqlguard.Authorizer) bool {
	name, ok := strings.CutPrefix(msg, "no such table: ")
	if !ok || !auth.Restricted() {
		return false
	}
	if _, table, found := strings.Cut(name, "."); found {
		name = table
	}
	return !auth.Permits(name)
}

// sqlAuthRefusal never names what was denied: under an allow-list that would
// answer "does this table exist?".
func sqlAuthRefusal(op string, r sqlguard.Reason, auth *sqlguard.Authorizer, host sqlHost) error {
	if auth.Restricted() && (r == sqlguard.OutsideList || r == sqlguard.Internal || r == sqlguard.Allowed) {
		tables := slices.Sorted(slices.Values(host.tables))
		return envelope.New(envelope.QueryForbidden,
			op+": the statement reaches outside the tables this access allows",
			"permitted tables: "+strings.Join(tables, ", ")+"; the SQLite schema is not readable under this access")
	}
	hint := "query reads tables and views of the payload with one SELECT; tend changes their rows with one INSERT, UPDATE or DELETE"
	return envelope.New(envelope.QueryForbidden, op+": "+r.String(), hint)
}

func sqlTimeout(op string, host sqlHost) error {
	msg := fmt.Sprintf("%s: the statement ran past the %s deadline and was stopped", op, host.deadline())
	hint := "narrow it: filter with WHERE, aggregate, add a LIMIT, and bound any recursive CTE"
	if op == "tend" {
		msg += "; the payload is unchanged"
		hint = "narrow the WHERE, or split the change into smaller statements"
	}
	return envelope.New(envelope.Timeout, msg, hint)
}

// sqliteMessage is SQLite's own message, without the driver's prefix and
// the generic text of the result code ("no such table: x").
func sqliteMessage(err error) string {
	msg := err.Error()
	var e *sqlite3.Error
	if errors.As(err, &e) {
		for _, prefix := range []string{e.ExtendedCode().Error(), e.Code().Error()} {
			if rest, ok := strings.CutPrefix(msg, prefix+": "); ok {
				return rest
			}
		}
	}
	return strings.TrimPrefix(msg, "sqlite3: ")
}

// Name hint limits (C.5 §1.6).
const (
	nameHintTables  = 4
	nameHintColumns = 25
)

// nameHint tells a caller who guessed a name wrong what the dataset holds
// (C.5 §1.6), filtered by the allow-list. Best effort: any failure gives
// no hint and never replaces the error.
func nameHint(conn *sqlite3.Conn, msg string, auth *sqlguard.Authorizer) string {
	table := strings.HasPrefix(msg, "no such table")
	if !table && !strings.HasPrefix(msg, "no such column") {
		return ""
	}
	names, err := payloadTables(conn, auth)
	if err != nil || len(names) == 0 {
		return ""
	}
	if table {
		return "Tables in this dataset: " + strings.Join(names, ", ") + "."
	}
	var parts []string
	for _, name := range names[:min(len(names), nameHintTables)] {
		cols, err := payloadColumns(conn, name)
		if err != nil {
			return ""
		}
		parts = append(parts, name+"("+strings.Join(cols[:min(len(cols), nameHintColumns)], ", ")+")")
	}
	return "Columns: " + strings.Join(parts, "; ") + "."
}

// payloadTables lists the payload's tables and views (no sqlite_*), sorted,
// keeping only those the allow-list permits.
func payloadTables(conn *sqlite3.Conn, auth *sqlguard.Authorizer) ([]string, error) {
	all, err := sqlColumn(conn, `SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') `+
		`AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name`, "")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(n string) bool { return !auth.Permits(n) }), nil
}

func payloadColumns(conn *sqlite3.Conn, table string) ([]string, error) {
	return sqlColumn(conn, `SELECT name FROM pragma_table_info(?)`, table)
}

// sqlColumn runs a one-column statement with an optional text argument.
func sqlColumn(conn *sqlite3.Conn, query, arg string) ([]string, error) {
	st, _, err := conn.Prepare(query)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if arg != "" {
		if err := st.BindText(1, arg); err != nil {
			return nil, err
		}
	}
	var out []string
	for st.Step() {
		out = append(out, st.ColumnText(0))
	}
	return out, st.Err()
}

// resultCell is one result value as JSON carries it: a blob is described, never
// shipped (§9.15, G.2.3's marker), and an infinite float becomes text.
func resultCell(st *sqlite3.Stmt, i int) any {
	switch st.ColumnType(i) {
	case sqlite3.INTEGER:
		return st.ColumnInt64(i)
	case sqlite3.FLOAT:
		f := st.ColumnFloat(i)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return f
	case sqlite3.BLOB:
		return fmt.Sprintf("<blob %d bytes>", len(st.ColumnRawBlob(i)))
	case sqlite3.NULL:
		return nil
	}
	return st.ColumnText(i)
}

// elapsedMS is a duration in milliseconds rounded to two decimals.
func elapsedMS(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Millisecond)*100) / 100
}
