// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/testforest"
)

// scentForest adopts a runbook and a dataset under one ingested branch.
func scentForest(t *testing.T) *vine.Vine {
	t.Helper()
	v := newForest(t)
	src := writeTree(t, map[string]string{
		"ops/runbook.md": "# Runbook\n\nRestart the cache with playbook RB-7 when the queue stalls.",
		"ops/tides.csv":  "date,height\n2026-03-18,3.9\n2026-03-19,3.7\n",
	})
	_, err := New(v, nil).Adopt(context.Background(), src, "")
	require.NoError(t, err)
	return v
}

func TestScentPlan(t *testing.T) {
	v := scentForest(t)
	plan, err := New(v, nil).ScentPlan(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"ops/runbook", "ops/tides"}, plan, "ingested non-branch nodes, datasets included")
}

func TestRecurateScentContract(t *testing.T) {
	ctx := context.Background()
	v := scentForest(t)
	before := node(t, v, "ops/runbook")
	chat := &scriptedChat{script: []any{
		// ops/runbook: a valid summary, one tag breaking the rule, one
		// alias in the body and one that is not.
		`{"summary": "Cache runbook: restart with playbook RB-7 when the queue stalls.", "tags": ["Cache", "bad tag", "runbook"], "aliases": ["RB-7", "RB-9"]}`,
		// ops/tides: three replies over the budget, repaired by trimming.
		`{"summary": "` + longSummary + `"}`, `{"summary": "` + longSummary + `"}`, `{"summary": "` + longSummary + `"}`,
	}}
	var seen []vine.Progress
	g := New(v, &Options{Curator: NewModelCurator(chat), Progress: func(p vine.Progress) { seen = append(seen, p) }})
	rep, err := g.Recurate(ctx, RecurateOptions{Derive: []string{"scent"}})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Planned)
	assert.Equal(t, []string{"ops/runbook", "ops/tides"}, rep.Updated)
	assert.Equal(t, 2, rep.Curation.LLMSummaries)
	assert.Equal(t, 1, rep.Curation.Repaired)
	assert.Equal(t, 1, rep.TagsDropped, `"bad tag" breaks the tag rule`)
	assert.Equal(t, vine.Progress{Op: "recurate", Done: 2, Total: 2}, seen[len(seen)-1])

	rb := node(t, v, "ops/runbook")
	assert.Equal(t, "Cache runbook: restart with playbook RB-7 when the queue stalls.", rb.Summary(), "summary replaced")
	assert.Equal(t, append(before.Tags(), "cache", "runbook"), rb.Tags(), "tags unioned after the existing ones")
	assert.Contains(t, rb.Aliases(), "RB-7")
	assert.NotContains(t, rb.Aliases(), "RB-9", "an alias must occur in the body")
	assert.Equal(t, before.Body, rb.Body, "the body is never touched")
	tides := node(t, v, "ops/tides")
	assert.LessOrEqual(t, budget.EstimateTokens(tides.Summary()), forest.SummaryMaxTokens)
	assert.True(t, strings.HasPrefix(tides.Summary(), "Tide table for Maré Alta"), tides.Summary())
	assert.Equal(t, []string{"graft(ops/tides): set summary", "graft(ops/runbook): set aliases,summary,tags"}, subjects(t, v)[:2])
	assert.Contains(t, node(t, v, "ops/_index").Body, "Cache runbook: restart with playbook RB-7", "the new summary reaches the parent's entry")
	validate(t, v)
}

func TestRecurateScentFallbackWritesNothing(t *testing.T) {
	ctx := context.Background()
	v := scentForest(t)
	chat := &scriptedChat{script: []any{"no", "json", "here", "nor", "here", "either"}}
	g := New(v, &Options{Curator: NewModelCurator(chat)})
	testforest.Unchanged(t, v.Dir(), func() {
		rep, err := g.RecurateScent(ctx)
		require.NoError(t, err)
		assert.Empty(t, rep.Updated)
		assert.Equal(t, 2, rep.Curation.Fallbacks)
		assert.Equal(t, 2, rep.Curation.Rejected)
	})
}

func TestRecurateRefusals(t *testing.T) {
	ctx := context.Background()
	v := scentForest(t)
	cur := NewModelCurator(&scriptedChat{})
	for name, tc := range map[string]struct {
		g      *Gardener
		derive []string
		code   envelope.Code
	}{
		"unknown member": {New(v, &Options{Curator: cur}), []string{"origin"}, envelope.Schema},
		"no member":      {New(v, &Options{Curator: cur}), nil, envelope.Schema},
		"scent no model": {New(v, nil), []string{"aliases", "scent"}, envelope.Schema},
	} {
		t.Run(name, func(t *testing.T) {
			testforest.Unchanged(t, v.Dir(), func() {
				_, err := tc.g.Recurate(ctx, RecurateOptions{Derive: tc.derive})
				require.Error(t, err)
				assert.Equal(t, tc.code, envelope.CodeOf(err), err.Error())
			})
		})
	}
	ro, err := vine.Open(ctx, v.Dir(), &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	testforest.Unchanged(t, v.Dir(), func() {
		_, err := New(ro, &Options{Curator: cur}).Recurate(ctx, RecurateOptions{Derive: []string{"scent"}})
		assert.Equal(t, envelope.ReadOnly, envelope.CodeOf(err))
	})
}

// TestRecurateScentSteps: the scent recurate as a job's steps states its
// bill (Total) before any model call, takes one node per step, and
// leaves the same forest RecurateScent does; abandoning it after one
// step leaves exactly one node recurated.
func TestRecurateScentSteps(t *testing.T) {
	ctx := context.Background()
	v := scentForest(t)
	chat := &scriptedChat{script: []any{
		`{"summary": "Cache runbook: restart with playbook RB-7 when the queue stalls.", "tags": ["runbook"]}`,
		`{"summary": "Tide table for the harbour, hourly heights."}`,
	}}
	steps, err := New(v, &Options{Curator: NewModelCurator(chat)}).RecurateScentSteps(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, steps.Total(), "the bill, before any model call")
	assert.Empty(t, chat.calls, "no model call before the first step")

	step, ok, err := steps.Next(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Step{File: "ops/runbook", Index: 1, Total: 2, Action: "updated"}, step)
	assert.Equal(t, "Cache runbook: restart with playbook RB-7 when the queue stalls.", node(t, v, "ops/runbook").Summary())
	assert.NotEqual(t, "Tide table for the harbour, hourly heights.", node(t, v, "ops/tides").Summary(), "one step, one node")

	rep, err := steps.Drain(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"ops/runbook", "ops/tides"}, rep.Updated)
	assert.Equal(t, 2, rep.Curation.LLMSummaries)
	assert.Empty(t, rep.Errors)
}

func TestRecurateScentStepsRefusals(t *testing.T) {
	v := scentForest(t)
	_, err := New(v, nil).RecurateScentSteps(context.Background())
	assert.Equal(t, vine.ESchema, vine.CodeOf(err), "no model bound")
	assert.ErrorContains(t, err, `derive: "scent" needs a bound model`)
	assert.Equal(t, vine.ESchema, vine.CodeOf(CheckDerive([]string{"scent", "color"})))
	assert.NoError(t, CheckDerive([]string{"aliases", "scent"}))
}
