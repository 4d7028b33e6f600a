// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/window"
)

// calendarTwin folds dates into buckets in Go, node by node: the
// independent spelling the SQL grouping is checked against.
func calendarTwin(recs []catalog.Record, field, gran string, keep func(catalog.Record) bool) ([]CalendarBucket, CalendarRange) {
	counts := map[string]*CalendarBucket{}
	var rng CalendarRange
	var first, last string
	for _, r := range recs {
		d := r.Created
		if field == window.Updated {
			d = r.Updated
		}
		if d == "" || !keep(r) {
			continue
		}
		day, err := time.Parse(time.DateOnly, d[:min(10, len(d))])
		if err != nil {
			continue
		}
		var start, end time.Time
		var label string
		switch gran {
		case GranularityDay:
			start, end, label = day, day, day.Format(time.DateOnly)
		case GranularityWeek:
			start = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
			y, w := start.ISOWeek()
			end, label = start.AddDate(0, 0, 6), fmt.Sprintf("%d-W%02d", y, w)
		case GranularityMonth:
			start = time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
			end, label = start.AddDate(0, 1, -1), start.Format("2006-01")
		case GranularityYear:
			start = time.Date(day.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
			end, label = start.AddDate(1, 0, -1), start.Format("2006")
		}
		b := counts[label]
		if b == nil {
			b = &CalendarBucket{Period: label, Since: start.Format(time.DateOnly), Until: end.Format(time.DateOnly)}
			counts[label] = b
		}
		b.Nodes++
		rng.Nodes++
		if ds := day.Format(time.DateOnly); first == "" || ds < first {
			first = ds
		}
		if ds := day.Format(time.DateOnly); ds > last {
			last = ds
		}
	}
	var out []CalendarBucket
	for _, b := range counts {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b CalendarBucket) int { return strings.Compare(b.Since, a.Since) })
	if rng.Nodes > 0 {
		rng.First, rng.Last = &first, &last
	}
	return out, rng
}

func TestCalendarAgreesWithAGoFold(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	recs := regionRecords(t, v)
	all := func(catalog.Record) bool { return true }
	for _, field := range []string{window.Created, window.Updated} {
		for _, gran := range calendarGranularities {
			t.Run(field+"/"+gran, func(t *testing.T) {
				res, err := v.Calendar(context.Background(), CalendarOptions{DateField: field, Granularity: gran, Limit: 120})
				require.NoError(t, err)
				want, rng := calendarTwin(recs, field, gran, all)
				assert.Equal(t, rng, res.Range, "range covers every bucket, before limit and budget")
				require.NotEmpty(t, res.Buckets)
				assert.Equal(t, want[:len(res.Buckets)], res.Buckets, "most recent first, empty periods omitted")
				assert.Equal(t, len(res.Buckets) < len(want), res.Truncated)
				assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), calendarBudget)
				assert.Equal(t, 1, res.Undated)
				assert.Equal(t, field, res.DateField)
				assert.Equal(t, gran, res.Granularity)
			})
		}
	}
}

func TestCalendarBucketBounds(t *testing.T) {
	tests := []struct {
		start, gran          string
		period, since, until string
	}{
		{"2026-08-31", GranularityDay, "2026-08-31", "2026-08-31", "2026-08-31"},
		{"2025-12-29", GranularityWeek, "2026-W01", "2025-12-29", "2026-01-04"},
		{"2020-12-28", GranularityWeek, "2020-W53", "2020-12-28", "2021-01-03"},
		{"2026-08-24", GranularityWeek, "2026-W35", "2026-08-24", "2026-08-30"},
		{"2024-02-01", GranularityMonth, "2024-02", "2024-02-01", "2024-02-29"},
		{"2026-12-01", GranularityMonth, "2026-12", "2026-12-01", "2026-12-31"},
		{"2026-01-01", GranularityYear, "2026", "2026-01-01", "2026-12-31"},
	}
	for _, tt := range tests {
		b, ok := calendarBucket(tt.start, tt.gran)
		require.True(t, ok, tt.start)
		assert.Equal(t, CalendarBucket{Period: tt.period, Since: tt.since, Until: tt.until}, b, tt.start)
	}
	for _, bad := range []string{"", "2026-13-01", "2026-02-30", "-01", "2026-8-01"} {
		_, ok := calendarBucket(bad, GranularityMonth)
		assert.False(t, ok, bad)
	}
}

