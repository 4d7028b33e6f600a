// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/sqlguard"
)

// BudgetQuery is the token budget of a query result (C.5.1). It bounds the
// rows; columns are never cut.
const BudgetQuery = 2000

// QueryRowCap is the most rows one query answers (C.5 step 6). The
// engine counts the rows it steps and stops there; a LIMIT the caller
// writes narrows the result further but never lifts the cap.
const QueryRowCap = sqlguard.RowCap

// Rows is query's columnar result (C.5.2): one array per row, never
// objects repeating the column names.
//
// The result fits BudgetQuery tokens by dropping whole rows from the tail;
// Columns is never dropped, so even a result whose every row was cut says
// which columns the statement produces. Limited ("narrow your filter")
// and Truncated ("narrow your projection") are independent.
type Rows struct {
	// Columns are the statement's result columns, in order.
	Columns []string `json:"columns"`
	// Rows are the rows kept, each a list of values in column order:
	// integers, floats, text, null, or "<blob N bytes>" for a blob.
	Rows [][]any `json:"rows"`
	// RowCount is the number of rows in this response, after the budget.
	RowCount int `json:"row_count"`
	// Limited reports that the engine's QueryRowCap cut the result: at
	// least one more row matched. It is exact (the engine steps once past
	// the cap to know), and false whenever the statement's own LIMIT or
	// its data ended the result first.
	Limited bool `json:"limited"`
	// ElapsedMS is the execution time in milliseconds, two decimals.
	ElapsedMS float64 `json:"elapsed_ms"`
	// Truncated reports that the budget dropped rows that matched; Hint
	// then says how many and how to ask narrower.
	Truncated bool   `json:"truncated,omitempty"`
	Hint      string `json:"hint,omitempty"`
}

// nodeIDs: a query returns rows, not nodes; the dataset it read is the
// call's addressed id.
func (r *Rows) nodeIDs() []string { return nil }

// Query runs one read-only SQL statement over a dataset node's SQLite
// payload (C.5) and answers columns and rows within BudgetQuery tokens.
//
// The statement must be a single SELECT (or WITH … SELECT); the answer
// holds at most QueryRowCap rows, whatever LIMIT the statement names. The payload is
// opened read-only and the statement interrupted after SQLDeadline.
// Refusals: E_NOT_FOUND or E_MOVED for the id and a missing payload;
// E_QUERY_FORBIDDEN for a node that is not a sqlite dataset and for what
// the guard refuses (more than one statement, another leading keyword, a
// forbidden keyword anywhere in the text); E_QUERY_INVALID for what SQLite
// rejects, with the dataset's table or column names as the hint;
// E_TIMEOUT past the deadline.
func (v *Vine) Query(ctx context.Context, id, sql string) (*Rows, error) {
	return v.query(ctx, id, sql, sqlHost{})
}

// query is Query with the host-only arguments: the allow-list a grant
// narrows the dataset to, decided by SQLite's authorizer (C.5.3).
func (v *Vine) query(ctx context.Context, id, sqlText string, host sqlHost) (*Rows, error) {
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := sqliteDataset("query", rec); err != nil {
		return nil, err
	}
	host = withGrants(ctx, v.place, host, rec)
	host.limits = v.sqlLimits
	st, err := sqlguard.Query(sqlText)
	if err != nil {
		return nil, err
	}
	file, err := v.place.Dataset(ctx, payloadScope(ctx), "query", rec, false)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res, cut, err := runQuery(ctx, file, st, host)
	if err != nil {
		return nil, err
	}
	res.ElapsedMS = elapsedMS(time.Since(start))
	res.fit(cut)
	return res, nil
}

// rowCut is what the budget needs to know about the rows a statement
// returned: the cost of each materialized row and how many there were.
type rowCut struct {
	costs []int // tokens of each row in res.Rows, its list separator included
	total int   // rows the statement returned within the cap (≥ len(costs))
}

// runQuery executes the statement on a read-only connection with the
// authorizer installed.
func runQuery(ctx context.Context, file string, st sqlguard.Statement, host sqlHost) (*Rows, rowCut, error) {
	ctx, cancel := context.WithTimeout(ctx, host.deadline())
	defer cancel()
	conn, err := openPayload(file, false, host.limits)
	if err != nil {
		return nil, rowCut{}, err
	}
	defer conn.Close()
	if err := conn.BusyTimeout(host.deadline()); err != nil {
		return nil, rowCut{}, err
	}
	conn.SetInterrupt(ctx)
	auth := sqlguard.NewAuthorizer(false, host.tables)
	if err := conn.SetAuthorizer(auth.Authorize); err != nil {
		return nil, rowCut{}, err
	}
	var res *Rows
	var cut rowCut
	err = withinMemory(conn, func() (err error) {
		res, cut, err = collectRows(conn, st, host.limits)
		return err
	})
	if err != nil {
		return nil, cut, sqlFailure(ctx, conn, "query", err, auth, host)
	}
	return res, cut, nil
}

