// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/dataset"
	"github.com/monkeyllm/vine/internal/sqlguard"
)

// TendResult answers tend (C.10).
type TendResult struct {
	ID string `json:"id"`
	// RowsAffected counts the rows the statement itself changed
	// (trigger side effects excluded, as SQLite counts them).
	RowsAffected int64 `json:"rows_affected"`
	// PayloadHash is the sha256 hex of the payload file after the
	// change, as now recorded in the passport.
	PayloadHash string `json:"payload_hash"`
	// Commit is the audit commit of the passport, or nil when the
	// passport's bytes did not change (a same-day tend that changed no
	// payload bytes), so there was nothing to commit.
	Commit *string `json:"commit"`
	// ElapsedMS is the statement's execution time in milliseconds, two
	// decimals.
	ElapsedMS float64 `json:"elapsed_ms"`
}

func (r *TendResult) nodeIDs() []string { return []string{r.ID} }

// Tend changes rows of a dataset node's SQLite payload with exactly one
// INSERT, UPDATE or DELETE (C.10), the only write path into a payload.
//
// UPDATE and DELETE need a WHERE; DDL and transaction control are refused
// anywhere in the text. The statement runs in one transaction under
// SQLDeadline; then the passport's payload_hash and updated are refreshed
// and committed alone (the payload is outside git): "tend(<id>): <VERB> <n>
// row(s)". Every refusal leaves the forest and the payload byte-identical.
// Refusals: E_READONLY first on a read-only forest; E_NOT_FOUND or
// E_MOVED for the id and a missing payload; E_QUERY_FORBIDDEN for a node
// that is not a sqlite dataset, a remote payload, and what the guard
// refuses; E_QUERY_INVALID for what SQLite rejects (constraints
// included); E_TIMEOUT past the deadline.
func (v *Vine) Tend(ctx context.Context, id, sql string) (*TendResult, error) {
	return v.tend(ctx, id, sql, sqlHost{})
}

// tend is Tend with the host-only arguments (C.5.3): under an allow-list
// the statement may neither write nor read a table outside it.
func (v *Vine) tend(ctx context.Context, id, sqlText string, host sqlHost) (*TendResult, error) {
	t, release, err := v.beginWrite("tend")
	if err != nil {
		return nil, err
	}
	defer release()
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := sqliteDataset("tend", rec); err != nil {
		return nil, err
	}
	host = withGrants(ctx, v.place, host, rec)
	host.limits = v.sqlLimits
	st, err := sqlguard.Tend(sqlText)
	if err != nil {
		return nil, err
	}
	file, err := v.place.Dataset(ctx, payloadScope(ctx), "tend", rec, true)
	if err != nil {
		return nil, err
	}
	passport, err := v.root.TrustedPath(rec.ID)
	if err != nil {
		return nil, err
	}
	before, err := forest.ReadFile(passport)
	if err != nil {
		return nil, notFound(rec.ID)
	}
	n, err := v.parse(rec.ID, before)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	affected, err := runTend(ctx, file, st, host)
	if err != nil {
		return nil, err
	}
	res := &TendResult{ID: rec.ID, RowsAffected: affected, ElapsedMS: elapsedMS(time.Since(start))}
	// The payload has changed; from here a failure leaves the passport as
	// it was and the hash drift for validate to report and the next tend
	// to heal (A.3.1).
	if res.PayloadHash, err = dataset.HashFile(file); err != nil {
		return nil, err
	}
	n.Front.Set("payload_hash", res.PayloadHash)
	n.Front.Set("updated", v.today())
	if bytes.Equal(n.Bytes(), before) {
		return res, nil // nothing to commit (§9.8)
	}
	if err := t.put(n); err != nil {
		return nil, err
	}
	sha, err := t.commit(ctx, gitops.TendSubject(rec.ID, st.Verb, int(affected)))
	if err != nil {
		return nil, err
	}
	res.Commit = &sha
	if t.listening() {
		t.emit(ctx, EventDatasetChanged, map[string]any{"node": rec.ID, "rows_affected": affected, "commit": sha}, nil)
	}
	return res, nil
}

