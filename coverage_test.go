// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/testforest"
)

// coverageTwin derives the roots of a listing folder from records in Go,
// node by node: what the one GROUP BY must agree with.
func coverageTwin(recs []catalog.Record, listing string) []CoverageRoot {
	var roots []CoverageRoot
	for _, r := range recs {
		if r.Parent != listing || forest.IsSystem(r.ID) {
			continue
		}
		root := CoverageRoot{ID: r.ID, Title: r.Title, Kind: r.Kind}
		var origins []string
		for _, n := range recs {
			if n.ID != r.ID && (!forest.IsIndex(r.ID) || !strings.HasPrefix(n.ID, forest.BranchDir(r.ID)+"/")) {
				continue
			}
			root.Nodes++
			if n.Kind == "branch" {
				root.Branches++
			}
			if d := n.Created; d != "" {
				if root.First == "" || d[:10] < root.First {
					root.First = d[:10]
				}
				root.Last = max(root.Last, d[:10])
			}
			if n.Origin == "" {
				root.WithoutOrigin++
			} else {
				origins = append(origins, n.Origin)
			}
		}
		if len(origins) > 0 {
			root.Origin = coverageOrigin(slices.Min(origins), slices.Max(origins))
		}
		roots = append(roots, root)
	}
	slices.SortFunc(roots, func(a, b CoverageRoot) int {
		return cmp.Or(cmp.Compare(b.Nodes, a.Nodes), strings.Compare(b.ID, a.ID))
	})
	return roots
}

// coverageNoPayloads drops the payload counts, which TestCoveragePayloadsMissing
// proves, from roots compared with the twin.
func coverageNoPayloads(roots []CoverageRoot) []CoverageRoot {
	out := slices.Clone(roots)
	for i := range out {
		out[i].PayloadsMissing = 0
	}
	return out
}

// coverageTwinCounts groups values in Go: count desc, then value.
func coverageTwinCounts(recs []catalog.Record, value func(catalog.Record) string) CoverageCounts {
	n := map[string]int{}
	for _, r := range recs {
		if v := value(r); v != "" {
			n[v]++
		}
	}
	out := CoverageCounts{}
	for v, c := range n {
		out = append(out, CoverageCount{v, c})
	}
	slices.SortFunc(out, func(a, b CoverageCount) int {
		return cmp.Or(cmp.Compare(b.Nodes, a.Nodes), strings.Compare(a.Value, b.Value))
	})
	return out
}

// coverageIdentity checks C.17 r6: roots + the listing's own index (when
// in scope) + system nodes = total.
func coverageIdentity(t *testing.T, v *Vine, rep *CoverageReport, ownIndex string) {
	t.Helper()
	sum := rep.System
	for _, r := range rep.Roots {
		sum += r.Nodes
	}
	if _, ok, _ := v.Catalog().Get(context.Background(), ownIndex); ok {
		sum++
	}
	assert.Equal(t, rep.Total, sum, "roots + own index + system = total (scope %q)", rep.Scope)
}

