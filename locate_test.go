// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/testforest"
)

// locFixture opens a fresh copy of the fixture forest.
func locFixture(t *testing.T, opts *Options) *Vine {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	return openT(t, dir, opts)
}

func locIDs(res *LocateResult) []string { return res.nodeIDs() }

// locCall runs locate through the signature table, as a transport does.
func locCall(t *testing.T, v *Vine, args string) (*LocateResult, error) {
	t.Helper()
	out, err := v.Call(context.Background(), "locate", []byte(args))
	if err != nil {
		return nil, err
	}
	res, ok := out.(*LocateResult)
	require.True(t, ok, "locate returned %T", out)
	return res, nil
}

// locWire renders a result as a transport would.
func locWire(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func locRequireSchema(t *testing.T, err error, param string) {
	t.Helper()
	var e *envelope.Error
	require.True(t, errors.As(err, &e), "want an envelope, got %v", err)
	assert.Equal(t, envelope.Schema, e.Code)
	assert.Contains(t, e.Message, "'"+param+"'", "the message names the parameter")
}

// locUpsert writes catalog rows straight into the fixture's catalog, for
// shapes the fixture does not have.
func locUpsert(t *testing.T, v *Vine, recs ...catalog.Record) {
	t.Helper()
	for i := range recs {
		r := &recs[i]
		if r.Kind == "" {
			r.Kind = "note"
		}
		if r.Type == "" {
			r.Type = "note"
		}
		r.Confidence = 1
		r.Parent = forest.ParentIndex(r.ID)
		r.Trail = forest.Trail(r.ID)
	}
	require.NoError(t, v.Catalog().Upsert(context.Background(), recs...))
}

func TestLocateResultShape(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	res, err := v.Locate(ctx, "Tidewatch buoys and projects", LocateOptions{K: 8, Include: []string{"outline"}})
	require.NoError(t, err)
	require.NotEmpty(t, res.Results)
	assert.Equal(t, 1.0, res.Results[0].Score, "the top lexical hit has strength 1")

	sawBranch := false
	for i, h := range res.Results {
		rec, ok, err := v.Catalog().Get(ctx, h.ID)
		require.NoError(t, err)
		require.True(t, ok, h.ID)
		assert.Equal(t, rec.BodyTokens, h.BodyTokens, "body_tokens is the catalog's value (%s)", h.ID)
		assert.Equal(t, forest.Trail(h.ID), h.Trail)
		assert.NotContains(t, h.Trail, h.ID, "the trail excludes the node")
		assert.Equal(t, rec.Title, h.Title)
		assert.Equal(t, rec.Summary, h.Summary)
		assert.Equal(t, rec.Type, h.Type)
		assert.NotNil(t, h.Outline, "include outline: every result carries outline")
		assert.Equal(t, slices.Concat([]string{}, rec.Outline), h.Outline)
		if i > 0 {
			assert.GreaterOrEqual(t, res.Results[i-1].Score, h.Score, "sorted by score")
		}
		switch h.Kind {
		case "branch":
			sawBranch = true
			n, b, ok := forest.ParseCoverage(rec.Coverage)
			require.True(t, ok, "fixture branches state their coverage")
			assert.Equal(t, &BranchCoverage{Notes: n, Branches: b}, h.Coverage)
		case "note":
			assert.Nil(t, h.Coverage, "coverage is for branches only")
		default:
			t.Errorf("kind %q on the wire", h.Kind)
		}
	}
	assert.True(t, sawBranch, "the question reaches the tidewatch branch too")

	raw := []byte(locWire(t, res))
	assert.Equal(t, []string{"results", "truncated"}, jsonKeys(t, raw), "a plain non-empty answer has no conditional keys")
	var top struct{ Results []json.RawMessage }
	require.NoError(t, json.Unmarshal(raw, &top))
	for _, r := range top.Results {
		keys := jsonKeys(t, r)
		want := []string{"id", "kind", "type", "title", "summary", "trail", "score", "heat", "body_tokens"}
		if slices.Contains(keys, "coverage") {
			want = append(want, "coverage")
		}
		assert.Equal(t, append(want, "outline"), keys)
	}
	plain, err := v.Locate(ctx, "Tidewatch buoys and projects", LocateOptions{K: 8})
	require.NoError(t, err)
	assert.NotContains(t, locWire(t, plain), `"outline"`, "no outline unless included")
	assert.NotContains(t, locWire(t, plain), "banana", "the legacy word stays in index headings only")
	assert.Equal(t, locIDs(res), locIDs(plain), "outline changes no ranking")
}

func TestLocateEmptyOutlineIsAList(t *testing.T) {
	v := locFixture(t, nil)
	locUpsert(t, v, catalog.Record{ID: "notes/quokka", Title: "Quokka census", Summary: "Counting quokkas."})
	res, err := v.Locate(context.Background(), "quokka", LocateOptions{Include: []string{"outline"}})
	require.NoError(t, err)
	require.Equal(t, []string{"notes/quokka"}, locIDs(res))
	assert.Contains(t, locWire(t, res), `"outline":[]`)
}

func TestLocateTerms(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"how do I fix the 421 from MCP", []string{"421", "MCP"}},
		{"api", []string{"api"}},                             // derives nothing: the raw words
		{"what is the", []string{"what", "is", "the"}},       // pure grammar: the raw words
		{"error sql on worker", []string{"error", "worker"}}, // the stated cost of C.1.2 rule 3
		{"  ice  ", []string{"ice"}},
		{strings.Repeat("ice sea ", 100), slices.Repeat([]string{"ice", "sea"}, locateMaxRawTerms/2)},
		{"", []string{}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, locateTerms(tt.query), tt.query)
	}
}

