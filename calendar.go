// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/window"
)

// Calendar limits (C.13.3).
const (
	calendarBudget       = 800
	calendarDefaultLimit = 24
	calendarMaxLimit     = 120
)

// The granularities of a calendar.
const (
	GranularityDay   = "day"
	GranularityWeek  = "week"
	GranularityMonth = "month"
	GranularityYear  = "year"
)

var calendarGranularities = []string{GranularityDay, GranularityWeek, GranularityMonth, GranularityYear}

// calendarPeriodSQL is the period start of a date column per granularity,
// exactly the specification's SQL: %w is 0 on Sunday, so (%w+6)%7 is the
// number of days back to Monday.
var calendarPeriodSQL = map[string]string{
	GranularityDay:   "substr(%[1]s, 1, 10)",
	GranularityWeek:  "date(%[1]s, '-' || ((strftime('%%w', %[1]s) + 6) %% 7) || ' days')",
	GranularityMonth: "substr(%[1]s, 1, 7) || '-01'",
	GranularityYear:  "substr(%[1]s, 1, 4) || '-01-01'",
}

// CalendarOptions are the wire parameters of Calendar.
type CalendarOptions struct {
	// Scope is a branch (x, x/ or x/_index) or a node id, as sniff takes
	// it; "" or _index is the whole forest.
	Scope string
	// DateField is created (default) or updated.
	DateField string
	// Granularity is day, week, month (default) or year.
	Granularity string
	// Since and Until narrow the counted nodes (C.13 bounds).
	Since, Until string
	// Limit is clamped to [1, 120]; 0 means 24.
	Limit int
}

// CalendarResult is the answer of Calendar.
type CalendarResult struct {
	DateField   string           `json:"date_field"`
	Granularity string           `json:"granularity"`
	Range       CalendarRange    `json:"range"`
	Buckets     []CalendarBucket `json:"buckets"`
	Truncated   bool             `json:"truncated"`
	// Undated counts the nodes in scope without the date, whatever the
	// window.
	Undated int         `json:"undated"`
	Scope   string      `json:"scope,omitempty"`
	Window  *WindowEcho `json:"window,omitempty"`
}

// CalendarRange spans every populated period in scope and window, before
// the limit and the budget: first and last date (YYYY-MM-DD, null when
// nothing is dated) and how many dated nodes there are.
type CalendarRange struct {
	First *string `json:"first"`
	Last  *string `json:"last"`
	Nodes int     `json:"nodes"`
}

// CalendarBucket is one populated period. Since and Until are its first
// and last day, exactly the bounds a windowed read takes to return the
// bucket's nodes.
type CalendarBucket struct {
	Period string `json:"period"` // YYYY-MM-DD, YYYY-Www, YYYY-MM or YYYY
	Since  string `json:"since"`
	Until  string `json:"until"`
	Nodes  int    `json:"nodes"`
}

// nodeIDs: a calendar names periods, never nodes.
func (*CalendarResult) nodeIDs() []string { return nil }

var calendarSignature = Signature{
	Name: "calendar",
	Doc: "Which periods hold anything: nodes counted per day, week, month or year of their created " +
		"(or updated) date, most recent first, empty periods left out. Feed a bucket's since/until to " +
		"locate, sniff or scan to read that period.",
	Budget: calendarBudget,
	Params: []Param{
		{Name: "scope", Type: TString, Doc: "a branch (x, x/ or x/_index) or a node id; absent is the whole forest"},
		{Name: "date_field", Type: TString, Default: window.Created, Doc: "created or updated"},
		{Name: "granularity", Type: TString, Default: GranularityMonth, Enum: calendarGranularities},
		{Name: "since", Type: TString, Doc: "count from: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "until", Type: TString, Doc: "count through: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "limit", Type: TInteger, Default: calendarDefaultLimit, Doc: "most recent periods to return, 1..120"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: calendarSignature, run: runCalendar}) }

func runCalendar(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Calendar(ctx, CalendarOptions{
		Scope:       a.String("scope"),
		DateField:   a.String("date_field"),
		Granularity: a.String("granularity"),
		Since:       a.String("since"),
		Until:       a.String("until"),
		Limit:       min(max(a.Int("limit"), 1), calendarMaxLimit),
	})
}

