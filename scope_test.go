// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// scopeTestPolicy sees the projects branch but not tidewatch inside it.
var scopeTestPolicy = Policy{
	Allow: []string{"projects"},
	Deny:  []string{"/projects/tidewatch/"},
	Caps:  []Capability{CapRead, CapWrite, CapQuery, CapTend},
}

func TestPolicySQLAgreesWithInScope(t *testing.T) {
	dir, man := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()
	for name, p := range map[string]Policy{
		"whole":          {Allow: []string{""}},
		"whole deny":     {Allow: []string{"", "people"}, Deny: []string{"projects/"}},
		"one branch":     {Allow: []string{"finance/"}},
		"two branches":   {Allow: []string{"finance", "/people/"}},
		"nested deny":    scopeTestPolicy,
		"nothing":        {},
		"prefix is word": {Allow: []string{"project"}},
		"deny everything": {Allow: []string{""}, Deny: []string{"concepts", "events", "finance", "library", "media",
			"operations", "organizations", "people", "products", "projects"}},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := compilePolicy(p)
			require.NoError(t, err)
			var want []string
			for _, id := range man.Nodes {
				if s.in(id) {
					want = append(want, id)
				}
			}
			cond, args := s.sql("id")
			rows, err := v.cat.DB().QueryContext(ctx, "SELECT id FROM nodes WHERE "+cond+" ORDER BY id", args...)
			require.NoError(t, err)
			defer rows.Close()
			var got []string
			for rows.Next() {
				var id string
				require.NoError(t, rows.Scan(&id))
				got = append(got, id)
			}
			require.NoError(t, rows.Err())
			slices.Sort(want)
			assert.Equal(t, want, got)
		})
	}
}

func TestPolicyRefusesUnknownCapability(t *testing.T) {
	_, err := compilePolicy(Policy{Caps: []Capability{"root"}})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, envelope.Schema, e.Code)
	assert.Contains(t, e.Message, `"root"`)
}

// scopedBody runs a call through sc and returns its envelope bytes with
// the given id replaced by a placeholder, so a hidden id and an absent
// one compare byte for byte.
func scopedBody(t *testing.T, sc *Scoped, name, args, id string) string {
	t.Helper()
	_, err := sc.Call(context.Background(), name, []byte(args))
	require.Error(t, err, "%s %s must be refused", name, args)
	return strings.ReplaceAll(string(AsError(name, err).Body()), id, "<ID>")
}

func TestScopedHiddenIDAnswersLikeAbsent(t *testing.T) {
	v, dir := writableFixture(t)
	sc, err := v.Scoped(scopeTestPolicy)
	require.NoError(t, err)
	before := testforest.TreeDigest(t, dir)
	head := testforest.Head(t, dir)

	hidden := map[string]string{ // a hidden node per kind, reached by id
		"leaf":    "people/ana-ribeiro",
		"denied":  "projects/tidewatch/design",
		"branch":  "projects/tidewatch/_index",
		"dataset": "finance/ledger-2026",
	}
	const absent = "projects/no-such-node"
	calls := []struct{ name, args string }{
		{"look", `{"id":%q}`},
		{"pick", `{"id":%q}`},
		{"move", `{"id":%q,"direction":"up"}`},
		{"history", `{"id":%q}`},
		{"view", `{"id":%q}`},
		{"query", `{"id":%q,"sql":"SELECT 1"}`},
		{"graft", `{"id":%q,"patch":{"set_frontmatter":{"tags":["x"]}}}`},
		{"prune", `{"id":%q}`},
		{"tend", `{"id":%q,"sql":"DELETE FROM entries WHERE 0"}`},
		{"transplant", `{"id":%q,"new_id":"projects/moved-here"}`},
		{"sniff", `{"terms":["harbour"],"scope":%q}`},
		{"calendar", `{"scope":%q}`},
		{"coverage", `{"scope":%q}`},
	}
	for kind, id := range hidden {
		for _, c := range calls {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				got := scopedBody(t, sc, c.name, fmt.Sprintf(c.args, id), id)
				want := scopedBody(t, sc, c.name, fmt.Sprintf(c.args, absent), absent)
				assert.Equal(t, want, got)
			})
		}
	}
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "refusals leave the tree as it was")
	assert.Equal(t, head, testforest.Head(t, dir), "refusals make no commit")
}