func TestLocateDerivesTermsAndFallsBack(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)

	// One short word derives nothing and is searched as typed.
	res, err := v.Locate(ctx, "ice", LocateOptions{})
	require.NoError(t, err)
	assert.Contains(t, locIDs(res), "operations/ice-supply")

	// The question is not the query: grammar around a code changes nothing.
	bare, err := v.Locate(ctx, "TW-2", LocateOptions{})
	require.NoError(t, err)
	asked, err := v.Locate(ctx, "how do I fix the TW-2 from it", LocateOptions{})
	require.NoError(t, err)
	assert.Equal(t, locWire(t, bare), locWire(t, asked))
	assert.Equal(t, "products/tidewatch-buoy", bare.Results[0].ID, "TW-2 is the buoy's alias")

	// Diacritics fold both ways.
	a, err := v.Locate(ctx, "ondulação", LocateOptions{})
	require.NoError(t, err)
	b, err := v.Locate(ctx, "ondulacao", LocateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, a.Results)
	assert.Equal(t, "concepts/swell", a.Results[0].ID)
	assert.Equal(t, locWire(t, a), locWire(t, b))

	// FTS syntax in a query is text, never an operator.
	for _, q := range []string{`"unbalanced`, `title:swell`, `swell OR NOT tide`, `NEAR(a b)`, `*`, `a"b`, "\x00swell"} {
		_, err := v.Locate(ctx, q, LocateOptions{})
		assert.NoError(t, err, "%q", q)
	}
}

func TestLocateScopeAndTypeFilter(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	const q = "cooperative Tidewatch Lighthouse"

	branches, err := v.Locate(ctx, q, LocateOptions{K: 10, Scope: "branches"})
	require.NoError(t, err)
	require.NotEmpty(t, branches.Results)
	for _, h := range branches.Results {
		assert.Equal(t, "branch", h.Kind, h.ID)
	}
	notes, err := v.Locate(ctx, q, LocateOptions{K: 10, Scope: "notes"})
	require.NoError(t, err)
	require.NotEmpty(t, notes.Results)
	for _, h := range notes.Results {
		assert.Equal(t, "note", h.Kind, h.ID)
	}
	alias, err := v.Locate(ctx, q, LocateOptions{K: 10, Scope: "bananas"})
	require.NoError(t, err)
	assert.Equal(t, locWire(t, notes), locWire(t, alias), "bananas is notes, without a warning")

	events, err := v.Locate(ctx, "Tidewatch storm assembly", LocateOptions{K: 10, TypeFilter: "event"})
	require.NoError(t, err)
	require.NotEmpty(t, events.Results)
	for _, h := range events.Results {
		assert.Equal(t, "event", h.Type, h.ID)
	}
	none, err := v.Locate(ctx, q, LocateOptions{TypeFilter: "no-such-type"})
	require.NoError(t, err)
	assert.Empty(t, none.Results, "an unknown type matches nothing")
	assert.NotNil(t, none.Searched)

	for _, bad := range []string{"branch", "ALL", "leaves", " all"} {
		_, err := v.Locate(ctx, q, LocateOptions{Scope: bad})
		locRequireSchema(t, err, "scope")
		assert.Contains(t, err.Error(), fmt.Sprintf("%q", bad))
		assert.Contains(t, err.Error(), "all, branches, notes")
	}
	_, err = locCall(t, v, `{"query": "tide", "scope": "everything"}`)
	locRequireSchema(t, err, "scope")
}

