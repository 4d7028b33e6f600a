// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

func openHarvestFixture(t *testing.T) *vine.Vine {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

func plantHarvest(t *testing.T, v *vine.Vine, node string) {
	t.Helper()
	_, err := v.Call(context.Background(), "plant", []byte(`{"node": `+node+`}`))
	require.NoError(t, err)
}

func TestBodyOnlyFactReturnsItsMatchedSection(t *testing.T) {
	v := openHarvestFixture(t)
	var chapters []string
	for i := range 12 {
		chapters = append(chapters, fmt.Sprintf("## Part %d\\n\\n%s", i, strings.Repeat("Routine harbour paperwork and forms. ", 40)))
	}
	chapters[7] = "## Part 7\\n\\nRun 1045 was discarded: sensor drift above 8 cm."
	plantHarvest(t, v, `{"id": "operations/run-log", "type": "note", "title": "Run log", "summary": "Chronological log of buoy calibration runs.",
		"parent": "operations/_index", "body": "`+strings.Join(chapters, "\\n\\n")+`"}`)

	res, err := v.Harvest(context.Background(), "why was run 1045 discarded", vine.HarvestOptions{})
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
	assert.Greater(t, top.BodyTokens, vine.HarvestWholeBodyTokens)
}

func TestSmallBodiesComeWholeAndKIsHonoured(t *testing.T) {
	v := openHarvestFixture(t)
	res, err := v.Harvest(context.Background(), "Tidewatch buoy alert thresholds", vine.HarvestOptions{K: 2})
	require.NoError(t, err)
	require.Len(t, res.Results, 2)
	for _, it := range res.Results {
		require.NotEmpty(t, it.Content, it.ID)
		if it.BodyTokens <= vine.HarvestWholeBodyTokens {
			assert.Nil(t, it.Content[0].Section, "small bodies come whole")
			assert.NotNil(t, it.Content[0].Body)
		}
	}
	b, _ := json.Marshal(res)
	assert.LessOrEqual(t, (len([]rune(string(b)))+3)/4, vine.HarvestBudget)
}

func TestBudgetCutsWholeItemsExplicitly(t *testing.T) {
	v := openHarvestFixture(t)
	var nodes []string
	for i := range 5 {
		nodes = append(nodes, fmt.Sprintf(`{"id": "operations/big-%d", "type": "note", "title": "Quokka report %d", "summary": "Quokka report number %d.", "parent": "operations/_index", "body": "%s"}`,
			i, i, i, strings.Repeat("quokka sighting near the pier. ", 150)))
	}
	plantHarvest(t, v, "["+strings.Join(nodes, ",")+"]")
	setHarvestMaxK(t, "5")
	res, err := v.Harvest(context.Background(), "quokka report", vine.HarvestOptions{K: 5})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Results), 5)
	b, _ := json.Marshal(res)
	assert.LessOrEqual(t, (len([]rune(string(b)))+3)/4, vine.HarvestBudget)
}

func TestMaxKFromTheOperator(t *testing.T) {
	v := openHarvestFixture(t)
	ctx := context.Background()
	res, err := v.Harvest(ctx, "cooperative members", vine.HarvestOptions{K: 50})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.Results), vine.HarvestDefaultMaxK)

	setHarvestMaxK(t, "2")
	assert.Equal(t, 2, vine.HarvestMaxK())
	res, err = v.Harvest(ctx, "cooperative members", vine.HarvestOptions{K: 50})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.Results), 2)

	for _, bad := range []string{"0", "-3", "banana", "5.5"} {
		setHarvestMaxK(t, bad)
		_, err := v.Harvest(ctx, "cooperative members", vine.HarvestOptions{})
		assert.Equal(t, vine.ESchema, vine.CodeOf(err), bad)
		assert.ErrorContains(t, err, vine.HarvestMaxKEnv)
		assert.Equal(t, vine.HarvestDefaultMaxK, vine.HarvestMaxK(), bad)
	}
}