// collectRows prepares the caller's statement as written and steps it.
// The row cap is the engine's count, never a reading of the text: at
// most QueryRowCap rows are taken, and one more step tells whether the
// cap cut the result (Limited). Rows are materialized only while they
// could still fit the budget; beyond that they are counted, so a wide
// result costs time (bounded by the deadline), never memory. The cells
// copied are bounded by the result-size limit.
func collectRows(conn *sqlite3.Conn, st sqlguard.Statement, limits sqlLimits) (*Rows, rowCut, error) {
	var cut rowCut
	run, err := prepareQuery(conn, st)
	if run != nil {
		defer run.Close()
	}
	if err != nil {
		return nil, cut, err
	}
	res := &Rows{Columns: make([]string, run.ColumnCount()), Rows: [][]any{}}
	for i := range res.Columns {
		res.Columns[i] = run.ColumnName(i)
	}
	sum, copied := 0, int64(0)
	for run.Step() {
		if cut.total == QueryRowCap {
			res.Limited = true // a row past the cap exists: the engine cut the result
			break
		}
		cut.total++
		if sum > BudgetQuery {
			continue // cannot be kept whatever the rest costs: count only
		}
		for i := range res.Columns {
			copied += cellBytes(run, i)
		}
		if copied > limits.maxResult() {
			return nil, cut, resultTooLarge(cut.total, limits)
		}
		row := make([]any, len(res.Columns))
		for i := range row {
			row[i] = resultCell(run, i)
		}
		c := budget.EstimateTokens(budget.Render(row) + ", ")
		res.Rows = append(res.Rows, row)
		cut.costs = append(cut.costs, c)
		sum += c
	}
	if err := run.Err(); err != nil {
		return nil, cut, err
	}
	res.RowCount = cut.total
	return res, cut, nil
}

// prepareQuery prepares the caller's statement exactly as written, so
// SQLite judges, and its errors speak of, what the caller sent.
func prepareQuery(conn *sqlite3.Conn, st sqlguard.Statement) (*sqlite3.Stmt, error) {
	run, tail, err := conn.Prepare(st.SQL)
	if err != nil {
		return nil, err
	}
	if run == nil {
		return nil, envelope.New(envelope.QueryForbidden, "query: the SQL holds no statement",
			"send one SELECT statement")
	}
	return run, checkRead(run, tail)
}

// checkRead is SQLite's own word on the statement: exactly one, and it
// only reads (a second lock behind the guard and the read-only open).
func checkRead(st *sqlite3.Stmt, tail string) error {
	if !sqlguard.OnlyTrivia(tail) {
		return envelope.New(envelope.QueryForbidden, "query takes exactly one statement; SQLite found more",
			"send one statement per call")
	}
	if !st.ReadOnly() {
		return envelope.New(envelope.QueryForbidden, "query: the statement would write, and query only reads",
			"changing rows is tend's job (INSERT, UPDATE or DELETE)")
	}
	return nil
}

// fit keeps the longest prefix of rows within BudgetQuery (C.5.1): spent
// is the response without rows, each row costs its own rendering, and the
// first row that does not fit ends the result. A cut sets Truncated and
// the Hint, measured at their largest before the final cut so the whole
// response stays within the budget; only Columns may exceed it.
func (r *Rows) fit(cut rowCut) {
	kept := r.keep(cut.costs)
	if kept == cut.total {
		return
	}
	firstCost := 0
	if len(cut.costs) > 0 {
		firstCost = cut.costs[0]
	}
	cols := len(r.Columns)
	r.Truncated, r.RowCount = true, kept
	// Bound the final hint: as many digits as any count can have.
	r.Hint = queryHint(max(kept, 1), cut.total, cut.total, cols, firstCost)
	kept = r.keep(cut.costs[:kept])
	r.Rows, r.RowCount = r.Rows[:kept], kept
	r.Hint = queryHint(kept, cut.total, cut.total-kept, cols, firstCost)
}

// keep is how many leading rows fit after the rest of the response.
func (r *Rows) keep(costs []int) int {
	rows := r.Rows
	r.Rows = [][]any{}
	spent := budget.EstimatePayloadTokens(r)
	r.Rows = rows
	for i, c := range costs {
		if spent+c > BudgetQuery {
			return i
		}
		spent += c
	}
	return len(costs)
}

// queryHint says first that the dropped rows exist and matched (a model
// read "5 of 15" as "5 matched"), then how to ask narrower (C.5.1).
func queryHint(kept, total, dropped, cols, firstCost int) string {
	if kept > 0 {
		return fmt.Sprintf("Kept %d of %d rows; the other %d exist and matched — the %d-token budget dropped them, "+
			"not your WHERE, so the rows shown are not the full result. %d columns returned: select only the "+
			"columns you need, or aggregate (COUNT, SUM, GROUP BY).", kept, total, dropped, BudgetQuery, cols)
	}
	return fmt.Sprintf("Kept 0 of %d rows; all %d exist and matched — the %d-token budget dropped them, not your "+
		"WHERE. One row costs about %d tokens across %d columns: select only the columns you need, or aggregate "+
		"(COUNT, SUM, GROUP BY). The node's Query manual names every column (look with fields query_manual).",
		total, dropped, BudgetQuery, firstCost, cols)
}

// ---- wire ----

var querySignature = Signature{
	Name: "query",
	Doc: "Read-only SQL over a dataset node (type dataset, payload_type sqlite): exactly one SELECT or WITH … SELECT, " +
		"answered as columns plus rows within 2000 tokens and at most 200 rows (limited: true when more matched). " +
		"Read the node's Query manual with look first. Changing rows is tend.",
	Budget: BudgetQuery,
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "dataset node id (exact path without .md)"},
		{Name: "sql", Type: TString, Required: true, Doc: "one SELECT statement; no ';' inside, no PRAGMA, no writes"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: querySignature, run: runQueryCall}) }

func runQueryCall(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Query(ctx, a.String("id"), a.String("sql"))
}
