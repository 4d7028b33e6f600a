// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/internal/exttest"
)

// The hostile extension's clocks in these tests: the worker clock of
// converters and tools, the ranking seam's own deadline (spec 11 §3),
// and the slack a loaded two-core machine is allowed past either.
const (
	hostileWorkerClock = 1500 * time.Millisecond
	rankingDeadline    = 2 * time.Second
	slack              = 2 * time.Second
)

// hostileStation is a Station with the hostile extension installed and
// enabled on the fixture forest, its worker clock short and its message
// cap 1 MiB; it answers the owner's key and that of rita, a reader of
// concepts/ only.
func hostileStation(t *testing.T) (ts *testStation, owner, rita string) {
	t.Helper()
	tree := exttest.Tree(t, exttest.Hostile)
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	ts = newTestStation(t, func(o *Options) {
		o.Extensions = home
		// A pause after a crash of a nanosecond: the file after the crash
		// must meet a fresh process (and its own failure), not the pause,
		// however fast the machine hands it over.
		o.ExtWorker = worker.Options{Timeout: hostileWorkerClock, MaxMessage: 1 << 20, MinBackoff: time.Nanosecond, MaxBackoff: 100 * time.Millisecond}
	})
	owner = ts.owner()
	inst := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": tree, "acknowledge": true, "enable_on": forestID})
	require.Equal(t, http.StatusCreated, inst.status, inst.body)
	p := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "rita", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read"}, "allow": []string{"concepts/"}}})
	require.Equal(t, http.StatusOK, p.status, p.body)
	return ts, owner, p.str("api_key")
}

// timed runs fn and answers how long it took.
func timed(fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}

// harvestIDs are the ids of a harvest answer, and the extensions it names.
func harvestIDs(t *testing.T, r reply) (ids []string, exts []any) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, r.body)
	for _, it := range r.json["results"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	exts, _ = r.json["extensions"].([]any)
	return ids, exts
}

// TestHostileExtensionRanking: the hostile ranking contribution, when
// it answers, reorders harvest, cannot invent, and is named in the
// answer and its trace event (F.184); when it hangs or floods, harvest
// answers in its own order within the seam's deadline, naming nothing,
// and locate is not slowed meanwhile.
func TestHostileExtensionRanking(t *testing.T) {
	ts, owner, _ := hostileStation(t)
	harvest := func(q string) reply {
		return ts.call("POST", "/v1/forests/"+forestID+"/harvest", owner, map[string]any{"query": q, "k": 4})
	}
	enable := func(on bool) {
		r := ts.call("POST", "/v1/admin/extensions/enablement", owner, map[string]any{"forest": forestID, "ext": "hostile", "enabled": on})
		require.Equal(t, http.StatusOK, r.status, r.body)
	}
	const q = "harbour tide map"
	enable(false)
	plain, named := harvestIDs(t, harvest(q))
	require.GreaterOrEqual(t, len(plain), 2)
	assert.Empty(t, named)
	enable(true)

	require.Eventually(t, func() bool { // the worker's first start is not the subject
		r := harvest(q)
		return r.status == http.StatusOK && r.json["extensions"] != nil
	}, 30*time.Second, 50*time.Millisecond)
	ranked, named := harvestIDs(t, harvest(q))
	want := slices.Clone(plain)
	slices.Reverse(want)
	assert.Equal(t, want, ranked, "reversed, the invented id dropped")
	assert.Equal(t, []any{"ext:hostile"}, named)
	assert.True(t, traced(t, filepath.Join(ts.root, forestID), "harvest", "ext:hostile"), "the trace event names the contribution (F.184)")

	for _, word := range []string{"hang", "flood"} {
		t.Run(word, func(t *testing.T) {
			done := make(chan reply, 1)
			took := make(chan time.Duration, 1)
			go func() {
				var r reply
				took <- timed(func() { r = harvest(q + " " + word) })
				done <- r
			}()
			time.Sleep(200 * time.Millisecond) // the ranker is now hanging or flooding
			var loc reply
			locTook := timed(func() {
				loc = ts.call("POST", "/v1/forests/"+forestID+"/locate", owner, map[string]any{"query": "tide"})
			})
			assert.Equal(t, http.StatusOK, loc.status, loc.body)
			assert.Less(t, locTook, time.Second, "locate does not wait on a ranker")
			d, r := <-took, <-done
			ids, named := harvestIDs(t, r)
			assert.Empty(t, named, "a failed contribution names nothing")
			assert.NotEmpty(t, ids)
			assert.Less(t, d, rankingDeadline+slack, "harvest waits at most the ranking deadline")
		})
	}
}

// traced reports whether a trace event of primitive in forest dir names
// ext among its extensions.
func traced(t *testing.T, dir, primitive, ext string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "_derived", "traces", "*.jsonl"))
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var ev struct {
				Primitive  string
				Extensions []string
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Primitive == primitive && slices.Contains(ev.Extensions, ext) {
				return true
			}
		}
	}
	return false
}