// runTend executes the statement in one BEGIN IMMEDIATE transaction with
// the authorizer installed around it, and answers the rows it changed.
// Any failure rolls back: the payload is untouched.
func runTend(ctx context.Context, file string, st sqlguard.Statement, host sqlHost) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, host.deadline())
	defer cancel()
	conn, err := openPayload(file, true, host.limits)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if err := conn.BusyTimeout(host.deadline()); err != nil {
		return 0, err
	}
	conn.SetInterrupt(ctx)
	auth := sqlguard.NewAuthorizer(true, host.tables)
	if err := conn.Exec("BEGIN IMMEDIATE"); err != nil {
		return 0, sqlFailure(ctx, conn, "tend", err, auth, host)
	}
	var n int64
	err = withinMemory(conn, func() (err error) {
		if n, err = authorized(conn, auth, st); err == nil {
			err = conn.Exec("COMMIT")
		}
		return err
	})
	if err == nil {
		return n, nil
	}
	conn.SetInterrupt(context.Background()) // the rollback must run even past the deadline
	if !conn.GetAutocommit() {
		if rerr := conn.Exec("ROLLBACK"); rerr != nil {
			return 0, rerr
		}
	}
	return 0, sqlFailure(ctx, conn, "tend", err, auth, host)
}

// authorized runs the caller's statement with the authorizer installed
// and removes it afterwards: only the caller's statement is judged, never
// the engine's own BEGIN, COMMIT or schema reads.
func authorized(conn *sqlite3.Conn, auth *sqlguard.Authorizer, st sqlguard.Statement) (int64, error) {
	if err := conn.SetAuthorizer(auth.Authorize); err != nil {
		return 0, err
	}
	defer conn.SetAuthorizer(nil)
	return execTend(conn, st)
}

// execTend prepares the caller's statement (SQLite judges it: exactly one
// statement, and a write), runs it to completion (RETURNING rows are
// discarded), and answers the rows it changed.
func execTend(conn *sqlite3.Conn, st sqlguard.Statement) (int64, error) {
	stmt, tail, err := conn.Prepare(st.SQL)
	if err != nil {
		return 0, err
	}
	if stmt == nil {
		return 0, envelope.New(envelope.QueryForbidden, "tend: the SQL holds no statement",
			"send one INSERT, UPDATE or DELETE")
	}
	defer stmt.Close()
	if !sqlguard.OnlyTrivia(tail) {
		return 0, envelope.New(envelope.QueryForbidden, "tend takes exactly one statement; SQLite found more",
			"send one statement per call")
	}
	if stmt.ReadOnly() {
		return 0, envelope.New(envelope.QueryForbidden, "tend: the statement changes nothing; reads are query's job",
			"send one INSERT, UPDATE or DELETE")
	}
	for stmt.Step() {
	}
	if err := stmt.Err(); err != nil {
		return 0, err
	}
	return conn.Changes(), nil
}

// ---- wire ----

var tendSignature = Signature{
	Name: "tend",
	Doc: "Change rows of a dataset node's SQLite payload: exactly one INSERT, UPDATE or DELETE (UPDATE and DELETE " +
		"need a WHERE), run in one transaction; the passport's payload_hash is refreshed and committed. Reads are " +
		"query; tend never changes the schema.",
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "dataset node id (exact path without .md)"},
		{Name: "sql", Type: TString, Required: true, Doc: "one INSERT, UPDATE or DELETE; no ';' inside, no DDL"},
	},
	Destructive: true,
}

func init() { register(primitive{sig: tendSignature, run: runTendCall}) }

func runTendCall(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Tend(ctx, a.String("id"), a.String("sql"))
}