func TestScopedCapabilities(t *testing.T) {
	v, _ := writableFixture(t)
	sc, err := v.Scoped(Policy{Allow: []string{""}, Caps: []Capability{CapRead}})
	require.NoError(t, err)
	ctx := context.Background()
	for name, args := range map[string]string{
		"plant": `{"node":{"id":"people/x","parent":"people/_index","title":"X","summary":"A person."}}`,
		"query": `{"id":"finance/ledger-2026","sql":"SELECT 1"}`,
		"tend":  `{"id":"finance/ledger-2026","sql":"DELETE FROM entries WHERE 0"}`,
	} {
		_, err := sc.Call(ctx, name, []byte(args))
		var e *Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, envelope.Forbidden, e.Code, name)
		assert.Contains(t, e.Message, name)
		assert.Equal(t, "this key holds: read", e.Hint)
	}
	_, err = sc.Call(ctx, "look", []byte(`{"id":"people/ana-ribeiro"}`))
	assert.NoError(t, err, "read is granted")

	admin, err := v.Scoped(FullPolicy())
	require.NoError(t, err)
	assert.True(t, admin.Can(CapTend), "admin implies every capability")
	assert.True(t, admin.Unrestricted())
	assert.Equal(t, []string{"_index"}, admin.Roots())
	assert.Equal(t, []string{"projects/_index"}, sc2(t, v).Roots())
}

func sc2(t *testing.T, v *Vine) *Scoped {
	sc, err := v.Scoped(scopeTestPolicy)
	require.NoError(t, err)
	return sc
}

func TestScopedCountsSeeOnlyVisibleNodes(t *testing.T) {
	dir, man := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	sc := sc2(t, v)
	visible := 0
	for _, id := range man.Nodes {
		if sc.InScope(id) {
			visible++
		}
	}
	require.Positive(t, visible)
	require.Less(t, visible, len(man.Nodes))

	res, err := sc.Call(context.Background(), "sniff", []byte(`{"terms":["the"],"k":50}`))
	require.NoError(t, err)
	sn := res.(*SniffResult)
	assert.Equal(t, visible, sn.ScannedNodes)
	for _, h := range sn.Results {
		assert.True(t, sc.InScope(h.ID), "sniff returned hidden %s", h.ID)
	}

	res, err = sc.Call(context.Background(), "calendar", []byte(`{"date_field":"updated"}`))
	require.NoError(t, err)
	cal := res.(*CalendarResult)
	total := cal.Undated
	for _, b := range cal.Buckets {
		total += b.Nodes
	}
	assert.Equal(t, visible, total, "calendar counts the visible nodes")

	res, err = sc.Call(context.Background(), "coverage", nil)
	require.NoError(t, err)
	cov, _ := json.Marshal(res)
	assert.NotContains(t, string(cov), "people/", "coverage names no hidden root")
}

func TestScopedMovedCollapsesWhenDestinationHidden(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	_, err := v.Transplant(ctx, "projects/roadmap-2027", "people/roadmap-2027")
	require.NoError(t, err)
	_, err = v.Transplant(ctx, "projects/project-rules", "projects/lighthouse/project-rules")
	require.NoError(t, err)
	sc := sc2(t, v)
	got := scopedBody(t, sc, "look", `{"id":"projects/roadmap-2027"}`, "projects/roadmap-2027")
	want := scopedBody(t, sc, "look", `{"id":"projects/nowhere"}`, "projects/nowhere")
	assert.Equal(t, want, got, "a redirect into hidden ground is a plain not-found")

	_, err = sc.Call(ctx, "look", []byte(`{"id":"projects/project-rules"}`))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, envelope.Moved, e.Code, "a redirect inside the scope stays a waymark")

	full, err := v.Scoped(FullPolicy())
	require.NoError(t, err)
	_, err = full.Call(ctx, "look", []byte(`{"id":"projects/roadmap-2027"}`))
	require.ErrorAs(t, err, &e)
	assert.Equal(t, envelope.Moved, e.Code, "an owner still sees the waymark")
}