// TestHostileExtensionConverters is F.183 through the Station: a
// converter that crashes, one that raises and one that hangs each hand
// their file to the built-in converter; the batch completes within the
// worker clock of the hang, and its report names the extension.
func TestHostileExtensionConverters(t *testing.T) {
	ts, owner, _ := hostileStation(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	var r reply
	took := timed(func() {
		r = ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{"dest": "operations", "wait": true,
			"files": []any{
				map[string]any{"name": "crane-log.txt", "b64": b64("Crane three was serviced on Monday.\n")},
				map[string]any{"name": "berth-notes.md", "b64": b64("# Berth notes\n\nBerth four is dredged.\n")},
				map[string]any{"name": "moorings.csv", "b64": b64("berth,depth\n4,12\n5,9\n")},
			}})
	})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Less(t, took, 2*hostileWorkerClock+slack, "one hang costs the batch one worker clock")
	job := r.json["job"].(map[string]any)
	assert.Equal(t, "done", job["state"], r.body)
	report := job["report"].(map[string]any)
	assert.Len(t, report["planted"], 3, "the built-in converters took every file: %s", r.body)
	errs, _ := json.Marshal(report["errors"])
	for _, name := range []string{"crane-log.txt", "berth-notes.md", "moorings.csv"} {
		assert.Contains(t, string(errs), name, "the report names each file the extension failed")
	}
	assert.Contains(t, string(errs), "ext:hostile")
	assert.Contains(t, string(errs), "refuses every file")
}

// TestHostileExtensionTools: through MCP, a tool that hangs answers
// E_TIMEOUT at the worker clock, one that floods is cut at the message
// cap without the host holding the flood, one that crashes fails alone;
// meanwhile the engine's own tools answer at once. Afterwards the
// extension, restarted, still reaches nothing its caller cannot: an id
// outside rita's scope reads as the very bytes of an absent one (F.179),
// and a forest file it names is refused as never given.
func TestHostileExtensionTools(t *testing.T) {
	ts, owner, rita := hostileStation(t)
	ctx := context.Background()
	session := func(key string) *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "hostile", Version: "1"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: ts.url + "/mcp", HTTPClient: &http.Client{Transport: bearer(key)}}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	text := func(r *sdk.CallToolResult) string { return r.Content[0].(*sdk.TextContent).Text }
	try := func(cs *sdk.ClientSession, tool string, args map[string]any) (*sdk.CallToolResult, error) {
		return cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"forest": forestID, "args": args}})
	}
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
		res, err := try(cs, tool, args)
		require.NoError(t, err)
		return res
	}
	ownerMCP, ritaMCP := session(owner), session(rita)

	tests := []struct {
		tool, code, says string
		within           time.Duration
	}{
		{"x_hostile_hang", "E_TIMEOUT", "did not answer within", hostileWorkerClock + slack},
		{"x_hostile_flood", "E_EXT_WORKER", "size limit", hostileWorkerClock + slack},
		{"x_hostile_crash", "E_EXT_WORKER", "crashing on purpose", slack},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			require.Eventually(t, func() bool { // past the restart pause of the previous case
				r, err := try(ownerMCP, "x_hostile_peek", map[string]any{"id": "concepts/tide"})
				return err == nil && !r.IsError
			}, 30*time.Second, 20*time.Millisecond)
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			got := make(chan *sdk.CallToolResult, 1)
			took := make(chan time.Duration, 1)
			go func() {
				var r *sdk.CallToolResult
				took <- timed(func() { r = call(ownerMCP, tc.tool, map[string]any{}) })
				got <- r
			}()
			time.Sleep(100 * time.Millisecond)
			var look *sdk.CallToolResult
			lookTook := timed(func() {
				var err error
				look, err = ritaMCP.CallTool(ctx, &sdk.CallToolParams{Name: "look", Arguments: map[string]any{"forest": forestID, "id": "concepts/tide"}})
				require.NoError(t, err)
			})
			assert.False(t, look.IsError, text(look))
			assert.Less(t, lookTook, time.Second, "the engine's tools do not wait on an extension")

			d, r := <-took, <-got
			require.True(t, r.IsError, text(r))
			assert.Contains(t, text(r), tc.code)
			assert.Contains(t, text(r), tc.says)
			assert.Less(t, d, tc.within)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20), "the host never holds a 64 MiB flood")
		})
	}

	peek := func(id string) json.RawMessage {
		var out struct{ Envelope json.RawMessage }
		require.Eventually(t, func() bool {
			r, err := try(ritaMCP, "x_hostile_peek", map[string]any{"id": id})
			return err == nil && !r.IsError && json.Unmarshal([]byte(text(r)), &out) == nil && len(out.Envelope) > 0
		}, 30*time.Second, 20*time.Millisecond)
		return out.Envelope
	}
	hidden, absent := peek("people/beatriz-nunes"), peek("people/nobody-at-all")
	assert.Equal(t, strings.ReplaceAll(string(hidden), "beatriz-nunes", "X"), strings.ReplaceAll(string(absent), "nobody-at-all", "X"),
		"out of scope reads exactly as absent (F.179)")
	direct := ts.call("POST", "/v1/forests/"+forestID+"/pick", rita, map[string]any{"id": "people/beatriz-nunes"})
	var env struct{ Error json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(direct.body), &env))
	assert.JSONEq(t, string(env.Error), string(hidden), "the primitive's own refusal")

	// Every call of an extension tool is a row of its caller, with via.
	rows := ts.trail(owner, "&via=ext:hostile&primitive=x_hostile_crash")
	require.NotEmpty(t, rows)
	assert.Equal(t, "olga", rows[0].Principal)
	assert.Equal(t, "E_EXT_WORKER", rows[0].ErrorCode)

	forestFile := filepath.Join(ts.root, forestID, "concepts", "tide.md")
	steal := call(ritaMCP, "x_hostile_steal", map[string]any{"path": forestFile})
	require.False(t, steal.IsError, text(steal))
	assert.Contains(t, text(steal), "E_NOT_FOUND")
	assert.Contains(t, text(steal), "was given to this call", "a path the host did not hand over is absent")
}
