package vine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/envelope"
	"github.com/monkeyllm/vine/internal/sqlguard"
)

// BudgetQuery is the token budget of a query result (C.5.1). It bounds the
// rows; columns are never cut.
const BudgetQuery = 2000

// QueryRowCap is the LIMIT query adds to a statement that names none.
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
	// Limited reports that the injected LIMIT 200 was reached: more rows
	// may match. Always false when the statement has a LIMIT of its own.
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
// The statement must be a single SELECT (or WITH … SELECT); a statement
// without a LIMIT of its own is capped at QueryRowCap rows. The payload is
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
	rec, err := v.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := sqliteDataset("query", rec); err != nil {
		return nil, err
	}
	host = v.grantedTables(ctx, host, rec)
	st, err := sqlguard.Query(sqlText)
	if err != nil {
		return nil, err
	}
	file, err := v.datasetPath(ctx, "query", rec, false)
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
	total int   // rows the statement returned (≥ len(costs))
}

// runQuery executes the statement on a read-only connection with the
// authorizer installed. Rows are materialized only while they could still
// fit the budget; beyond that they are counted, so a caller's huge LIMIT
// costs time (bounded by the deadline), never memory.
func runQuery(ctx context.Context, file string, st sqlguard.Statement, host sqlHost) (*Rows, rowCut, error) {
	var cut rowCut
	ctx, cancel := context.WithTimeout(ctx, host.deadline())
	defer cancel()
	conn, err := openPayload(file, false)
	if err != nil {
		return nil, cut, err
	}
	defer conn.Close()
	if err := conn.BusyTimeout(host.deadline()); err != nil {
		return nil, cut, err
	}
	conn.SetInterrupt(ctx)
	auth := sqlguard.NewAuthorizer(false, host.tables)
	if err := conn.SetAuthorizer(auth.Authorize); err != nil {
		return nil, cut, err
	}
	p, err := prepareQuery(conn, st)
	defer p.close()
	if err != nil {
		return nil, cut, sqlFailure(ctx, conn, "query", err, auth, host)
	}
	run := p.run
	res := &Rows{Columns: make([]string, p.named.ColumnCount()), Rows: [][]any{}}
	for i := range res.Columns {
		res.Columns[i] = p.named.ColumnName(i)
	}
	sum := 0
	for (!p.capped || cut.total < QueryRowCap) && run.Step() {
		cut.total++
		if sum > BudgetQuery {
			continue // cannot be kept whatever the rest costs: count only
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
		return nil, cut, sqlFailure(ctx, conn, "query", err, auth, host)
	}
	res.RowCount = cut.total
	res.Limited = st.Injected && cut.total == QueryRowCap
	return res, cut, nil
}

// prepared are the statements of one query: run is stepped, named gives
// the result's column names (often the same statement).
type prepared struct {
	named, run *sqlite3.Stmt
	capped     bool // the wrapper did not prepare: apply the cap while stepping
}

func (p prepared) close() {
	if p.run != nil && p.run != p.named {
		p.run.Close()
	}
	if p.named != nil {
		p.named.Close()
	}
}

// prepareQuery prepares what runs and what names the columns. With the
// row cap injected, the wrapper is prepared alone on the hot path: it
// holds the caller's statement whole, so SQLite judges the same thing.
// The caller's statement is prepared as written only when the wrapper
// renamed duplicate columns ("id", "id:1"), or when the wrapper fails, so
// that the error speaks of what the caller wrote.
func prepareQuery(conn *sqlite3.Conn, st sqlguard.Statement) (prepared, error) {
	if st.Injected {
		wrapped, _, err := conn.Prepare(st.Exec)
		if err == nil && wrapped != nil {
			p := prepared{named: wrapped, run: wrapped}
			if err := checkRead(wrapped, ""); err != nil || !renamed(wrapped) {
				return p, err
			}
			if named, _, err := conn.Prepare(st.SQL); err == nil && named != nil {
				p.named = named
			}
			return p, nil
		}
		if wrapped != nil {
			wrapped.Close()
		}
	}
	named, tail, err := conn.Prepare(st.SQL)
	if err != nil {
		return prepared{}, err
	}
	if named == nil {
		return prepared{}, envelope.New(envelope.QueryForbidden, "query: the SQL holds no statement",
			"send one SELECT statement")
	}
	return prepared{named: named, run: named, capped: st.Injected}, checkRead(named, tail)
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

// renamed reports a result column SQLite may have renamed while
// flattening the wrapper ("id", "id:1").
func renamed(st *sqlite3.Stmt) bool {
	for i := range st.ColumnCount() {
		name := st.ColumnName(i)
		if j := strings.LastIndexByte(name, ':'); j >= 0 && j < len(name)-1 &&
			strings.Trim(name[j+1:], "0123456789") == "" {
			return true
		}
	}
	return false
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
		"answered as columns plus rows within 2000 tokens; LIMIT 200 is added when the statement has no LIMIT. " +
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