// Calendar counts nodes per period of their date (C.13.3), from the
// catalog alone: one GROUP BY per call, never a row per node. Buckets come
// most recent first, empty periods omitted; the limit and the 800-token
// budget drop the oldest buckets and set Truncated, while Range and
// Undated always describe everything in scope.
func (v *Vine) Calendar(ctx context.Context, opt CalendarOptions) (*CalendarResult, error) {
	gran := opt.Granularity
	if gran == "" {
		gran = GranularityMonth
	}
	if !slices.Contains(calendarGranularities, gran) {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("calendar: parameter 'granularity' got %q, expected one of %s", opt.Granularity,
				strings.Join(calendarGranularities, ", ")), "")
	}
	w, err := window.Parse(opt.Since, opt.Until, opt.DateField)
	if err != nil {
		return nil, err
	}
	limit := opt.Limit
	if limit == 0 {
		limit = calendarDefaultLimit
	}
	limit = min(max(limit, 1), calendarMaxLimit)
	prefix, leaf, err := scopePrefix(ctx, v.cat, opt.Scope)
	if err != nil {
		return nil, err
	}
	region, regionArgs := regionPredicate(prefix, leaf)
	scope, scopeArgs := andScope(ctx, "id", region, regionArgs)

	buckets, rng, err := calendarBuckets(ctx, &v.stmts, w, gran, scope, scopeArgs)
	if err != nil {
		return nil, err
	}
	res := &CalendarResult{DateField: w.Field, Granularity: gran, Range: rng, Scope: opt.Scope}
	if res.Undated, err = windowFacts(ctx, &v.stmts).Undated(ctx, w.Column(), region, regionArgs); err != nil {
		return nil, err
	}
	if w.Active() {
		echo := w.Echo()
		res.Window = &echo
	}
	res.Buckets = buckets[:min(limit, len(buckets))]
	cut := budget.ShrinkTail(&res.Buckets, calendarBudget, func() any { return res })
	res.Truncated = len(buckets) > limit || cut > 0
	return res, nil
}

// calendarBuckets runs the one GROUP BY and folds its rows into buckets,
// most recent first, and the range over all of them. Rows whose date is
// no calendar date are skipped, never a crash.
func calendarBuckets(ctx context.Context, stmts *stmtCache, w window.Window, gran, scope string, scopeArgs []any) ([]CalendarBucket, CalendarRange, error) {
	col := w.Field
	winSQL, winArgs := w.SQL("")
	// A stored value whose first ten characters are no calendar date
	// (month 13, February 30, prose) is on no calendar: without the check
	// a year bucket would count it and name it as the range's last date.
	query := fmt.Sprintf("SELECT %[1]s AS period, count(*), min(%[2]s), max(%[2]s) FROM nodes "+
		"WHERE %[2]s != '' AND %[2]s IS NOT NULL AND date(substr(%[2]s, 1, 10)) = substr(%[2]s, 1, 10) "+
		"AND %[3]s AND %[4]s GROUP BY period",
		fmt.Sprintf(calendarPeriodSQL[gran], col), col, scope, winSQL)
	st, err := stmts.Prepare(ctx, query)
	if err != nil {
		return nil, CalendarRange{}, err
	}
	rows, err := st.QueryContext(ctx, append(slices.Clone(scopeArgs), winArgs...)...)
	if err != nil {
		return nil, CalendarRange{}, err
	}
	defer rows.Close()
	var buckets []CalendarBucket
	var rng CalendarRange
	var first, last string
	for rows.Next() {
		var period, lo, hi sql.NullString
		var n int
		if err := rows.Scan(&period, &n, &lo, &hi); err != nil {
			return nil, CalendarRange{}, err
		}
		b, ok := calendarBucket(period.String, gran)
		if !ok {
			continue
		}
		b.Nodes = n
		buckets = append(buckets, b)
		rng.Nodes += n
		if d := calendarDay(lo.String); first == "" || d < first {
			first = d
		}
		if d := calendarDay(hi.String); d > last {
			last = d
		}
	}
	if err := rows.Err(); err != nil {
		return nil, CalendarRange{}, err
	}
	if len(buckets) > 0 {
		rng.First, rng.Last = &first, &last
	}
	slices.SortFunc(buckets, func(a, b CalendarBucket) int { return strings.Compare(b.Since, a.Since) })
	if buckets == nil {
		buckets = []CalendarBucket{}
	}
	return buckets, rng, nil
}

// calendarDay is the date part of a stored date.
func calendarDay(s string) string { return s[:min(10, len(s))] }

// calendarBucket names the period starting at start and states its two
// bounds; the label is derived from the bounds, never the reverse.
func calendarBucket(start, gran string) (CalendarBucket, bool) {
	day, err := time.Parse(time.DateOnly, start)
	if err != nil {
		return CalendarBucket{}, false
	}
	var end time.Time
	var label string
	switch gran {
	case GranularityDay:
		end, label = day, start
	case GranularityWeek:
		year, week := day.ISOWeek()
		end, label = day.AddDate(0, 0, 6), fmt.Sprintf("%04d-W%02d", year, week)
	case GranularityMonth:
		end, label = day.AddDate(0, 1, -1), day.Format("2006-01")
	case GranularityYear:
		end, label = day.AddDate(1, 0, -1), day.Format("2006")
	}
	return CalendarBucket{Period: label, Since: start, Until: end.Format(time.DateOnly)}, true
}

// regionPredicate is a resolved scope (see scopePrefix) as a predicate
// over nodes: everything, the ids under a branch's folder (its index
// included), or one node. Literal prefix compare, never LIKE.
func regionPredicate(prefix string, leaf bool) (string, []any) {
	switch {
	case leaf:
		return "id = ?", []any{prefix}
	case prefix == "":
		return "1", nil
	}
	return "substr(id, 1, ?) = ?", []any{utf8.RuneCountInString(prefix), prefix}
}
