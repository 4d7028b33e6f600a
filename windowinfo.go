package vine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine/internal/window"
)

// WindowEcho is the normalized window a windowed read echoes (C.13.1 r6):
// full dates, or null for an open end, and the date field it read.
type WindowEcho = window.Echo

// The facts every windowed read reports beside its results (C.13): how
// many nodes no window can hold, and, when a windowed read comes back
// empty, whether the window was the reason. They are counts and dates,
// never node content, so an empty answer teaches without leaking.

// maxNearestPeriods is how many populated months an empty window names.
const maxNearestPeriods = 3

// windowColumn is the nodes column a window reads. The window package only
// produces the two names; anything else reads created, so no text from
// outside reaches the SQL.
func windowColumn(w window.Window) string {
	if w.Field == window.Updated {
		return window.Updated
	}
	return window.Created
}

// scopeIDSQL restricts nodes to a scope as scopePrefix returns it: "" is
// the whole forest, a prefix ending in "/" every id under that folder (a
// byte-wise range on the primary key, never LIKE, whose _ is a wildcard),
// anything else one node id.
func scopeIDSQL(prefix string) (string, []any) {
	switch {
	case prefix == "":
		return "1", nil
	case strings.HasSuffix(prefix, "/"):
		// "/"+1 is "0": the ids under x/ are exactly those in [x/, x0).
		return "(id >= ? AND id < ?)", []any{prefix, prefix[:len(prefix)-1] + "0"}
	default:
		return "id = ?", []any{prefix}
	}
}

// undatedCount counts the nodes under prefix ("" = whole forest, see
// scopeIDSQL) whose w.Field date is empty: the nodes no window can hold,
// reported as undated_excluded.
func (v *Vine) undatedCount(ctx context.Context, w window.Window, prefix string) (int, error) {
	col := windowColumn(w)
	where, args := scopeIDSQL(prefix)
	where, args = andScope(ctx, "id", where, args)
	q, qargs := undatedSQL(col, where, args)
	return v.stmts.count(ctx, q, qargs...)
}

// undatedSQL counts the nodes matching where whose date column col is
// empty. The empty string and NULL are counted apart, each an equality
// the date index answers; one OR of the two tests made SQLite read every
// row (18 ms of a 30 ms windowed locate at 100,000 nodes). The catalog
// stores no NULL dates, but a file another writer made may.
func undatedSQL(col, where string, args []any) (string, []any) {
	count := "(SELECT count(*) FROM nodes WHERE " + col + " %s AND " + where + ")"
	return "SELECT " + fmt.Sprintf(count, "= ''") + " + " + fmt.Sprintf(count, "IS NULL"), append(slices.Clone(args), args...)
}

// emptyWindowFacts explains an empty windowed result (C.13.2). matched is
// the number of nodes inside the window at all, forest-wide, whatever the
// read's question, scope or filters. When it is above 0 the hint says the
// window is not the reason; when it is 0 the hint gives the forest's dated
// range (count, first, last) and the nearest populated months, and
// suggests widening or dropping the window or reading calendar. An
// inactive window has nothing to explain: (0, "", nil).
func (v *Vine) emptyWindowFacts(ctx context.Context, w window.Window) (matched int, hint string, err error) {
	if !w.Active() {
		return 0, "", nil
	}
	pred, args := w.SQL("")
	pred, args = andScope(ctx, "id", pred, args)
	matched, err = v.stmts.count(ctx, "SELECT count(*) FROM nodes WHERE "+pred, args...)
	if err != nil {
		return 0, "", err
	}
	if matched > 0 {
		have := "nodes have"
		if matched == 1 {
			have = "node has"
		}
		return matched, fmt.Sprintf("The window is not the reason: %d %s a %s date inside it; "+
			"ask a wider question, loosen the other filters, or search bodies with sniff(terms).",
			matched, have, windowColumn(w)), nil
	}
	hint, err = v.windowMissHint(ctx, w)
	return 0, hint, err
}