func TestScopedWritesNeverReachHiddenGround(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := context.Background()
	// A hidden node links to a visible one: the visible one cannot be
	// moved or force-pruned by a key that cannot rewrite the hidden link.
	_, err := v.Graft(ctx, "people/ana-ribeiro", GraftPatch{AddLinks: []Link{{Rel: "related-to", Target: "projects/roadmap-2027"}}})
	require.NoError(t, err)
	sc := sc2(t, v)
	before, head := testforest.TreeDigest(t, dir), testforest.Head(t, dir)

	for _, tc := range []struct {
		name, args, code, msg string
	}{
		{"transplant", `{"id":"projects/project-rules","new_id":"people/project-rules"}`, "E_FORBIDDEN", "new_id people/project-rules is outside this key's grant"},
		{"transplant", `{"id":"projects/roadmap-2027","new_id":"projects/lighthouse/roadmap-2027"}`, "E_FORBIDDEN", "1 link(s) from nodes outside this key's grant"},
		{"prune", `{"id":"projects/roadmap-2027","force":true}`, "E_FORBIDDEN", "1 link(s) from nodes outside this key's grant"},
	} {
		_, err := sc.Call(ctx, tc.name, []byte(tc.args))
		var e *Error
		require.ErrorAs(t, err, &e, tc.args)
		assert.Equal(t, tc.code, string(e.Code), tc.args)
		assert.Contains(t, e.Message, tc.msg)
		assert.NotContains(t, string(e.Body()), "people/ana-ribeiro", "a refusal never names a hidden node")
	}
	_, err = sc.Call(ctx, "prune", []byte(`{"id":"projects/roadmap-2027"}`))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, envelope.Anchored, e.Code)
	assert.NotContains(t, string(e.Body()), "people/ana-ribeiro", "hidden anchors are counted, not named")
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
	assert.Equal(t, head, testforest.Head(t, dir))
}

func TestScopedDatasetTableAllowList(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	ds := "finance/ledger-2026"
	open, err := v.Scoped(Policy{Allow: []string{""}, Caps: []Capability{CapQuery, CapTend}})
	require.NoError(t, err)
	res, err := open.Call(ctx, "query", []byte(`{"id":"`+ds+`","sql":"SELECT name FROM sqlite_master WHERE type='table'"}`))
	require.NoError(t, err)
	require.NotEmpty(t, res.(*Rows).Rows, "the fixture dataset has tables")
	table := fmt.Sprint(res.(*Rows).Rows[0][0])

	none, err := v.Scoped(Policy{Allow: []string{""}, Caps: []Capability{CapQuery, CapTend},
		Datasets: map[string]DatasetGrant{ds: {Tables: []string{"some_other_table"}}}})
	require.NoError(t, err)
	for _, c := range []struct{ name, sql string }{
		{"query", "SELECT * FROM " + table},
		{"tend", "DELETE FROM " + table + " WHERE 0"},
	} {
		_, err := none.Call(ctx, c.name, []byte(fmt.Sprintf(`{"id":%q,"sql":%q}`, ds, c.sql)))
		var e *Error
		require.ErrorAs(t, err, &e, c.name)
		assert.Equal(t, envelope.QueryForbidden, e.Code, c.name)
		assert.NotContains(t, e.Message, table, "the refusal never names the table")
	}
	some, err := v.Scoped(Policy{Allow: []string{""}, Caps: []Capability{CapQuery},
		Datasets: map[string]DatasetGrant{ds: {Tables: []string{table}}}})
	require.NoError(t, err)
	_, err = some.Call(ctx, "query", []byte(fmt.Sprintf(`{"id":%q,"sql":"SELECT * FROM %s"}`, ds, table)))
	assert.NoError(t, err, "a granted table reads")
}