// TestLocateFiltersInsideTheSearch proves scope, type_filter and the
// window are applied where candidates are chosen: thirty better-ranked
// notes would fill a 25-row pool filtered afterwards, and k is still met.
func TestLocateFiltersInsideTheSearch(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	var recs []catalog.Record
	for i := range 30 {
		recs = append(recs, catalog.Record{ID: fmt.Sprintf("kelp/n%02d", i), Title: "Kelp kelp kelp",
			Tags: []string{"kelp"}, Summary: "Kelp.", Created: "2026-05-01", Updated: "2026-05-01"})
	}
	recs = append(recs,
		catalog.Record{ID: "kelp/_index", Kind: "branch", Type: "branch", Title: "Seaweed",
			Summary: "Where kelp notes live, among a great many other words of a long summary.", Created: "2019-01-01"},
		catalog.Record{ID: "kelp/e1", Type: "event", Title: "Harvest day", Summary: "The kelp harvest of a long season.", Created: "2019-03-02"},
		catalog.Record{ID: "kelp/e2", Type: "event", Title: "Storm day", Summary: "Kelp torn loose by a storm, with a long story.", Created: "2019-07-09"},
	)
	locUpsert(t, v, recs...)

	res, err := v.Locate(ctx, "kelp", LocateOptions{K: 1, Scope: "branches"})
	require.NoError(t, err)
	assert.Equal(t, []string{"kelp/_index"}, locIDs(res))

	res, err = v.Locate(ctx, "kelp", LocateOptions{K: 2, TypeFilter: "event"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"kelp/e1", "kelp/e2"}, locIDs(res))
	assert.False(t, res.Truncated)

	res, err = v.Locate(ctx, "kelp", LocateOptions{K: 5, Since: "2019", Until: "2019"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"kelp/_index", "kelp/e1", "kelp/e2"}, locIDs(res))
	assert.Equal(t, 1.0, res.Results[0].Score, "strength is relative to the best row in the window")
}

func TestLocateK(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	const q = "Tidewatch"

	def, err := v.Locate(ctx, q, LocateOptions{})
	require.NoError(t, err)
	assert.Len(t, def.Results, locateDefaultK)
	assert.True(t, def.Truncated, "more than k candidates")

	one, err := v.Locate(ctx, q, LocateOptions{K: 1})
	require.NoError(t, err)
	assert.Equal(t, def.Results[:1], one.Results)
	assert.True(t, one.Truncated)

	all, err := v.Locate(ctx, q, LocateOptions{K: 1000})
	require.NoError(t, err)
	assert.Greater(t, len(all.Results), locateDefaultK, "no upper cap on k")
	assert.Equal(t, def.Results, all.Results[:locateDefaultK], "k cuts the same ranking")

	few, err := v.Locate(ctx, "Coldbox", LocateOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, few.Results)
	assert.Less(t, len(few.Results), locateDefaultK)
	assert.False(t, few.Truncated, "every candidate returned")

	wired, err := locCall(t, v, `{"query": "Tidewatch"}`)
	require.NoError(t, err)
	assert.Equal(t, locWire(t, def), locWire(t, wired), "k defaults to 5 on the wire")

	for _, args := range []string{`{"query": "tide", "k": 0}`, `{"query": "tide", "k": -3}`} {
		_, err := locCall(t, v, args)
		locRequireSchema(t, err, "k")
	}
	for _, args := range []string{`{"query": "tide", "k": "3"}`, `{"query": "tide", "k": 2.5}`} {
		_, err := locCall(t, v, args)
		locRequireSchema(t, err, "k")
	}
	_, err = v.Locate(ctx, q, LocateOptions{K: -1})
	locRequireSchema(t, err, "k")
	assert.Equal(t, 25, locatePool(1))
	assert.Equal(t, 25, locatePool(5))
	assert.Equal(t, 50, locatePool(10))
	assert.Positive(t, locatePool(int(^uint(0)>>1)), "no overflow")
}

