// SPDX-License-Identifier: Apache-2.0

package harvest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/harvest"
	"github.com/monkeyllm/vine/internal/testforest"
)

func openFixture(t *testing.T) *vine.Vine {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

func plant(t *testing.T, v *vine.Vine, node string) {
	t.Helper()
	_, err := v.Call(context.Background(), "plant", []byte(`{"node": `+node+`}`))
	require.NoError(t, err)
}

func TestBodyOnlyFactReturnsItsMatchedSection(t *testing.T) {
	v := openFixture(t)
	var chapters []string
	for i := range 12 {
		chapters = append(chapters, fmt.Sprintf("## Part %d\\n\\n%s", i, strings.Repeat("Routine harbour paperwork and forms. ", 40)))
	}
	chapters[7] = "## Part 7\\n\\nRun 1045 was discarded: sensor drift above 8 cm."
	plant(t, v, `{"id": "operations/run-log", "type": "note", "title": "Run log", "summary": "Chronological log of buoy calibration runs.",
		"parent": "operations/_index", "body": "`+strings.Join(chapters, "\\n\\n")+`"}`)

	res, err := harvest.Harvest(context.Background(), harvest.Engine(v), "why was run 1045 discarded", harvest.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"1045", "discarded"}, res.Terms)
	require.NotEmpty(t, res.Results)
	top := res.Results[0]
	assert.Equal(t, "operations/run-log", top.ID)
	assert.Contains(t, top.FoundBy, "sniff")
	require.NotEmpty(t, top.Matches)
	assert.Equal(t, "Part 7", *top.Matches[0].Section)
	require.Len(t, top.Content, 1, "a large body is served as its matched section")
	require.NotNil(t, top.Content[0].Section)
	assert.Equal(t, "Part 7", *top.Content[0].Section)
	assert.Contains(t, *top.Content[0].Body, "sensor drift")
	assert.Greater(t, top.BodyTokens, harvest.WholeBodyTokens)
}

func TestSmallBodiesComeWholeAndKIsHonoured(t *testing.T) {
	v := openFixture(t)
	res, err := harvest.Harvest(context.Background(), harvest.Engine(v), "Tidewatch buoy alert thresholds", harvest.Options{K: 2})
	require.NoError(t, err)
	require.Len(t, res.Results, 2)
	for _, it := range res.Results {
		require.NotEmpty(t, it.Content, it.ID)
		if it.BodyTokens <= harvest.WholeBodyTokens {
			assert.Nil(t, it.Content[0].Section, "small bodies come whole")
			assert.NotNil(t, it.Content[0].Body)
		}
	}
	b, _ := json.Marshal(res)
	assert.LessOrEqual(t, (len([]rune(string(b)))+3)/4, harvest.Budget)
}

func TestBudgetCutsWholeItemsExplicitly(t *testing.T) {
	v := openFixture(t)
	var nodes []string
	for i := range 5 {
		nodes = append(nodes, fmt.Sprintf(`{"id": "operations/big-%d", "type": "note", "title": "Quokka report %d", "summary": "Quokka report number %d.", "parent": "operations/_index", "body": "%s"}`,
			i, i, i, strings.Repeat("quokka sighting near the pier. ", 150)))
	}
	plant(t, v, "["+strings.Join(nodes, ",")+"]")
	setMaxK(t, "5")
	res, err := harvest.Harvest(context.Background(), harvest.Engine(v), "quokka report", harvest.Options{K: 5})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Results), 5)
	b, _ := json.Marshal(res)
	assert.LessOrEqual(t, (len([]rune(string(b)))+3)/4, harvest.Budget)
}

func TestMaxKFromTheOperator(t *testing.T) {
	v := openFixture(t)
	ctx := context.Background()
	res, err := harvest.Harvest(ctx, harvest.Engine(v), "cooperative members", harvest.Options{K: 50})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.Results), harvest.DefaultMaxK)

	setMaxK(t, "2")
	assert.Equal(t, 2, harvest.MaxK())
	res, err = harvest.Harvest(ctx, harvest.Engine(v), "cooperative members", harvest.Options{K: 50})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.Results), 2)

	for _, bad := range []string{"0", "-3", "banana", "5.5"} {
		setMaxK(t, bad)
		_, err := harvest.Harvest(ctx, harvest.Engine(v), "cooperative members", harvest.Options{})
		assert.Equal(t, vine.ESchema, vine.CodeOf(err), bad)
		assert.ErrorContains(t, err, harvest.MaxKEnv)
		assert.Equal(t, harvest.DefaultMaxK, harvest.MaxK(), bad)
	}
}