func TestCoverageAccounting(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	ctx := context.Background()
	recs := regionRecords(t, v)

	rep, err := v.Coverage(ctx, CoverageOptions{})
	require.NoError(t, err)
	assert.Equal(t, coverageTwin(recs, forest.RootIndexID), coverageNoPayloads(rep.Roots))
	assert.Equal(t, len(recs), rep.Total)
	assert.Equal(t, coverageTwinCounts(recs, func(r catalog.Record) string { return r.Type }), rep.Types)
	assert.Equal(t, coverageTwinCounts(recs, func(r catalog.Record) string { return r.Source }), rep.Sources)
	assert.Equal(t, CoverageCounts{{"en", 1}, {"pt-BR", 1}}, rep.Langs)
	assert.Equal(t, 1, rep.Undated)
	assert.Equal(t, 1, rep.System)
	assert.Equal(t, "created", rep.DateField)
	assert.False(t, rep.Truncated)
	coverageIdentity(t, v, rep, forest.RootIndexID)

	raw, err := regionCall(t, v, "coverage", `{}`)
	require.NoError(t, err)
	assert.Equal(t, []string{"date_field", "roots", "total", "types", "sources", "langs", "undated", "system",
		"payloads_missing", "truncated"}, jsonKeys(t, raw))
	assert.Contains(t, string(raw), `"langs":{"en":1,"pt-BR":1}`)

	t.Run("every branch as scope", func(t *testing.T) {
		for _, r := range recs {
			if !forest.IsIndex(r.ID) || r.ID == forest.RootIndexID {
				continue
			}
			dir := forest.BranchDir(r.ID)
			rep, err := v.Coverage(ctx, CoverageOptions{Scope: dir})
			require.NoError(t, err)
			var in []catalog.Record
			for _, n := range recs {
				if strings.HasPrefix(n.ID, dir+"/") {
					in = append(in, n)
				}
			}
			assert.Equal(t, len(in), rep.Total, dir)
			assert.Equal(t, coverageTwin(recs, r.ID), coverageNoPayloads(rep.Roots), dir)
			assert.Equal(t, coverageTwinCounts(in, func(r catalog.Record) string { return r.Type }), rep.Types, dir)
			assert.Equal(t, dir, rep.Scope)
			coverageIdentity(t, v, rep, r.ID)
		}
	})
	t.Run("a leaf scope is its own root", func(t *testing.T) {
		rep, err := v.Coverage(ctx, CoverageOptions{Scope: "people/ana-ribeiro"})
		require.NoError(t, err)
		require.Len(t, rep.Roots, 1)
		assert.Equal(t, "people/ana-ribeiro", rep.Roots[0].ID)
		assert.Equal(t, "note", rep.Roots[0].Kind)
		assert.Equal(t, 1, rep.Roots[0].Nodes)
		assert.Equal(t, 1, rep.Total)
		coverageIdentity(t, v, rep, "") // the listing's index is outside the scope
	})
	t.Run("updated dates", func(t *testing.T) {
		rep, err := v.Coverage(ctx, CoverageOptions{Scope: "axb", DateField: "updated"})
		require.NoError(t, err)
		assert.Equal(t, "updated", rep.DateField)
		i := slices.IndexFunc(rep.Roots, func(r CoverageRoot) bool { return r.ID == "axb/morning" })
		require.GreaterOrEqual(t, i, 0)
		assert.Equal(t, "2026-03-01", rep.Roots[i].Last, "the updated date, ten characters")
	})
	for _, tt := range []struct {
		args string
		code envelope.Code
	}{
		{`{"date_field": "indexed"}`, envelope.Schema},
		{`{"scope": "nope"}`, envelope.NotFound},
		{`{"scope": "_meta"}`, envelope.Schema},
		{`{"scope": 3}`, envelope.Schema},
	} {
		_, err := regionCall(t, v, "coverage", tt.args)
		assert.Equal(t, tt.code, envelope.CodeOf(err), tt.args)
	}
}

func TestCoverageOriginPrefix(t *testing.T) {
	tests := []struct{ lo, hi, want string }{
		{"", "", ""},
		{"file:///a/x.txt", "file:///a/x.txt", "file:///a/x.txt"},
		{"file:///a/report-1.txt", "file:///a/report-2.txt", "file:///a/"},
		{"file:///a/b/x", "file:///a/c/y", "file:///a/"},
		{"https://h/a", "https://h/b", "https://h/"},
		{"/x", "/y", ""},   // only a leading slash: no prefix worth publishing
		{"abc", "abd", ""}, // no slash at all
		{"a/bc", "a/bd", "a/"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, coverageOrigin(tt.lo, tt.hi), "%q %q", tt.lo, tt.hi)
	}
}

// TestCoverageOriginRoundTrip: scan(root, recursive, origin_prefix) lists
// exactly the root's nodes that have an origin (F.104).
func TestCoverageOriginRoundTrip(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	ctx := context.Background()
	rep, err := v.Coverage(ctx, CoverageOptions{})
	require.NoError(t, err)
	seen := 0
	for _, r := range rep.Roots {
		if r.Origin == "" {
			assert.Equal(t, r.Nodes, r.WithoutOrigin, "%s: no origin stated means none derivable", r.ID)
			continue
		}
		seen++
		res, err := v.Scan(ctx, r.ID, ScanOptions{Recursive: true, Filter: ScanFilter{"origin_prefix": r.Origin}})
		require.NoError(t, err)
		assert.Equal(t, r.Nodes-r.WithoutOrigin, res.Total, r.ID)
	}
	assert.Equal(t, 2, seen, "library and a_b publish an origin")
	i := slices.IndexFunc(rep.Roots, func(r CoverageRoot) bool { return r.ID == "a_b/_index" })
	assert.Equal(t, "file:///dump/ab/", rep.Roots[i].Origin, "cut after the last common /")
}