// TestCalendarWeekSQLIsMondayFirst checks the specification's week
// expression against Go's calendar over every day of two years and a
// datetime form.
func TestCalendarWeekSQLIsMondayFirst(t *testing.T) {
	v, _, _ := regionFixture(t, nil, nil)
	st, err := v.Catalog().DB().Prepare("SELECT " + fmt.Sprintf(calendarPeriodSQL[GranularityWeek], "?1"))
	require.NoError(t, err)
	defer st.Close()
	for d := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2022; d = d.AddDate(0, 0, 1) {
		monday := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
		for _, form := range []string{d.Format(time.DateOnly), d.Format("2006-01-02T15:04")} {
			var got string
			require.NoError(t, st.QueryRow(form).Scan(&got))
			require.Equal(t, monday.Format(time.DateOnly), got, form)
		}
	}
}

// TestCalendarRoundTrip feeds every bucket's since/until back as a window:
// the windowed count is the bucket's count (F.64).
func TestCalendarRoundTrip(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	ctx := context.Background()
	for _, gran := range calendarGranularities {
		res, err := v.Calendar(ctx, CalendarOptions{Granularity: gran, Limit: 120})
		require.NoError(t, err)
		for _, b := range res.Buckets {
			w, err := window.Parse(b.Since, b.Until, "")
			require.NoError(t, err)
			matched, _, err := windowFacts(ctx, &v.stmts).Empty(ctx, w)
			require.NoError(t, err)
			assert.Equal(t, b.Nodes, matched, "%s %s", gran, b.Period)

			sr, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Since: b.Since, Until: b.Until})
			require.NoError(t, err)
			own := 0 // a recursive root scan leaves out _index itself
			if root, _, _ := v.Catalog().Get(ctx, forest.RootIndexID); w.Contains(root.Created) {
				own = 1
			}
			assert.Equal(t, b.Nodes, sr.Total+own, "%s %s", gran, b.Period)
		}
	}
	// The partial-bound spelling of a month is the same window.
	a, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Since: "2026-08", Until: "2026-08"})
	require.NoError(t, err)
	b, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Since: "2026-08-01", Until: "2026-08-31"})
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

func TestCalendarLimitAndBudget(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	ctx := context.Background()
	full, err := v.Calendar(ctx, CalendarOptions{Limit: 120})
	require.NoError(t, err)
	require.Greater(t, len(full.Buckets), 3)

	res, err := v.Calendar(ctx, CalendarOptions{Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, full.Buckets[:2], res.Buckets, "the limit cuts the oldest end")
	assert.True(t, res.Truncated)
	assert.Equal(t, full.Range, res.Range)

	res, err = v.Calendar(ctx, CalendarOptions{Granularity: GranularityDay, Limit: 120})
	require.NoError(t, err)
	assert.True(t, res.Truncated, "a hundred days do not fit 800 tokens")
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), calendarBudget)
	assert.Greater(t, res.Range.Nodes, 0)

	for args, want := range map[string]int{`{"limit": 0}`: 1, `{"limit": -3}`: 1, `{"limit": 1000, "granularity": "year"}`: 2, `{}`: len(full.Buckets)} {
		raw, err := regionCall(t, v, "calendar", args)
		require.NoError(t, err)
		var got struct{ Buckets []json.RawMessage }
		require.NoError(t, json.Unmarshal(raw, &got))
		assert.Len(t, got.Buckets, want, args)
	}
}

