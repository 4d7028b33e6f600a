// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestReadsTraceButDepositNothing(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := WithSession(context.Background(), "hunt-a")
	_, err := v.Call(ctx, "sniff", []byte(`{"terms": "Itapuã"}`))
	require.NoError(t, err)
	_, err = v.Call(ctx, "sniff", []byte(`{"terms": "x"}`))
	require.Error(t, err)

	h, err := v.heat.store.Heat(ctx, []string{"people/ana-ribeiro"}, "hunt-a")
	require.NoError(t, err)
	assert.Empty(t, h, "a read never writes heat")

	f, err := os.Open(filepath.Join(dir, "_derived", "traces", "hunt-a.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var events []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		events = append(events, e)
	}
	require.Len(t, events, 2, "refusals are traced too")
	assert.Equal(t, "sniff", events[0]["primitive"])
	assert.Nil(t, events[0]["id"], "sniff takes no node id")
	assert.Greater(t, events[0]["tokens_out"], float64(0))
	for _, k := range []string{"ts", "session", "tokens_in", "elapsed_ms"} {
		assert.Contains(t, events[0], k)
	}
}

func TestCloseSessionWhispersAndShouts(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := WithSession(context.Background(), "hunt-b")
	for _, args := range []string{`{"terms": "ledger"}`, `{"terms": "Itapuã"}`, `{"terms": "buoy"}`, `{"terms": "radio"}`} {
		_, err := v.Call(ctx, "sniff", []byte(args))
		require.NoError(t, err)
	}
	before, err := v.Sniff(ctx, []string{"radio"}, SniffOptions{Scope: "operations/radio-schedule"})
	require.NoError(t, err)
	require.Len(t, before.Results, 1)
	assert.Zero(t, before.Results[0].Heat)

	out, err := v.Call(ctx, "close_session", []byte(`{"success": true, "answer_nodes": ["operations/radio-schedule"]}`))
	require.NoError(t, err)
	b, _ := json.Marshal(out)
	var o map[string]any
	require.NoError(t, json.Unmarshal(b, &o))
	assert.Equal(t, []any{}, o["suggest_shortcuts"], "no pick of the answer node: no trail length, no shout")

	h, err := v.heat.store.Heat(ctx, []string{"operations/radio-schedule", "operations/_index", "_index"}, "")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"operations/radio-schedule": 0.1, "operations/_index": 0.1, "_index": 0.1}, h,
		"the whisper warms the answer and every index on its trail")

	after, err := v.Sniff(ctx, []string{"radio"}, SniffOptions{Scope: "operations/radio-schedule"})
	require.NoError(t, err)
	assert.Equal(t, 0.1, after.Results[0].Heat)
	assert.Greater(t, after.Results[0].Score, before.Results[0].Score, "heat feeds ranking")

	failed, err := v.CloseSession(WithSession(context.Background(), "hunt-c"), false, []string{"concepts/tide"})
	require.NoError(t, err)
	assert.False(t, failed.Outcome.Success)
	h, err = v.heat.store.Heat(ctx, []string{"concepts/tide"}, "")
	require.NoError(t, err)
	assert.Empty(t, h, "failure deposits nothing")

	_, err = v.CloseSession(ctx, true, []string{"no/such"})
	assert.Equal(t, ENotFound, CodeOf(err))
}

func TestFortificationAndTransplantMoveHeatInTheDefaultStore(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	_, err := v.Call(ctx, "graft", []byte(`{"id": "operations/departure-checklist", "patch": {"add_links": [
		{"rel": "discovered-shortcut", "target": "concepts/beaufort-scale"}]}}`))
	require.NoError(t, err)
	h, err := v.heat.store.Heat(ctx, []string{"operations/departure-checklist", "concepts/beaufort-scale"}, "")
	require.NoError(t, err)
	assert.Equal(t, 0.1, h["operations/departure-checklist"], "re-adding a shortcut fortifies it")
	assert.Equal(t, 0.1, h["concepts/beaufort-scale"])

	_, err = v.Call(ctx, "transplant", []byte(`{"id": "concepts/beaufort-scale", "new_id": "operations/beaufort-scale"}`))
	require.NoError(t, err)
	h, err = v.heat.store.Heat(ctx, []string{"concepts/beaufort-scale", "operations/beaufort-scale"}, "")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"operations/beaufort-scale": 0.1}, h, "heat follows the node")
}

// A long id list reads heat through the store's hot list when few nodes
// are hot; the answer must be the batched lookup's, session heat
// included, and the lookup must still answer when more nodes are hot
// than ids were asked for.
func TestHeatThroughTheHotListEqualsTheLookup(t *testing.T) {
	ctx := context.Background()
	v, _ := writableFixture(t)
	ids := regionIDs(t, v)
	require.Greater(t, len(ids), 2*heatListMin)
	asked := ids[:max(heatListMin, 16)]
	lookup := heatOnly{storeHeat{v.heat.store, &v.heat}}
	now := time.Now()
	steps := []struct {
		name    string
		deposit func() error
	}{
		{"cold forest", func() error { return nil }},
		{"persistent heat in and out of the list", func() error {
			return v.heat.store.Deposit(ctx, "", []string{asked[0], asked[5], ids[len(ids)-1]}, 0.4, now)
		}},
		{"session heat", func() error { return v.heat.store.Deposit(ctx, "s1", []string{asked[5], asked[9]}, 0.3, now) }},
		{"more hot nodes than ids asked", func() error { return v.heat.store.Deposit(ctx, "", ids, 0.1, now) }},
	}
	for _, step := range steps {
		require.NoError(t, step.deposit(), step.name)
		for _, session := range []string{"", "s1"} {
			sctx := WithSession(ctx, session)
			want, err := lookup.Heat(sctx, asked)
			require.NoError(t, err)
			assert.Equal(t, want, v.heat.read(sctx, asked), "%s, session %q", step.name, session)
		}
	}
}

// openTraceFiles lists the trace files this process holds open, from
// /proc/self/fd; the test skips where there is no /proc.
func openTraceFiles(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to list open files")
	}
	traces, err := filepath.EvalSymlinks(filepath.Join(dir, "_derived", "traces"))
	require.NoError(t, err)
	var out []string
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil &&
			strings.HasPrefix(target, traces+string(filepath.Separator)) {
			out = append(out, target)
		}
	}
	return out
}

// TestTwoVinesTraceOneSessionAndCloseReleasesTheFile: two Vines on one
// forest append to one session's trace at once, through files they keep
// open; every line is a whole event, and Close releases the files.
func TestTwoVinesTraceOneSessionAndCloseReleasesTheFile(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	a, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	require.NoError(t, err)
	b, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	require.NoError(t, err)
	ctx := WithSession(context.Background(), "two-vines")
	var wg sync.WaitGroup
	for i := range 40 {
		v := a
		if i%2 == 1 {
			v = b
		}
		wg.Go(func() {
			_, err := v.Call(ctx, "move", []byte(`{"id": "products/tidewatch-buoy"}`))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.NotEmpty(t, openTraceFiles(t, dir), "the trace file stays open between calls")
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	assert.Empty(t, openTraceFiles(t, dir), "Close releases the trace files")

	f, err := os.Open(filepath.Join(dir, "_derived", "traces", "two-vines.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "a whole line: %q", sc.Text())
		assert.Equal(t, "move", e["primitive"])
		assert.Equal(t, "products/tidewatch-buoy", e["id"])
		lines++
	}
	assert.Equal(t, 40, lines)
}
