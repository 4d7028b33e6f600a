// SPDX-License-Identifier: Apache-2.0

package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/adapters/record"
)

// Scope is the reach of the caller reading the trail (spec 09 §5 J.3.2):
// the owner sees every row, the rows of no forest ("-") included; anyone
// else sees the rows of the forests it administers and nothing more. It
// is applied first, in SQL.
type Scope struct {
	// Owner sees every row. The host sets it only for a principal whose
	// owner bit survives the key's mask.
	Owner bool
	// Forests are the forests the caller administers (ignored for the
	// owner). None: the caller sees no row.
	Forests []string
}

// Page is the answer of GET /v1/admin/audit.
type Page struct {
	// Entries are the newest rows matching the filter, at most its limit.
	Entries []Entry `json:"entries"`
	// Totals are over every row matching the filter, not only the page.
	Totals Totals `json:"totals"`
	// Filters are the values occurring in the caller's scope, for the
	// console's filter menus.
	Filters Facets `json:"filters"`
}

// Entry is one row. Optional columns are omitted when the row lacks them.
type Entry struct {
	TS        string          `json:"ts"`
	Principal string          `json:"principal"`
	Forest    string          `json:"forest"`
	Primitive string          `json:"primitive"`
	Args      json.RawMessage `json:"args"`
	Result    string          `json:"result"`
	Size      *int64          `json:"size,omitempty"`
	CommitSHA string          `json:"commit_sha,omitempty"`
	ErrorCode string          `json:"error_code,omitempty"`
	MS        *float64        `json:"ms,omitempty"`
	ModelMS   *float64        `json:"model_ms,omitempty"`
	CostUSD   *float64        `json:"cost_usd,omitempty"`
	Via       string          `json:"via,omitempty"`
}

// Totals summarise the whole filtered set (decision §18.4). Errors counts
// rows whose result is error or refused or that carry an error code.
// SpentUSD sums the cost of rows not served from the answer store,
// AvoidedUSD that of rows that were; each is absent when no such row
// was priced.
type Totals struct {
	Calls      int64    `json:"calls"`
	Errors     int64    `json:"errors"`
	SpentUSD   *float64 `json:"spent_usd,omitempty"`
	AvoidedUSD *float64 `json:"avoided_usd,omitempty"`
}

// Facets are the distinct values occurring in the caller's scope, sorted.
type Facets struct {
	Principals []string `json:"principals"`
	Forests    []string `json:"forests"`
	Primitives []string `json:"primitives"`
	Results    []string `json:"results"`
	// Vias are the extensions that acted ("ext:<id>"); rows without one
	// are not a value.
	Vias []string `json:"vias"`
}

// errorRow is the SQL of "an error row" (totals and the errors filter).
const errorRow = `(result IN ('error', 'refused') OR error_code IS NOT NULL)`

// clause is a WHERE clause and its arguments.
type clause struct {
	conds []string
	args  []any
}

func (c *clause) and(cond string, args ...any) {
	c.conds = append(c.conds, cond)
	c.args = append(c.args, args...)
}

func (c clause) sql() string {
	if len(c.conds) == 0 {
		return "1"
	}
	return strings.Join(c.conds, " AND ")
}