func TestCoveragePayloadsMissing(t *testing.T) {
	v, dir, man := regionFixture(t, regionExtras, nil)
	ctx := context.Background()
	rep, err := v.Coverage(ctx, CoverageOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.PayloadsMissing, "axb/lost-data; the remote payload is not checked")
	byID := func(id string) CoverageRoot {
		i := slices.IndexFunc(rep.Roots, func(r CoverageRoot) bool { return r.ID == id })
		require.GreaterOrEqual(t, i, 0, id)
		return rep.Roots[i]
	}
	assert.Equal(t, 1, byID("axb/_index").PayloadsMissing)
	assert.Zero(t, byID("media/_index").PayloadsMissing)

	// The media node's image goes missing: counted by stat, per root.
	rec, ok, err := v.Catalog().Get(ctx, man.Media)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, os.Remove(filepath.Join(dir, filepath.Dir(man.Media), filepath.FromSlash(rec.Payload))))
	rep, err = v.Coverage(ctx, CoverageOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.PayloadsMissing)
	assert.Equal(t, 1, byID("media/_index").PayloadsMissing)
	raw, _ := regionCall(t, v, "coverage", `{"scope": "people"}`)
	assert.Contains(t, string(raw), `"payloads_missing":0`, "the total is always stated")
	assert.NotContains(t, strings.SplitN(string(raw), `"total"`, 2)[0], "payloads_missing", "a root states it only when > 0")
}

func TestCoverageBudgetDropsRootsNeverTotals(t *testing.T) {
	extra := map[string]string{}
	for i := range 80 {
		id := fmt.Sprintf("loose-note-%02d", i)
		extra[id] = regionLeaf(id, "2026-04-01")
	}
	v, _, _ := regionFixture(t, extra, nil)
	rep, err := v.Coverage(context.Background(), CoverageOptions{})
	require.NoError(t, err)
	assert.True(t, rep.Truncated)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(rep), coverageBudget)
	recs := regionRecords(t, v)
	all := coverageTwin(recs, forest.RootIndexID)
	require.Greater(t, len(all), len(rep.Roots))
	assert.Equal(t, all[:len(rep.Roots)], rep.Roots, "the largest roots are kept")
	assert.Equal(t, len(recs), rep.Total)
	assert.Equal(t, coverageTwinCounts(recs, func(r catalog.Record) string { return r.Type }), rep.Types)
}

func TestCoverageDepositsNoPheromone(t *testing.T) {
	obs := &regionObserver{}
	v, _, _ := regionFixture(t, nil, &Options{Observer: obs})
	_, err := v.Call(context.Background(), "coverage", []byte(`{}`))
	require.NoError(t, err)
	require.Len(t, obs.events, 1)
	assert.Empty(t, obs.events[0].Returned, "coverage chose no node")
}

func FuzzCoverageOrigin(f *testing.F) {
	f.Add("file:///a/x", "file:///a/y")
	f.Add("s3://b/k1", "s3://b/k1")
	f.Add("é/ü", "é/ö")
	f.Fuzz(func(t *testing.T, a, b string) {
		lo, hi := min(a, b), max(a, b)
		got := coverageOrigin(lo, hi)
		if got == "" {
			return
		}
		require.True(t, strings.HasPrefix(lo, got) && strings.HasPrefix(hi, got), "a common prefix")
		if lo != hi {
			require.True(t, strings.HasSuffix(got, "/"), "cut after a slash")
			require.Greater(t, strings.LastIndexByte(got, '/'), 0)
		}
	})
}

// TestRegionReadsOnTheReferenceForest runs the region reads over the
// forest the original implementation wrote.
func TestRegionReadsOnTheReferenceForest(t *testing.T) {
	v := openT(t, testforest.Reference(t), nil)
	ctx := context.Background()
	rep, err := v.Coverage(ctx, CoverageOptions{})
	require.NoError(t, err)
	assert.Equal(t, 82, rep.Total, "the reference reports 82 nodes")
	assert.Equal(t, 12, rep.Types.Get("branch"))
	assert.Equal(t, 20, rep.Types.Get("concept"))
	assert.Equal(t, 1, rep.System)
	coverageIdentity(t, v, rep, forest.RootIndexID)

	ids := regionWalk(t, v, "_index", ScanOptions{Recursive: true, Fields: []string{"kind", "coverage"}})
	assert.Len(t, ids, 81, "every node but _index")

	cal, err := v.Calendar(ctx, CalendarOptions{Granularity: GranularityYear})
	require.NoError(t, err)
	sum := 0
	for _, b := range cal.Buckets {
		sum += b.Nodes
	}
	assert.Equal(t, cal.Range.Nodes, sum)
	assert.Equal(t, rep.Total-rep.Undated, cal.Range.Nodes, "every dated node is on the calendar")
	assert.Equal(t, rep.Undated, cal.Undated)
}