func TestLocateInclude(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	res, err := v.Locate(ctx, "tide", LocateOptions{Include: []string{}})
	require.NoError(t, err, "an empty include is valid")
	assert.NotContains(t, locWire(t, res), "outline")

	for _, inc := range [][]string{{"body"}, {"outline", "summary"}, {"Outline"}} {
		_, err := v.Locate(ctx, "tide", LocateOptions{Include: inc})
		locRequireSchema(t, err, "include")
		assert.Contains(t, err.Error(), "outline", "the message names the accepted set")
	}
	_, err = locCall(t, v, `{"query": "tide", "include": "outline"}`)
	locRequireSchema(t, err, "include")
	_, err = locCall(t, v, `{"query": "tide", "include": ["body"]}`)
	locRequireSchema(t, err, "include")

	// Validation order: include, then scope, then the window.
	_, err = v.Locate(ctx, "tide", LocateOptions{Include: []string{"x"}, Scope: "x", Since: "x"})
	locRequireSchema(t, err, "include")
	_, err = v.Locate(ctx, "tide", LocateOptions{Scope: "x", Since: "x"})
	locRequireSchema(t, err, "scope")
	_, err = v.Locate(ctx, "tide", LocateOptions{Since: "x"})
	locRequireSchema(t, err, "since")
}

// locHeat is a HeatSource with fixed values that records its calls.
type locHeat struct {
	mu    sync.Mutex
	heat  map[string]float64
	calls [][]string
}

func (f *locHeat) Heat(_ context.Context, ids []string) (map[string]float64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, slices.Clone(ids))
	out := map[string]float64{}
	for _, id := range ids {
		if h, ok := f.heat[id]; ok {
			out[id] = h
		}
	}
	return out, nil
}

func TestLocateHeatReRanks(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	const q = "Tidewatch"
	coldV := openT(t, dir, &Options{ReadOnly: true})
	cold, err := coldV.Locate(ctx, q, LocateOptions{K: 10})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(cold.Results), 4)
	for _, h := range cold.Results {
		assert.Zero(t, h.Heat, "no heat source: every node is cold")
	}
	// Heat the fourth hit fully and the second a little.
	fourth, second := cold.Results[3], cold.Results[1]
	src := &locHeat{heat: map[string]float64{fourth.ID: 1, second.ID: 0.123456, "unrelated": 1}}
	hotV := openT(t, dir, &Options{ReadOnly: true, Heat: src})
	hot, err := hotV.Locate(ctx, q, LocateOptions{K: 10})
	require.NoError(t, err)

	require.Len(t, src.calls, 1, "heat for the whole pool in one batch")
	assert.Subset(t, src.calls[0], locIDs(cold), "every candidate's heat is read, beyond k too")
	byID := map[string]LocateHit{}
	for _, h := range hot.Results {
		byID[h.ID] = h
	}
	assert.Equal(t, 1.0, byID[fourth.ID].Heat)
	// The cold score is the strength rounded, hence the delta.
	assert.InDelta(t, fourth.Score*1.3, byID[fourth.ID].Score, 1.5e-4, "score = strength × (1 + 0.3 × heat)")
	assert.Equal(t, 0.1235, byID[second.ID].Heat, "heat is rounded to 4 decimals")
	assert.InDelta(t, second.Score*(1+0.3*0.123456), byID[second.ID].Score, 1.5e-4)
	for _, h := range hot.Results {
		assert.Equal(t, locateRound4(h.Score), h.Score, "score is rounded to 4 decimals")
	}
	for i := 1; i < len(hot.Results); i++ {
		assert.GreaterOrEqual(t, hot.Results[i-1].Score, hot.Results[i].Score)
	}
	if fourth.Score*1.3 > cold.Results[2].Score {
		assert.Less(t, slices.Index(locIDs(hot), fourth.ID), 3, "a hot node climbs")
	}

	zero := 0.0
	off, err := hotV.Locate(withLocateSeam(ctx, locateSeam{alpha: &zero}), q, LocateOptions{K: 10})
	require.NoError(t, err)
	assert.Equal(t, locIDs(cold), locIDs(off), "alpha 0 disables heat in the score")
	assert.Equal(t, 1.0, off.Results[slices.Index(locIDs(off), fourth.ID)].Heat, "heat is still reported")
}

func TestLocateStableTies(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	var recs []catalog.Record
	for i := range 12 {
		recs = append(recs, catalog.Record{ID: fmt.Sprintf("twins/t%02d", i), Title: "Narwhal", Summary: "Same."})
	}
	locUpsert(t, v, recs...)
	res, err := v.Locate(ctx, "narwhal", LocateOptions{K: 12})
	require.NoError(t, err)
	require.Len(t, res.Results, 12)
	for i, h := range res.Results {
		assert.Equal(t, 1.0, h.Score)
		assert.Equal(t, fmt.Sprintf("twins/t%02d", i), h.ID, "equal scores keep the lexical (index) order")
	}
}