func TestScopedInEdgesAndRecordsHideHiddenNodes(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	_, err := v.Graft(ctx, "people/ana-ribeiro", GraftPatch{AddLinks: []Link{{Rel: "supersedes", Target: "projects/roadmap-2027"}}})
	require.NoError(t, err)
	all, err := v.InEdges(ctx, "projects/roadmap-2027")
	require.NoError(t, err)
	sctx := sc2(t, v).Context(ctx)
	seen, err := v.InEdges(sctx, "projects/roadmap-2027")
	require.NoError(t, err)
	assert.Len(t, seen, len(all)-1, "the hidden supersessor is no evidence under the policy")
	for _, e := range seen {
		assert.NotEqual(t, "people/ana-ribeiro", e.Src)
	}
	recs, err := v.Records(sctx, []string{"projects/roadmap-2027", "people/ana-ribeiro", "nowhere"})
	require.NoError(t, err)
	assert.Len(t, recs, 1)
	assert.Contains(t, recs, "projects/roadmap-2027")
}

// TestScopedReadsNeverNameHiddenNodes walks every read that lists nodes
// under a policy and checks no hidden id appears anywhere in the answer,
// while the unscoped engine does show hidden ids for the same call.
func TestScopedReadsNeverNameHiddenNodes(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	// Links across the boundary, both ways.
	_, err := v.Graft(ctx, "people/ana-ribeiro", GraftPatch{AddLinks: []Link{{Rel: "related-to", Target: "projects/roadmap-2027"}}})
	require.NoError(t, err)
	_, err = v.Graft(ctx, "projects/roadmap-2027", GraftPatch{AddLinks: []Link{{Rel: "related-to", Target: "people/ana-ribeiro"}}})
	require.NoError(t, err)
	sc := sc2(t, v)
	calls := []struct{ name, args string }{
		{"locate", `{"query":"harbour tide project roadmap people","k":20}`},
		{"locate", `{"query":"tidewatch calibration","k":20}`},
		{"sniff", `{"terms":["the"],"k":20}`},
		{"scan", `{"parent_id":"projects/_index","recursive":true,"fields":["title","trail"]}`},
		{"look", `{"id":"projects/roadmap-2027"}`},
		{"look", `{"id":"projects/_index"}`},
		{"move", `{"id":"projects/roadmap-2027","direction":"both"}`},
		{"move", `{"id":"projects/_index","rel":"children"}`},
		{"calendar", `{}`},
		{"coverage", `{}`},
	}
	hidden := []string{"people/", "projects/tidewatch/", `"_index"`}
	for _, c := range calls {
		res, err := sc.Call(ctx, c.name, []byte(c.args))
		require.NoError(t, err, "%s %s", c.name, c.args)
		out, _ := json.Marshal(res)
		for _, h := range hidden {
			assert.NotContains(t, string(out), h, "%s %s leaks %s", c.name, c.args, h)
		}
	}
	full, err := v.Call(ctx, "move", []byte(`{"id":"projects/roadmap-2027","direction":"both"}`))
	require.NoError(t, err)
	out, _ := json.Marshal(full)
	assert.Contains(t, string(out), "people/ana-ribeiro", "the unscoped engine shows the link (the test has teeth)")

	res, err := sc.Call(ctx, "scan", []byte(`{"parent_id":"projects/_index","recursive":true}`))
	require.NoError(t, err)
	visible := 0
	rows, err := v.cat.DB().Query("SELECT id FROM nodes WHERE id > 'projects/' AND id < 'projects0' AND id != 'projects/_index'")
	require.NoError(t, err)
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		if sc.InScope(id) {
			visible++
		}
	}
	require.NoError(t, rows.Close())
	assert.Equal(t, visible, res.(*ScanResult).Total, "scan's total counts visible nodes only")

	look, err := sc.Call(ctx, "look", []byte(`{"id":"projects/_index","fields":["coverage"]}`))
	require.NoError(t, err)
	cov := look.(*Digest).Coverage
	require.NotNil(t, cov)
	assert.Equal(t, 1, cov.Branches, "lighthouse only: tidewatch is denied")

	loc, err := sc.Call(ctx, "locate", []byte(`{"query":"projects","scope":"branches","k":5}`))
	require.NoError(t, err)
	for _, h := range loc.(*LocateResult).Results {
		if h.ID == "projects/_index" {
			require.NotNil(t, h.Coverage)
			assert.Equal(t, 1, h.Coverage.Branches, "locate recounts a branch's coverage too")
		}
	}
	sres, err := sc.Call(ctx, "scan", []byte(`{"parent_id":"projects/_index","fields":["coverage"],"filter":{"kind":"branch"}}`))
	require.NoError(t, err)
	for _, it := range sres.(*ScanResult).Nodes {
		if it.Coverage.Parsed {
			n, b, err := v.visibleCoverage(sc.Context(ctx), it.ID)
			require.NoError(t, err)
			assert.Equal(t, [2]int{n, b}, [2]int{it.Coverage.Notes, it.Coverage.Branches})
		}
	}
}