func TestSupersededCandidatesGiveTheirSeat(t *testing.T) {
	v := openFixture(t)
	ctx := context.Background()
	res, err := harvest.Harvest(ctx, harvest.Engine(v), "general assembly of September", harvest.Options{K: 5})
	require.NoError(t, err)
	var ids []string
	for _, it := range res.Results {
		ids = append(ids, it.ID)
	}
	assert.Contains(t, ids, "events/2026-09-assembly")
	assert.NotContains(t, ids, "events/2025-09-assembly")
	require.NotEmpty(t, res.SupersededExcluded)
	assert.Equal(t, harvest.Excluded{ID: "events/2025-09-assembly", By: []string{"events/2026-09-assembly"}}, res.SupersededExcluded[0])

	all, err := harvest.Harvest(ctx, harvest.Engine(v), "general assembly of September", harvest.Options{K: 5, IncludeSuperseded: true})
	require.NoError(t, err)
	assert.Empty(t, all.SupersededExcluded)
	for _, it := range all.Results {
		if it.ID == "events/2025-09-assembly" {
			assert.Equal(t, []string{"events/2026-09-assembly"}, it.SupersededBy)
		}
		if it.ID == "events/2026-09-assembly" {
			assert.Contains(t, it.Supersedes, "events/2025-09-assembly")
		}
	}
}

func TestDatasetNotesAndEmptySweep(t *testing.T) {
	v := openFixture(t)
	ctx := context.Background()
	empty, err := harvest.Harvest(ctx, harvest.Engine(v), "xylophone zeppelin", harvest.Options{})
	require.NoError(t, err)
	assert.Empty(t, empty.Results)
	require.NotNil(t, empty.Searched)
	assert.Greater(t, *empty.Searched, 0)
	assert.Contains(t, empty.Hint, "terms")
	assert.False(t, empty.Truncated)
}

func TestWireCallAndRefusals(t *testing.T) {
	v := openFixture(t)
	out, err := v.Call(context.Background(), "harvest", []byte(`{"query": "ledger fuel costs", "k": 1}`))
	require.NoError(t, err)
	b, _ := json.Marshal(out)
	assert.Contains(t, string(b), `"results":[`)

	// k on the wire is max(1, k) (C.6c): an explicit 0 is one item, an
	// absent k the default three.
	for args, most := range map[string]int{`{"query": "storm tide ledger", "k": 0}`: 1, `{"query": "storm tide ledger", "k": -4}`: 1,
		`{"query": "storm tide ledger"}`: harvest.DefaultK} {
		out, err := v.Call(context.Background(), "harvest", []byte(args))
		require.NoError(t, err, args)
		assert.LessOrEqual(t, len(out.(*harvest.Result).Results), most, args)
		assert.NotEmpty(t, out.(*harvest.Result).Results, args)
	}

	for _, args := range []string{`{}`, `{"query": 3}`, `{"query": "x", "k": "three"}`, `{"query": "x", "terms": [123]}`, `{"query": "x", "bogus": 1}`} {
		_, err := v.Call(context.Background(), "harvest", []byte(args))
		assert.Equal(t, vine.ESchema, vine.CodeOf(err), args)
	}
}

func TestHarvestUnderAPolicyNeverNamesHiddenNodes(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	defer v.Close()
	sc, err := v.Scoped(vine.Policy{Allow: []string{"projects"}, Deny: []string{"projects/tidewatch"},
		Caps: []vine.Capability{vine.CapRead}})
	require.NoError(t, err)
	res, err := sc.Call(context.Background(), "harvest", []byte(`{"query":"tidewatch buoy calibration and the project roadmap","k":8}`))
	require.NoError(t, err)
	// Bodies may mention hidden ids (J.12 boundary); ids, trails and
	// supersession notes must not.
	for _, it := range res.(*harvest.Result).Results {
		assert.True(t, sc.InScope(it.ID), "hidden result %s", it.ID)
		for _, a := range it.Trail {
			assert.True(t, sc.InScope(a), "hidden trail entry %s in %s", a, it.ID)
		}
	}
	full, err := v.Call(context.Background(), "harvest", []byte(`{"query":"tidewatch buoy calibration and the project roadmap","k":8}`))
	require.NoError(t, err)
	all, _ := json.Marshal(full)
	assert.Contains(t, string(all), "projects/tidewatch/", "unscoped, the same sweep finds tidewatch")
}

// plainReader offers a Reader's required methods only: no batched
// records, no one-read bodies.
type plainReader struct{ harvest.Reader }

// The optional one-read paths (Records, ReadBody) are speed only: a sweep
// through a Reader without them answers byte for byte the same.
func TestOptionalReadsChangeNothing(t *testing.T) {
	v := openFixture(t)
	ctx := context.Background()
	for _, q := range []string{
		"storm alert thresholds for the Tidewatch buoys",
		"tidewatch buoy calibration and the project roadmap",
		"lora radio range",
	} {
		for _, opt := range []harvest.Options{{}, {K: 5}, {IncludeSuperseded: true}} {
			fast, err := harvest.Harvest(ctx, harvest.Engine(v), q, opt)
			require.NoError(t, err)
			plain, err := harvest.Harvest(ctx, plainReader{harvest.Engine(v)}, q, opt)
			require.NoError(t, err)
			want, _ := json.Marshal(plain)
			got, _ := json.Marshal(fast)
			require.NotEmpty(t, fast.Results, q)
			assert.JSONEq(t, string(want), string(got), "%q %+v", q, opt)
		}
	}
}

// setMaxK sets the operator's cap for one test and restores the default
// after it; the tests that use it must not run in parallel.
func setMaxK(t *testing.T, setting string) {
	t.Helper()
	harvest.SetMaxK(setting)
	t.Cleanup(func() { harvest.SetMaxK("") })
}