func TestLocateBudget(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	long := strings.Repeat("A very long summary about sea otters and their rafts. ", 8)
	var recs []catalog.Record
	for i := range 40 {
		recs = append(recs, catalog.Record{ID: fmt.Sprintf("otters/o%02d", i), Title: "Sea otter raft", Summary: long,
			Outline:    []string{"A rather long section header number one", "Another rather long header", "Yet another long header"},
			BodyTokens: 1000 + i})
	}
	locUpsert(t, v, recs...)

	for _, inc := range [][]string{nil, {"outline"}} {
		res, err := v.Locate(ctx, "otter", LocateOptions{K: 40, Include: inc})
		require.NoError(t, err)
		assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), locateBudget)
		assert.True(t, res.Truncated, "the budget cut results")
		assert.NotEmpty(t, res.Results)
		assert.Less(t, len(res.Results), 40)
		assert.Nil(t, res.Searched, "a cut answer is not an empty one")
		// One more result would not have fit.
		more, err := v.Locate(ctx, "otter", LocateOptions{K: len(res.Results) + 1, Include: inc})
		require.NoError(t, err)
		assert.Equal(t, res.Results, more.Results)
	}
	plain, err := v.Locate(ctx, "otter", LocateOptions{K: 40})
	require.NoError(t, err)
	outlined, err := v.Locate(ctx, "otter", LocateOptions{K: 40, Include: []string{"outline"}})
	require.NoError(t, err)
	assert.Less(t, len(outlined.Results), len(plain.Results), "outlines cost tail results, never the budget")

	windowed, err := v.Locate(ctx, "otter", LocateOptions{K: 40, Since: "1900"})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(windowed), locateBudget, "window keys fit the budget too")
}

func TestLocateEmpty(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	st, err := v.Catalog().Stats(ctx)
	require.NoError(t, err)

	for _, q := range []string{"xylophone zeppelin", "", "   "} {
		res, err := v.Locate(ctx, q, LocateOptions{})
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`{"results":[],"truncated":false,"searched":%d,`+
			`"hint":"Nothing in titles, aliases, tags or summaries matched. Bodies are searched by sniff(terms)."}`, st.Nodes),
			locWire(t, res), "query %q", q)
	}
	// searched is the whole forest whatever the filters.
	res, err := v.Locate(ctx, "tide", LocateOptions{Scope: "branches", TypeFilter: "nothing"})
	require.NoError(t, err)
	require.NotNil(t, res.Searched)
	assert.Equal(t, st.Nodes, *res.Searched)
	assert.Nil(t, res.MatchedWindow, "an unwindowed miss has no matched_window")
}

func TestLocateWindow(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)

	res, err := v.Locate(ctx, "general assembly", LocateOptions{Since: "2026-09", Until: "2026-09"})
	require.NoError(t, err)
	assert.Contains(t, locIDs(res), "events/2026-09-assembly")
	assert.NotContains(t, locIDs(res), "events/2025-09-assembly")
	raw := locWire(t, res)
	assert.Contains(t, raw, `"window":{"since":"2026-09-01","until":"2026-09-30","date_field":"created"}`)
	assert.NotContains(t, raw, "undated_excluded", "fixture nodes are all dated")
	assert.NotContains(t, raw, "searched", "a non-empty answer has no empty-path keys")
	assert.NotContains(t, raw, "matched_window")

	open, err := v.Locate(ctx, "general assembly", LocateOptions{Until: "2025", DateField: "updated"})
	require.NoError(t, err)
	assert.Equal(t, []string{"events/2025-09-assembly"}, locIDs(open))
	assert.Contains(t, locWire(t, open), `"window":{"since":null,"until":"2025-12-31","date_field":"updated"}`)

	// No bounds: byte-identical to an unwindowed call, date_field or not.
	plain, err := v.Locate(ctx, "general assembly", LocateOptions{})
	require.NoError(t, err)
	field, err := v.Locate(ctx, "general assembly", LocateOptions{DateField: "updated"})
	require.NoError(t, err)
	assert.Equal(t, locWire(t, plain), locWire(t, field))

	locUpsert(t, v, catalog.Record{ID: "notes/undated", Title: "General assembly minutes draft", Summary: "No date yet."},
		catalog.Record{ID: "notes/half", Title: "Half dated", Summary: "Created only.", Created: "2026-01-01"})
	res, err = v.Locate(ctx, "general assembly", LocateOptions{Since: "2026-09", Until: "2026-09", DateField: "updated"})
	require.NoError(t, err)
	assert.Equal(t, 2, res.UndatedExcluded, "undated nodes are in no window and counted")
	assert.NotContains(t, locIDs(res), "notes/undated")
	res, err = v.Locate(ctx, "general assembly", LocateOptions{Since: "2026-09", DateField: "created"})
	require.NoError(t, err)
	assert.Equal(t, 1, res.UndatedExcluded, "counted on the chosen date field")

	for _, tt := range []struct{ since, until, field, param string }{
		{"2026-13", "", "", "since"},
		{"", "2026-02-30", "", "until"},
		{"26", "", "", "since"},
		{"", "", "indexed", "date_field"},
	} {
		_, err := v.Locate(ctx, "tide", LocateOptions{Since: tt.since, Until: tt.until, DateField: tt.field})
		locRequireSchema(t, err, tt.param)
	}
	_, err = v.Locate(ctx, "tide", LocateOptions{Since: "2026-09", Until: "2026-08"})
	require.Error(t, err)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	_, err = locCall(t, v, `{"query": "tide", "date_field": "indexed"}`)
	locRequireSchema(t, err, "date_field")
	_, err = locCall(t, v, `{"query": "tide", "since": 2026}`)
	locRequireSchema(t, err, "since")
}

