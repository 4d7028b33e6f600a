// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

func boatsInput() BranchInput {
	return BranchInput{Title: "boats", Entries: "- [[harbour/boats/net]] — Mend the nets.\n- [[harbour/boats/rope]] — Dry the ropes."}
}

func TestCurateBranchAccepts(t *testing.T) {
	chat := &scriptedChat{script: []any{`{"summary": "Boat care: net mending and rope drying. Tides live in harbour."}`}}
	s, st, err := NewModelCurator(chat).CurateBranch(context.Background(), boatsInput())
	require.NoError(t, err)
	assert.Equal(t, "Boat care: net mending and rope drying. Tides live in harbour.", s)
	assert.Zero(t, st.Retries)
	require.Len(t, chat.calls, 1)
	user := chat.calls[0].msgs[1].Content
	assert.Contains(t, user, "Branch: boats")
	assert.Contains(t, user, "- [[harbour/boats/net]] — Mend the nets.", "the entry lines are the input")
	assert.Contains(t, chat.calls[0].msgs[0].Content, `"This folder contains"`, "the prompt forbids the opener")
}

func TestCurateBranchRefusesOpenerThenFallsBack(t *testing.T) {
	opener := `{"summary": "This folder contains notes on boats."}`
	chat := &scriptedChat{script: []any{opener, opener, opener}}
	s, st, err := NewModelCurator(chat).CurateBranch(context.Background(), boatsInput())
	require.NoError(t, err)
	assert.Empty(t, s, "no acceptable reply: the caller falls back")
	assert.Equal(t, 2, st.Retries)
	assert.Contains(t, st.LastReject, "This folder contains")
	assert.Zero(t, st.Fallbacks, "a branch fallback is the caller's count")
	assert.Contains(t, chat.calls[1].msgs[3].Content, "240 characters")
}

func TestCurateBranchRepairsLength(t *testing.T) {
	long := `{"summary": "` + longSummary + `"}`
	chat := &scriptedChat{script: []any{long, long, long}}
	s, st, err := NewModelCurator(chat).CurateBranch(context.Background(), boatsInput())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Repaired)
	assert.LessOrEqual(t, budget.EstimateTokens(s), forest.SummaryMaxTokens, "within the 60-token contract")
	assert.NoError(t, forest.ValidateSummary(s))
}

func TestCurateBranchTransportError(t *testing.T) {
	chat := &scriptedChat{script: []any{errors.New("connection refused")}}
	s, st, err := NewModelCurator(chat).CurateBranch(context.Background(), boatsInput())
	require.NoError(t, err)
	assert.Empty(t, s)
	assert.Equal(t, 1, st.TransportErrors)
	assert.Contains(t, st.LastError, "connection refused")
	assert.Len(t, chat.calls, 1, "a transport error falls back at once")
}

func TestRollupThroughModelCurator(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"harbour/boats/rope.md": "# Rope care\n\nDry the ropes.", "harbour/tides.md": "# Tides\n\nHigh water."})
	_, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	chat := &scriptedChat{script: []any{
		`{"summary": "Boat care: rope drying and storage."}`, // harbour/boats, deepest first
		"not json", "still not json", `{"summary": "   "}`, // harbour: three refusals
	}}
	rep, err := New(v, &Options{Curator: NewModelCurator(chat)}).Rollup(ctx, RollupOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Curation.BranchRollups)
	assert.Equal(t, 1, rep.Curation.BranchFallbacks)
	assert.Equal(t, 2, rep.Curation.Retries)
	assert.Zero(t, rep.Curation.Rejected+rep.Curation.Fallbacks, "branch fallbacks are not document fallbacks")
	assert.Equal(t, "Boat care: rope drying and storage.", node(t, v, "harbour/boats/_index").Summary())
	harbour := node(t, v, "harbour/_index")
	assert.True(t, strings.HasPrefix(harbour.Summary(), "Region 'harbour': "), harbour.Summary())
	assert.Contains(t, harbour.Body, "Boat care: rope drying and storage.", "the rolled summary reaches the parent's entry")
	validate(t, v)
}
