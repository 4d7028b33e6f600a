package vine

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
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