func TestLocateEmptyWindowExplainsItself(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	st, err := v.Catalog().Stats(ctx)
	require.NoError(t, err)

	// The window holds nothing: it is the reason.
	res, err := v.Locate(ctx, "general assembly", LocateOptions{Since: "2030"})
	require.NoError(t, err)
	assert.Empty(t, res.Results)
	require.NotNil(t, res.MatchedWindow)
	assert.Zero(t, *res.MatchedWindow)
	require.NotNil(t, res.Searched)
	assert.Equal(t, st.Nodes, *res.Searched)
	assert.Equal(t, []string{"results", "truncated", "window", "searched", "matched_window", "hint"},
		jsonKeys(t, []byte(locWire(t, res))))
	assert.Contains(t, res.Hint, "sniff")
	assert.Contains(t, res.Hint, "on or after 2030-01-01")
	var first, last string
	require.NoError(t, v.Catalog().DB().QueryRowContext(ctx, "SELECT min(created), max(created) FROM nodes").Scan(&first, &last))
	assert.Contains(t, res.Hint, fmt.Sprintf("Dated nodes: %d, from %s to %s.", st.Nodes, first, last))
	assert.Contains(t, res.Hint, "Nearest populated months: 2026-11 (")
	assert.Contains(t, res.Hint, "calendar")

	// The window holds nodes: the question missed.
	res, err = v.Locate(ctx, "xylophone", LocateOptions{Since: "2026-01", Until: "2026-03"})
	require.NoError(t, err)
	require.NotNil(t, res.MatchedWindow)
	assert.Positive(t, *res.MatchedWindow)
	assert.Contains(t, res.Hint, "not the reason")
	assert.Contains(t, res.Hint, "sniff")
	for _, id := range []string{"events/", "Tidewatch", "Maré"} {
		assert.NotContains(t, res.Hint, id, "the hint names no content")
	}
}

// locDense is a dense layer with a fixed state and ranking.
type locDense struct {
	state string
	ids   []string
	err   error
	asked []string
}

func (f *locDense) State(context.Context) string { return f.state }

func (f *locDense) Nearest(_ context.Context, query string, n int) ([]string, error) {
	f.asked = append(f.asked, fmt.Sprintf("%s|%d", query, n))
	return f.ids[:min(n, len(f.ids))], f.err
}

