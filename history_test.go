// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/testforest"
)

// gitISO is git's %aI shape: seconds and a numeric offset, never Z.
var gitISO = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$`)

func TestHistoryFollowsTransplantAndReadsPrincipal(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	plant := `{"node": {"id": "operations/night-watch", "type": "note", "title": "Night watch",
		"summary": "Night watch rota for the harbour office: two people, 22:00-06:00.", "parent": "operations/_index"}}`
	_, err := v.Call(ctx, "plant", []byte(plant))
	require.NoError(t, err)
	_, err = v.Call(WithPrincipal(ctx, "alice"), "graft",
		[]byte(`{"id": "operations/night-watch", "patch": {"append_section": {"header": "Notes", "body": "Radio on 16."}}}`))
	require.NoError(t, err)
	_, err = v.Call(ctx, "transplant", []byte(`{"id": "operations/night-watch", "new_id": "projects/lighthouse/night-watch"}`))
	require.NoError(t, err)
	_, err = v.Call(ctx, "graft", []byte(`{"id": "projects/lighthouse/night-watch", "patch": {"set_frontmatter": {"tags": ["rota"]}}}`))
	require.NoError(t, err)

	out, err := call(t, v, "history", `{"id": "projects/lighthouse/night-watch"}`)
	require.NoError(t, err)
	assert.Equal(t, "projects/lighthouse/night-watch", out["id"])
	entries := out["entries"].([]any)
	require.Len(t, entries, 4, "the past before the move is listed too")
	var messages, actions []string
	for _, e := range entries {
		m := e.(map[string]any)
		messages = append(messages, m["message"].(string))
		actions = append(actions, m["action"].(string))
		assert.Len(t, m["commit"], 40)
		assert.Regexp(t, gitISO, m["at"])
	}
	assert.Equal(t, []string{
		"graft(projects/lighthouse/night-watch): set tags",
		"transplant(operations/night-watch -> projects/lighthouse/night-watch)",
		"graft(operations/night-watch): append 'Notes'",
		"plant(operations/night-watch): Night watch [source=agent]",
	}, messages, "newest first")
	assert.Equal(t, []string{"graft", "transplant", "graft", "plant"}, actions)
	assert.Equal(t, "alice", entries[2].(map[string]any)["by"])
	for _, i := range []int{0, 1, 3} {
		assert.NotContains(t, entries[i], "by", "engine-only writes carry no by")
	}
	assert.Equal(t, float64(4), out["returned"])
	assert.Equal(t, false, out["truncated"])
	assert.Equal(t, entries[3].(map[string]any)["commit"], out["oldest"])
	res, err := v.History(ctx, "projects/lighthouse/night-watch", HistoryOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "entries", "returned", "truncated", "oldest"}, wrKeys(t, res))
	assert.Equal(t, []string{"commit", "at", "message", "action", "by"}, wrKeys(t, res.Entries[2]))
}

func TestHistoryLimitClampAndTruncation(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	for i := range 3 {
		_, err := v.Graft(ctx, "operations/ice-supply", GraftPatch{SetFrontmatter: []forest.Field{{Key: "title", Value: fmt.Sprintf("Ice %d", i)}}})
		require.NoError(t, err)
	}
	tests := []struct {
		args      string
		returned  int
		truncated bool
	}{
		{`{"id": "operations/ice-supply"}`, 4, false},
		{`{"id": "operations/ice-supply", "limit": 2}`, 2, true},
		{`{"id": "operations/ice-supply", "limit": 4}`, 4, false},
		{`{"id": "operations/ice-supply", "limit": 0}`, 1, true},
		{`{"id": "operations/ice-supply", "limit": -5}`, 1, true},
		{`{"id": "operations/ice-supply", "limit": 1000}`, 4, false},
	}
	for _, tt := range tests {
		out, err := call(t, v, "history", tt.args)
		require.NoError(t, err, tt.args)
		assert.Equal(t, float64(tt.returned), out["returned"], tt.args)
		assert.Len(t, out["entries"], tt.returned, tt.args)
		assert.Equal(t, tt.truncated, out["truncated"], tt.args)
		entries := out["entries"].([]any)
		assert.Equal(t, entries[len(entries)-1].(map[string]any)["commit"], out["oldest"], tt.args)
	}
	assert.Equal(t, MaxHistoryLimit, clampHistoryLimit(1000))
	assert.Equal(t, DefaultHistoryLimit, clampHistoryLimit(0), "the typed zero value is the default")
}

func TestHistoryBudgetDropsWholeTailEntries(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	for i := range 40 {
		_, err := v.Graft(WithPrincipal(ctx, "a-rather-long-principal-name-for-the-audit-trail"), "operations/ice-supply",
			GraftPatch{SetFrontmatter: []forest.Field{{Key: "title", Value: fmt.Sprintf("Ice supply revision %d", i)}},
				AppendSection: &SectionEdit{Header: fmt.Sprintf("Revision %d with a long header to make the subject long", i), Body: "x"}})
		require.NoError(t, err)
	}
	res, err := v.History(ctx, "operations/ice-supply", HistoryOptions{Limit: 50})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Less(t, res.Returned, 41, "the budget cut the tail")
	assert.Positive(t, res.Returned)
	assert.Equal(t, res.Returned, len(res.Entries))
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), BudgetHistory)
	assert.Equal(t, res.Entries[len(res.Entries)-1].Commit, res.Oldest)
}

func TestHistoryRefusals(t *testing.T) {
	v, _ := writableFixture(t)
	_, err := call(t, v, "transplant", `{"id": "operations/waste-handling", "new_id": "operations/waste"}`)
	require.NoError(t, err)
	tests := []struct {
		args    string
		code    Code
		mention string
	}{
		{`{"id": "operations/nothing"}`, ENotFound, "node not found"},
		{`{"id": "operations/waste-handling"}`, EMoved, "operations/waste"},
		{`{"id": "operations/ice-supply", "limit": "3"}`, ESchema, "limit"},
		{`{"id": "operations/ice-supply", "limit": 2.5}`, ESchema, "limit"},
		{`{}`, ESchema, "id"},
	}
	for _, tt := range tests {
		_, err := call(t, v, "history", tt.args)
		require.Error(t, err, tt.args)
		assert.Equal(t, tt.code, CodeOf(err), tt.args)
		assert.Contains(t, err.Error(), tt.mention, tt.args)
	}
}

func TestHistoryOnReadOnlyForest(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	res, err := v.History(context.Background(), "operations/ice-supply", HistoryOptions{})
	require.NoError(t, err)
	require.Len(t, res.Entries, 1)
	assert.Equal(t, "plant", res.Entries[0].Action)
	assert.Equal(t, "2026-11-30T10:00:00+00:00", res.Entries[0].At)
	assert.Empty(t, res.Entries[0].By)
}

// historyJSON is a history response as the wire carries it, and its
// newest entry's message.
func historyJSON(t *testing.T, call func(context.Context, string, []byte) (any, error), id string, limit int) (string, string) {
	t.Helper()
	res, err := call(context.Background(), "history", fmt.Appendf(nil, `{"id": %q, "limit": %d}`, id, limit))
	require.NoError(t, err)
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	var out struct {
		Entries []HistoryEntry `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(raw, &out))
	require.NotEmpty(t, out.Entries)
	return string(raw), out.Entries[0].Message
}