func TestScopedPlantStaysInsideTheGrant(t *testing.T) {
	v, dir := writableFixture(t)
	sc := sc2(t, v)
	ctx := context.Background()
	before, head := testforest.TreeDigest(t, dir), testforest.Head(t, dir)
	for _, tc := range []struct{ args, code, msg string }{
		{`{"node":{"id":"people/new","parent":"people/_index","type":"note","title":"N","summary":"A new person note."}}`, "E_FORBIDDEN", "node.id people/new is outside"},
		{`{"node":{"id":"projects/tidewatch/new","parent":"projects/tidewatch/_index","type":"note","title":"N","summary":"A new note."},"dry_run":true}`, "E_FORBIDDEN", "outside this key's grant"},
		{`{"node":[{"id":"projects/ok","parent":"projects/_index","type":"note","title":"N","summary":"A new note."},{"id":"people/x","parent":"people/_index","type":"note","title":"N","summary":"A note."}]}`, "E_FORBIDDEN", "node[1].id people/x"},
		{`{"node":{"parent":"projects/_index","type":"note","title":"N","summary":"A new note."}}`, "E_SCHEMA", "node.id is required"},
	} {
		_, err := sc.Call(ctx, "plant", []byte(tc.args))
		var e *Error
		require.ErrorAs(t, err, &e, tc.args)
		assert.Equal(t, tc.code, string(e.Code), tc.args)
		assert.Contains(t, e.Message, tc.msg)
	}
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
	assert.Equal(t, head, testforest.Head(t, dir))
	_, err := sc.Call(ctx, "plant", []byte(`{"node":{"id":"projects/new-note","parent":"projects/_index","type":"note","title":"New note","summary":"A note planted inside the grant."}}`))
	require.NoError(t, err, "inside the grant a plant lands")
}

// TestPolicyRefusesPrefixesThatMisgrant: a prefix that would match
// nothing, or a blank one that would grant the whole forest, is refused
// when the policy is compiled, whichever host built it.
func TestPolicyRefusesPrefixesThatMisgrant(t *testing.T) {
	good := []string{"", "/", "sales", "sales/", "/sales/", " ops/runbooks/ "}
	bad := []string{" ", "*", "sales/*", "sal?s/", "[a]/", "./sales", "../", "sales/../people", "a//b",
		`sales\x`, "sales/_index", "sales/x.md", "sa\x00les/"}
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	for _, p := range good {
		_, err := v.Scoped(Policy{Allow: []string{p}, Deny: []string{"x/"}, Caps: []Capability{CapRead}})
		assert.NoError(t, err, "allow %q", p)
	}
	for _, p := range bad {
		_, err := v.Scoped(Policy{Allow: []string{p}, Caps: []Capability{CapRead}})
		assert.Equal(t, ESchema, CodeOf(err), "allow %q", p)
		_, err = v.Scoped(Policy{Allow: []string{""}, Deny: []string{p}, Caps: []Capability{CapRead}})
		assert.Equal(t, ESchema, CodeOf(err), "deny %q", p)
	}
}