func TestLocateHybrid(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	const q = "how are the buoys calibrated"
	lexical, err := v.Locate(ctx, q, LocateOptions{K: 10})
	require.NoError(t, err)
	assert.NotContains(t, locWire(t, lexical), "hybrid", "no echo unless asked")

	// No dense layer: the lexical answer, and an echo saying why.
	res, err := v.Locate(ctx, q, LocateOptions{K: 10, Hybrid: true})
	require.NoError(t, err)
	require.NotNil(t, res.Hybrid)
	assert.False(t, *res.Hybrid)
	assert.Equal(t, "no-embedder", res.HybridReason)
	assert.Equal(t, lexical.Results, res.Results)
	assert.True(t, strings.HasSuffix(locWire(t, res), `"hybrid":false,"hybrid_reason":"no-embedder"}`))
	wired, err := locCall(t, v, `{"query": "how are the buoys calibrated", "k": 10, "hybrid": true}`)
	require.NoError(t, err)
	assert.Equal(t, locWire(t, res), locWire(t, wired))

	for _, state := range []string{"no-index", "model-mismatch"} {
		d := &locDense{state: state, ids: []string{"concepts/tide"}}
		res, err := v.Locate(withLocateSeam(ctx, locateSeam{dense: d}), q, LocateOptions{K: 10, Hybrid: true})
		require.NoError(t, err)
		assert.False(t, *res.Hybrid)
		assert.Equal(t, state, res.HybridReason)
		assert.Empty(t, d.asked, "a layer that is not ready is not asked")
		assert.Equal(t, lexical.Results, res.Results)
	}

	// An active layer fuses: vector extras join when they pass the window.
	d := &locDense{state: "active", ids: []string{
		"concepts/tide", lexical.Results[1].ID, "events/2025-11-storm-iara", "no/such-node", "concepts/tide"}}
	res, err = v.Locate(withLocateSeam(ctx, locateSeam{dense: d}), q, LocateOptions{K: 10, Hybrid: true, Since: "2025-09-02"})
	require.NoError(t, err)
	assert.True(t, *res.Hybrid)
	assert.Equal(t, "active", res.HybridReason)
	assert.Equal(t, []string{q + "|50"}, d.asked, "the raw query, max(5k, 25) hits")
	ids := locIDs(res)
	assert.Equal(t, lexical.Results[1].ID, ids[0], "in both lists: fused first")
	assert.Contains(t, ids, "events/2025-11-storm-iara", "a vector extra inside the window joins")
	assert.NotContains(t, ids, "no/such-node")
	tide, _, err := v.Catalog().Get(ctx, "concepts/tide")
	require.NoError(t, err)
	if tide.Created < "2025-09-02" {
		assert.NotContains(t, ids, "concepts/tide", "a vector extra outside the window stays out")
	}
	assert.Equal(t, 1.0, res.Results[0].Score)

	// An embedding failure answers lexically.
	d = &locDense{state: "active", err: errors.New("provider down")}
	res, err = v.Locate(withLocateSeam(ctx, locateSeam{dense: d}), q, LocateOptions{K: 10, Hybrid: true})
	require.NoError(t, err)
	assert.False(t, *res.Hybrid)
	assert.Equal(t, lexical.Results, res.Results)
}

func TestFuseRRF(t *testing.T) {
	lex := []locateCand{{id: "a"}, {id: "b"}, {id: "c"}}
	extras := map[string]locateCand{"x": {id: "x"}}
	out := fuseRRF(lex, []string{"c", "x", "gone", "c", "a"}, extras)
	ids := make([]string, len(out))
	got := map[string]float64{}
	for i, c := range out {
		ids[i] = c.id
		got[c.id] = c.strength
	}
	assert.Equal(t, []string{"a", "b", "c", "x"}, ids, "the lexical pool, then extras in vector order")
	fa := 1.0/61 + 1.0/63 // lexical 0, vector 2 ("gone" is skipped, the repeat of c too)
	fb := 1.0 / 62
	fc := 1.0/63 + 1.0/61
	fx := 1.0 / 62
	best := max(fa, fc)
	assert.InDelta(t, fa/best, got["a"], 1e-12)
	assert.InDelta(t, fb/best, got["b"], 1e-12)
	assert.InDelta(t, fc/best, got["c"], 1e-12)
	assert.InDelta(t, fx/best, got["x"], 1e-12)
}