// where is the one WHERE builder: the scope first, then the filter when
// there is one (the facets read the scope alone), its window as sp.
func where(s Scope, f *Filter, sp span) clause {
	var c clause
	if !s.Owner {
		ids := slices.DeleteFunc(slices.Clone(s.Forests), func(id string) bool { return id == record.NoForest })
		if len(ids) == 0 {
			c.and("0")
			return c
		}
		c.and("forest IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+")", anys(ids)...)
	}
	if f == nil {
		return c
	}
	for _, eq := range []struct{ col, v string }{{"principal", f.Principal}, {"forest", f.Forest},
		{"primitive", f.Primitive}, {"result", string(f.Result)}, {"via", f.Via}} {
		if eq.v != "" {
			c.and(eq.col+" = ?", eq.v)
		}
	}
	if f.Errors {
		c.and(errorRow)
	}
	if sp.since != "" {
		c.and("ts >= ?", sp.since)
	}
	if sp.before != "" {
		c.and("ts < ?", sp.before)
	}
	return c
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Query reads the trail as s may see it, narrowed by f: the page, the
// totals over the whole filtered set, and the facets of the scope. It
// reads through the Log's database and sees every row written so far
// (Flush first to include rows still queued). A Filter of the wrong
// shape (an unknown result, unreadable bounds) is E_SCHEMA.
func (l *Log) Query(ctx context.Context, s Scope, f Filter) (*Page, error) {
	sp, err := f.check()
	if err != nil {
		return nil, err
	}
	w := where(s, &f, sp)
	page := &Page{}
	if page.Entries, err = l.entries(ctx, w, f.limit()); err != nil {
		return nil, err
	}
	if page.Totals, err = l.totals(ctx, w); err != nil {
		return nil, err
	}
	if page.Filters, err = l.facets(ctx, where(s, nil, span{})); err != nil {
		return nil, err
	}
	return page, nil
}

func (l *Log) entries(ctx context.Context, w clause, limit int) ([]Entry, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT ts, principal, forest, primitive, args, result, size, commit_sha,
		error_code, ms, model_ms, cost_usd, via FROM audit WHERE `+w.sql()+` ORDER BY ts DESC, rowid DESC LIMIT ?`,
		append(slices.Clip(w.args), limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEntry(rows *sql.Rows) (Entry, error) {
	var e Entry
	var args, commit, code, via sql.NullString
	var size sql.NullInt64
	var ms, modelMS, cost sql.NullFloat64
	err := rows.Scan(&e.TS, &e.Principal, &e.Forest, &e.Primitive, &args, &e.Result, &size, &commit,
		&code, &ms, &modelMS, &cost, &via)
	if err != nil {
		return e, err
	}
	e.Args = json.RawMessage("{}")
	if args.Valid && json.Valid([]byte(args.String)) {
		e.Args = json.RawMessage(args.String)
	}
	e.CommitSHA, e.ErrorCode, e.Via = commit.String, code.String, via.String
	if size.Valid {
		e.Size = &size.Int64
	}
	e.MS, e.ModelMS, e.CostUSD = floatOrNil(ms), floatOrNil(modelMS), floatOrNil(cost)
	return e, nil
}

func floatOrNil(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}

func (l *Log) totals(ctx context.Context, w clause) (Totals, error) {
	var t Totals
	var errs sql.NullInt64
	var spent, avoided sql.NullFloat64
	err := l.db.QueryRowContext(ctx, `SELECT COUNT(*), SUM(CASE WHEN `+errorRow+` THEN 1 ELSE 0 END),
		SUM(CASE WHEN result != 'cache' THEN cost_usd END), SUM(CASE WHEN result = 'cache' THEN cost_usd END)
		FROM audit WHERE `+w.sql(), w.args...).Scan(&t.Calls, &errs, &spent, &avoided)
	t.Errors = errs.Int64
	t.SpentUSD, t.AvoidedUSD = money(spent), money(avoided)
	return t, err
}

// money rounds a sum of costs to a millionth of a dollar (float sums of
// many small prices otherwise print their binary noise); nil stays nil.
func money(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	v := math.Round(f.Float64*1e6) / 1e6
	return &v
}

func (l *Log) facets(ctx context.Context, w clause) (Facets, error) {
	var f Facets
	for _, col := range []struct {
		name string
		dst  *[]string
	}{{"principal", &f.Principals}, {"forest", &f.Forests}, {"primitive", &f.Primitives}, {"result", &f.Results}, {"via", &f.Vias}} {
		vals, err := l.distinct(ctx, col.name, w)
		if err != nil {
			return f, err
		}
		*col.dst = vals
	}
	return f, nil
}

// distinct lists col's values under w, sorted, NULL left out. col is one
// of the literal column names above, never caller text.
func (l *Log) distinct(ctx context.Context, col string, w clause) ([]string, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT DISTINCT `+col+` FROM audit WHERE `+w.sql()+` ORDER BY 1`, w.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		if v.Valid {
			out = append(out, v.String)
		}
	}
	return out, rows.Err()
}