func TestScopedHistoryRedactsEverySubjectShape(t *testing.T) {
	v, dir := writableFixture(t)
	sc, err := v.Scoped(scopeTestPolicy) // projects/ without projects/tidewatch/
	require.NoError(t, err)
	const (
		node  = "projects/lighthouse/budget"
		hid   = "people/ana-ribeiro"
		hid2  = "projects/tidewatch/design"
		vis   = "projects/roadmap-2027"
		title = "Salaries of the crew"
	)
	tests := []struct{ name, subject, want string }{
		{"init", gitops.InitSubject("Mare Alta"), "init: forest 'Mare Alta' (empty A.5 skeleton)"},
		{"plant batch", gitops.PlantBatchSubject(4), "plant(batch): 4 nodes"},
		{"plant visible", gitops.PlantSubject(node, "Budget", "agent"), "plant(" + node + "): Budget [source=agent]"},
		{"plant hidden", gitops.PlantSubject(hid, title, "agent"), "plant(<hidden>): <hidden> [source=agent]"},
		{"plant title naming hidden", gitops.PlantSubject(node, "From "+hid2, "agent"), "plant(" + node + "): From <hidden> [source=agent]"},
		{"graft visible", gitops.GraftSubject(node, gitops.PatchSummary{AddLinks: 1}), "graft(" + node + "): +1 links"},
		{"graft hidden", gitops.GraftSubject(hid2, gitops.PatchSummary{Append: []string{title}}), "graft(<hidden>): <hidden>"},
		{"tend hidden", gitops.TendSubject(hid, "update", 3), "tend(<hidden>): UPDATE 3 row(s)"},
		{"prune visible", gitops.PruneSubject(vis), "prune(" + vis + ")"},
		{"prune hidden", gitops.PruneSubject(hid2), "prune(<hidden>)"},
		{"transplant in", gitops.TransplantSubject(hid, node), "transplant(<hidden> -> " + node + ")"},
		{"transplant out", gitops.TransplantSubject(vis, hid2), "transplant(" + vis + " -> <hidden>)"},
		{"transplant hidden", gitops.TransplantSubject(hid, hid2), "transplant(<hidden> -> <hidden>)"},
		{"transplant visible", gitops.TransplantSubject(vis, node), "transplant(" + vis + " -> " + node + ")"},
		{"gardener sync", gitops.GardenerSyncSubject(hid), "gardener(sync): <hidden>"},
		{"gardener backfill", gitops.GardenerBackfillSubject("aliases", hid2), "gardener(sync): aliases <hidden>"},
		{"recurate", gitops.RecurateSubject("aliases", hid), "recurate(aliases): <hidden>"},
		{"ranger promote", gitops.RangerPromoteSubject(node, "author", hid, 0.8), "ranger(promote): " + node + " author-><hidden> 0.8"},
		{"ranger prune", gitops.RangerPruneSubject(hid2, "related-to", node), "ranger(prune): <hidden> related-to->" + node},
		{"ranger landmarks", gitops.RangerLandmarksSubject, "ranger(landmarks): refresh"},
		{"hand commit", "Copy " + hid + " notes", "Copy <hidden> notes"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			touch(t, v, dir, node, i, tt.subject)
			scoped, msg := historyJSON(t, sc.Call, node, 1)
			assert.Equal(t, tt.want, msg)
			for _, h := range []string{hid, hid2, "people/", "tidewatch", title} {
				assert.NotContains(t, scoped, h)
			}
			if !strings.HasPrefix(tt.name, "hand") { // a hand subject's action is the whole subject
				assert.Contains(t, scoped, `"action":"`+gitops.ParseAction(tt.subject)+`"`, "the action is kept")
			}
			_, msg = historyJSON(t, v.Call, node, 1)
			assert.Equal(t, tt.subject, msg, "unscoped, the subject is verbatim")
		})
	}
}