func TestSupersededCandidatesGiveTheirSeat(t *testing.T) {
	v := openHarvestFixture(t)
	ctx := context.Background()
	res, err := v.Harvest(ctx, "general assembly of September", vine.HarvestOptions{K: 5})
	require.NoError(t, err)
	var ids []string
	for _, it := range res.Results {
		ids = append(ids, it.ID)
	}
	assert.Contains(t, ids, "events/2026-09-assembly")
	assert.NotContains(t, ids, "events/2025-09-assembly")
	require.NotEmpty(t, res.SupersededExcluded)
	assert.Equal(t, vine.HarvestExcluded{ID: "events/2025-09-assembly", By: []string{"events/2026-09-assembly"}}, res.SupersededExcluded[0])

	all, err := v.Harvest(ctx, "general assembly of September", vine.HarvestOptions{K: 5, IncludeSuperseded: true})
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
	v := openHarvestFixture(t)
	ctx := context.Background()
	empty, err := v.Harvest(ctx, "xylophone zeppelin", vine.HarvestOptions{})
	require.NoError(t, err)
	assert.Empty(t, empty.Results)
	require.NotNil(t, empty.Searched)
	assert.Greater(t, *empty.Searched, 0)
	assert.Contains(t, empty.Hint, "terms")
	assert.False(t, empty.Truncated)
}

func TestWireCallAndRefusals(t *testing.T) {
	v := openHarvestFixture(t)
	out, err := v.Call(context.Background(), "harvest", []byte(`{"query": "ledger fuel costs", "k": 1}`))
	require.NoError(t, err)
	b, _ := json.Marshal(out)
	assert.Contains(t, string(b), `"results":[`)

	// k on the wire is max(1, k) (C.6c): an explicit 0 is one item, an
	// absent k the default three.
	for args, most := range map[string]int{`{"query": "storm tide ledger", "k": 0}`: 1, `{"query": "storm tide ledger", "k": -4}`: 1,
		`{"query": "storm tide ledger"}`: vine.HarvestDefaultK} {
		out, err := v.Call(context.Background(), "harvest", []byte(args))
		require.NoError(t, err, args)
		assert.LessOrEqual(t, len(out.(*vine.HarvestResult).Results), most, args)
		assert.NotEmpty(t, out.(*vine.HarvestResult).Results, args)
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
	for _, it := range res.(*vine.HarvestResult).Results {
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

// plainHarvestReader offers a Reader's required methods only: no batched
// records, no one-read bodies.
type plainHarvestReader struct{ vine.HarvestReader }

// The optional one-read paths (Records, ReadBody) are speed only: a sweep
// through a Reader without them answers byte for byte the same.
func TestOptionalReadsChangeNothing(t *testing.T) {
	v := openHarvestFixture(t)
	ctx := context.Background()
	for _, q := range []string{
		"storm alert thresholds for the Tidewatch buoys",
		"tidewatch buoy calibration and the project roadmap",
		"lora radio range",
	} {
		for _, opt := range []vine.HarvestOptions{{}, {K: 5}, {IncludeSuperseded: true}} {
			fast, err := v.Harvest(ctx, q, opt)
			require.NoError(t, err)
			plain, err := vine.HarvestFrom(ctx, plainHarvestReader{vine.HarvestEngine(v)}, q, opt)
			require.NoError(t, err)
			want, _ := json.Marshal(plain)
			got, _ := json.Marshal(fast)
			require.NotEmpty(t, fast.Results, q)
			assert.JSONEq(t, string(want), string(got), "%q %+v", q, opt)
		}
	}
}

// setHarvestMaxK sets the operator's cap for one test and restores the default
// after it; the tests that use it must not run in parallel.
func setHarvestMaxK(t *testing.T, setting string) {
	t.Helper()
	vine.SetHarvestMaxK(setting)
	t.Cleanup(func() { vine.SetHarvestMaxK("") })
}