func TestCalendarScopeWindowAndRefusals(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	ctx := context.Background()
	recs := regionRecords(t, v)

	raw, err := regionCall(t, v, "calendar", `{"scope": "a_b", "since": "2026-02", "until": "2026-08"}`)
	require.NoError(t, err)
	assert.Equal(t, []string{"date_field", "granularity", "range", "buckets", "truncated", "undated", "scope", "window"},
		jsonKeys(t, raw))
	res, err := v.Calendar(ctx, CalendarOptions{Scope: "a_b", Since: "2026-02", Until: "2026-08"})
	require.NoError(t, err)
	w, _ := window.Parse("2026-02", "2026-08", "")
	want, rng := calendarTwin(recs, window.Created, GranularityMonth, func(r catalog.Record) bool {
		return strings.HasPrefix(r.ID, "a_b/") && w.Contains(r.Created)
	})
	assert.Equal(t, want, res.Buckets)
	assert.Equal(t, rng, res.Range)
	assert.Equal(t, 1, res.Undated, "undated counts the scope, not the window")
	assert.Equal(t, "a_b", res.Scope)
	require.NotNil(t, res.Window)
	assert.Equal(t, "2026-08-31", *res.Window.Until)

	t.Run("a leaf scope is that node", func(t *testing.T) {
		res, err := v.Calendar(ctx, CalendarOptions{Scope: "a_b/late", Granularity: GranularityDay})
		require.NoError(t, err)
		assert.Equal(t, []CalendarBucket{{Period: "2026-08-31", Since: "2026-08-31", Until: "2026-08-31", Nodes: 1}}, res.Buckets)
		assert.Equal(t, "2026-08-31", *res.Range.Last, "ten characters of a datetime")
	})
	t.Run("nothing dated", func(t *testing.T) {
		raw, err := regionCall(t, v, "calendar", `{"scope": "a_b/undated"}`)
		require.NoError(t, err)
		assert.Contains(t, string(raw), `"range":{"first":null,"last":null,"nodes":0},"buckets":[]`)
	})
	refusals := []struct {
		args string
		code envelope.Code
		says string
	}{
		{`{"granularity": "quarter"}`, envelope.Schema, "granularity"},
		{`{"date_field": "indexed"}`, envelope.Schema, "date_field"},
		{`{"since": "2026-02-30"}`, envelope.Schema, "since"},
		{`{"scope": "nope"}`, envelope.NotFound, "scope not found: nope"},
		{`{"scope": "_meta"}`, envelope.Schema, "_meta"},
		{`{"scope": ["a_b"]}`, envelope.Schema, "scope"},
		{`{"limit": "3"}`, envelope.Schema, "limit"},
	}
	for _, tt := range refusals {
		_, err := regionCall(t, v, "calendar", tt.args)
		require.Error(t, err, tt.args)
		assert.Equal(t, tt.code, envelope.CodeOf(err), tt.args)
		assert.Contains(t, err.Error(), tt.says, tt.args)
	}
	_, err = v.Calendar(ctx, CalendarOptions{Granularity: "fortnight"})
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err), "the typed call checks too")
}

func TestCalendarSkipsDatesOnNoCalendar(t *testing.T) {
	extra := map[string]string{
		"a_b/_index": regionExtras["a_b/_index"],
		"a_b/m13":    regionLeaf("a_b/m13", "2026-13-45"),
		"a_b/feb30":  regionLeaf("a_b/feb30", "2026-02-30"),
		"a_b/words":  regionLeaf("a_b/words", "someday"),
		"a_b/ok":     regionLeaf("a_b/ok", "2026-02-02"),
	}
	v, _, _ := regionFixture(t, extra, nil)
	for _, gran := range calendarGranularities {
		res, err := v.Calendar(context.Background(), CalendarOptions{Scope: "a_b", Granularity: gran})
		require.NoError(t, err, gran)
		assert.Equal(t, 2, res.Range.Nodes, "%s: only a_b/_index and a_b/ok are on the calendar", gran)
		assert.Zero(t, res.Undated, "a value is not undated")
		assert.Equal(t, "2026-02-02", *res.Range.Last)
	}
}

func TestCalendarNamesNoNode(t *testing.T) {
	obs := &regionObserver{}
	v, _, _ := regionFixture(t, nil, &Options{Observer: obs})
	_, err := v.Call(context.Background(), "calendar", nil)
	require.NoError(t, err)
	require.Len(t, obs.events, 1)
	assert.Empty(t, obs.events[0].Returned)
}

func FuzzCalendarBucket(f *testing.F) {
	for _, s := range []string{"2026-08-31", "2020-12-28", "2024-02-01", "0000-01-01", "9999-12-31", "x"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, start string, g uint8) {
		gran := calendarGranularities[int(g)%len(calendarGranularities)]
		b, ok := calendarBucket(start, gran)
		if !ok || start >= "9999" {
			return // a period ending past year 9999 has no four-digit until
		}
		require.Equal(t, start, b.Since)
		require.LessOrEqual(t, b.Since, b.Until)
		require.NotEmpty(t, b.Period)
		if gran != GranularityWeek {
			require.True(t, strings.HasPrefix(b.Since, b.Period), "%s labels its own start", gran)
		}
	})
}