// windowDatedGlob matches a stored date that starts with YYYY-MM-DD. Dates of
// any other shape are not placed on the calendar (C.13.3: unparseable
// rows are skipped, never a crash).
const windowDatedGlob = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'"

// windowMonth is one populated month: its label, node count and the first
// and last dates inside it.
type windowMonth struct {
	month       string // YYYY-MM
	nodes       int
	first, last time.Time
}

// windowMissHint states where the forest's dates lie for a window that
// holds no node.
func (v *Vine) windowMissHint(ctx context.Context, w window.Window) (string, error) {
	col := windowColumn(w)
	buckets, err := v.windowMonths(ctx, col)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The window is the reason: no node has a %s date %s.", col, describeWindowBounds(w))
	if len(buckets) == 0 {
		fmt.Fprintf(&b, " No node has a %s date at all, so no window can match; drop the window.", col)
		return b.String(), nil
	}
	total := 0
	for _, m := range buckets {
		total += m.nodes
	}
	first, last := buckets[0].first, buckets[len(buckets)-1].last
	fmt.Fprintf(&b, " Dated nodes: %d, from %s to %s.", total, first.Format(time.DateOnly), last.Format(time.DateOnly))
	near := nearestWindowMonths(buckets, windowAnchor(w), maxNearestPeriods)
	labels := make([]string, len(near))
	for i, m := range near {
		labels[i] = fmt.Sprintf("%s (%d)", m.month, m.nodes)
	}
	fmt.Fprintf(&b, " Nearest populated months: %s.", strings.Join(labels, ", "))
	b.WriteString(" Widen or drop the window, or list the populated periods with calendar.")
	return b.String(), nil
}

// windowMonths groups the dated nodes by month in SQLite (one row per
// month, never one per node), oldest first.
func (v *Vine) windowMonths(ctx context.Context, col string) ([]windowMonth, error) {
	q := "SELECT substr(" + col + ", 1, 7) AS m, count(*), min(substr(" + col + ", 1, 10)), max(substr(" + col + ", 1, 10)) " +
		"FROM nodes WHERE " + col + " GLOB " + windowDatedGlob
	where, args := andScope(ctx, "id", "", nil)
	q += where + " GROUP BY m ORDER BY m"
	st, err := v.stmts.Prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []windowMonth
	for rows.Next() {
		var m windowMonth
		var first, last string
		if err := rows.Scan(&m.month, &m.nodes, &first, &last); err != nil {
			return nil, err
		}
		f, ferr := time.Parse(time.DateOnly, first)
		l, lerr := time.Parse(time.DateOnly, last)
		if ferr != nil || lerr != nil {
			continue // a month 13 or a day 32 is on no calendar
		}
		m.first, m.last = f, l
		out = append(out, m)
	}
	return out, rows.Err()
}

// windowAnchor is the date distances are measured from: since, else until.
func windowAnchor(w window.Window) time.Time {
	d := w.Since
	if d == "" {
		d = w.Until
	}
	t, _ := time.Parse(time.DateOnly, d) // window.Parse produced it
	return t
}

// nearestWindowMonths returns up to n buckets by absolute day distance from
// anchor to the nearest dated node inside each, nearest first, the earlier
// month first on a tie.
func nearestWindowMonths(buckets []windowMonth, anchor time.Time, n int) []windowMonth {
	dist := func(m windowMonth) time.Duration {
		switch {
		case anchor.Before(m.first):
			return m.first.Sub(anchor)
		case anchor.After(m.last):
			return anchor.Sub(m.last)
		}
		return 0
	}
	sorted := slices.Clone(buckets)
	slices.SortStableFunc(sorted, func(a, b windowMonth) int {
		return cmp.Compare(dist(a), dist(b))
	})
	return sorted[:min(n, len(sorted))]
}

// describeWindowBounds renders a window's bounds for a hint.
func describeWindowBounds(w window.Window) string {
	switch {
	case w.Since != "" && w.Until != "":
		return "from " + w.Since + " to " + w.Until
	case w.Since != "":
		return "on or after " + w.Since
	default:
		return "on or before " + w.Until
	}
}