func TestLocateThroughCall(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	obs := &locObserver{}
	v := openT(t, dir, &Options{ReadOnly: true, Observer: obs})
	res, err := locCall(t, v, `{"query": "Tidewatch buoy", "k": 3, "scope": "notes", "include": ["outline"]}`)
	require.NoError(t, err)
	require.Len(t, obs.events, 1)
	e := obs.events[0]
	assert.Equal(t, "locate", e.Primitive)
	assert.Empty(t, e.NodeID, "a query is never an id")
	assert.Equal(t, locIDs(res), e.Returned)

	_, err = locCall(t, v, `{"k": 3}`)
	locRequireSchema(t, err, "query")
	_, err = locCall(t, v, `{"query": "tide", "limit": 3}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unknown parameter 'limit'")

	sig, ok := LookupSignature("locate")
	require.True(t, ok)
	assert.Equal(t, locateBudget, sig.Budget)
	assert.True(t, sig.ReadOnly)
	var names []string
	for _, p := range sig.Params {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"query", "k", "scope", "type_filter", "include", "since", "until", "date_field", "hybrid"}, names)
}

type locObserver struct {
	mu     sync.Mutex
	events []Event
}

func (o *locObserver) Observe(_ context.Context, e Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
}

func TestLocateReferenceForest(t *testing.T) {
	dir := testforest.Reference(t)
	v := openT(t, dir, nil)
	res, err := v.Locate(context.Background(), "sales report", LocateOptions{Include: []string{"outline"}})
	require.NoError(t, err)
	assert.Contains(t, locIDs(res), "sales/report-q1-2026")
	for _, h := range res.Results {
		assert.Contains(t, []string{"note", "branch"}, h.Kind, "no legacy kind on the wire")
	}
}

// locateQuestion is one labelled question: the nodes that answer it were
// chosen by reading internal/fixture/content.go, never by running a search.
type locateQuestion struct {
	query    string
	expected []string // any of them answers
}

var locateQuestions = []locateQuestion{
	{"Who is the treasurer of the cooperative?", []string{"people/lucia-andrade"}},
	{"How long does the Coldbox keep fish cold without power?", []string{"products/coldbox-c3"}},
	{"What wave height triggers a storm alert?", []string{"projects/tidewatch/alert-thresholds"}},
	{"Which radio channel do boats check in on at night?", []string{"projects/lighthouse/radio-protocol", "operations/radio-schedule"}},
	{"When was the Frio Sul contract signed?", []string{"events/2026-01-frio-sul-contract"}},
	{"What is dead reckoning?", []string{"concepts/dead-reckoning"}},
	{"How much does the state pay per litre of diesel?", []string{"finance/fuel-subsidy"}},
	{"Who audited the 2025 accounts?", []string{"events/2026-03-audit", "organizations/contas-claras"}},
	{"How is the Lighthouse budget split?", []string{"projects/lighthouse/budget"}},
	{"What does SWH mean?", []string{"concepts/significant-wave-height"}},
	{"Why did the ice plant stop in July?", []string{"events/2026-07-ice-plant-failure"}},
	{"How much are the monthly member dues?", []string{"finance/member-dues"}},
	{"Who develops the Farol app?", []string{"people/sofia-lemos"}},
	{"How long does the TW-2 battery last?", []string{"products/tidewatch-buoy"}},
	{"How are buoys calibrated before deployment?", []string{"projects/tidewatch/calibration"}},
	{"Is there a photo of Storm Iara?", []string{"media/storm-photo"}},
	{"At what Beaufort force do boats stay in port?", []string{"concepts/beaufort-scale"}},
	{"What must be checked before leaving port?", []string{"operations/departure-checklist"}},
	{"Why did Beacon LX win the selection?", []string{"projects/lighthouse/beacon-selection"}},
	{"Where are the Tidewatch buoys deployed?", []string{"projects/tidewatch/deployment-map"}},
	{"ondulação", []string{"concepts/swell"}},
	{"cadeia do frio", []string{"concepts/cold-chain"}},
	{"Which university validates the buoy measurements?", []string{"organizations/ufba-ocean-lab"}},
	{"LoRa", []string{"concepts/lora"}},
}

// TestLocateQuality measures entry-search quality on the labelled set and
// holds recall@5 at 0.9 or better.
func TestLocateQuality(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	var r1, r5, mrr float64
	for _, lq := range locateQuestions {
		res, err := v.Locate(ctx, lq.query, LocateOptions{K: 10})
		require.NoError(t, err)
		rank := slices.IndexFunc(res.Results, func(h LocateHit) bool { return slices.Contains(lq.expected, h.ID) })
		switch {
		case rank < 0:
			t.Logf("miss   %-55q top: %v", lq.query, locIDs(res)[:min(3, len(res.Results))])
		case rank > 0:
			t.Logf("rank %d %-55q top: %v", rank+1, lq.query, locIDs(res)[:min(3, len(res.Results))])
		}
		if rank == 0 {
			r1++
		}
		if rank >= 0 && rank < 5 {
			r5++
		}
		if rank >= 0 {
			mrr += 1 / float64(rank+1)
		}
	}
	n := float64(len(locateQuestions))
	t.Logf("locate quality on %d questions: recall@1 %.3f, recall@5 %.3f, MRR %.3f", len(locateQuestions), r1/n, r5/n, mrr/n)
	assert.GreaterOrEqual(t, r5/n, 0.9, "recall@5")
}

// withLocateSeam makes locate calls under ctx use seam's overrides.
func withLocateSeam(ctx context.Context, seam locateSeam) context.Context {
	return context.WithValue(ctx, locateSeamKey{}, seam)
}