// touch commits a change to id's file with subject, as a writer would.
func touch(t *testing.T, v *Vine, dir, id string, n int, subject string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(f, "\nRevision %d.\n", n)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = v.repo.Commit(context.Background(), gitops.Message{Subject: subject}, []string{id + forest.NodeExt}, nil, gitops.Options{})
	require.NoError(t, err)
}

func TestScopedHistoryAfterTransplantNamesNoHiddenID(t *testing.T) {
	v, _ := writableFixture(t)
	owner := func(name, args string) {
		t.Helper()
		_, err := v.Call(context.Background(), name, []byte(args))
		require.NoError(t, err, name)
	}
	owner("plant", `{"node": {"id": "sales/_index", "type": "branch", "title": "Sales",
		"summary": "Customers, orders and the people who sell the catch.", "parent": "_index"}}`)
	owner("plant", `{"node": {"id": "people/x", "type": "entity", "entity_kind": "person", "title": "Xavier Pay Grade",
		"summary": "Xavier, buyer at the fish market, salary band C.", "parent": "people/_index"}}`)
	owner("graft", `{"id": "people/x", "patch": {"append_section": {"header": "Pay review", "body": "Band C."}}}`)
	owner("transplant", `{"id": "people/x", "new_id": "sales/x"}`)
	sc, err := v.Scoped(Policy{Allow: []string{"sales/"}, Caps: []Capability{CapRead}})
	require.NoError(t, err)

	for id, want := range map[string][]string{
		"sales/x": {"transplant(<hidden> -> sales/x)", "graft(<hidden>): <hidden>",
			"plant(<hidden>): <hidden> [source=agent]"},
		"sales/_index": {"transplant(<hidden> -> sales/x)", "plant(sales/_index): Sales [source=agent]"},
	} {
		res, err := sc.Call(context.Background(), "history", fmt.Appendf(nil, `{"id": %q}`, id))
		require.NoError(t, err, id)
		raw, err := json.Marshal(res)
		require.NoError(t, err)
		for _, leak := range []string{"people/", "Xavier", "Pay"} {
			assert.NotContains(t, string(raw), leak, id)
		}
		h := res.(*HistoryResult)
		var got []string
		for _, e := range h.Entries {
			got = append(got, e.Message)
		}
		assert.Equal(t, want, got, id)
		assert.Equal(t, len(want), h.Returned, id)
		assert.False(t, h.Truncated, id)
		assert.Equal(t, h.Entries[len(h.Entries)-1].Commit, h.Oldest, id)

		full, err := v.History(context.Background(), id, HistoryOptions{})
		require.NoError(t, err)
		assert.Contains(t, full.Entries[0].Message, "people/x -> sales/x", "the owner reads it verbatim")
	}

	// Every other surface that could carry the old id: look (aliases,
	// edges), scan (aliases), pick, move and locate by the old id.
	for _, c := range []struct{ name, args string }{
		{"look", `{"id": "sales/x"}`},
		{"scan", `{"parent_id": "sales/_index", "fields": ["id", "aliases", "title"]}`},
		{"pick", `{"id": "sales/x"}`},
		{"move", `{"id": "sales/x", "direction": "both"}`},
		{"locate", `{"query": "people/x"}`},
	} {
		res, err := sc.Call(context.Background(), c.name, []byte(c.args))
		require.NoError(t, err, c.name)
		raw, err := json.Marshal(res)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), "people/", c.name)
	}
	d, err := v.Look(context.Background(), "sales/x", LookOptions{})
	require.NoError(t, err)
	assert.Contains(t, d.Aliases, "people/x", "the owner still sees the old id as an alias")
}
