// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// hubTargets are nodes of several topics the hub links to.
var hubTargets = []string{"concepts/swell", "concepts/storm-surge", "operations/departure-checklist",
	"concepts/beaufort-scale", ledgerID, "concepts/wave-period"}

// makeHub gives concepts/tide links to every hub target, so its edge lists
// are long enough to have an order, and returns its id.
func makeHub(t *testing.T, v *Vine) string {
	t.Helper()
	var links []string
	for _, id := range hubTargets {
		links = append(links, `{"rel": "related-to", "target": "`+id+`"}`)
	}
	_, err := v.Call(context.Background(), "graft", []byte(`{"id": "concepts/tide", "patch": {"add_links": [`+
		strings.Join(links, ", ")+`]}}`))
	require.NoError(t, err)
	return "concepts/tide"
}

// wireCall runs a primitive through the signature table and renders its
// answer as a transport would.
func wireCall(t *testing.T, ctx context.Context, v *Vine, name, args string) string {
	t.Helper()
	res, err := v.Call(ctx, name, []byte(args))
	require.NoError(t, err, "%s %s", name, args)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return string(b)
}

// frontierCalls are the reads the Gauntlet may order, with and without
// its parameters.
func frontierCalls(hub string) [][2]string {
	return [][2]string{
		{"look", `{"id": "` + hub + `"}`},
		{"look", `{"id": "` + hub + `", "gauntlet": true}`},
		{"look", `{"id": "` + hub + `", "toward": "fish sales by boat"}`},
		{"look", `{"id": ["` + hub + `", "concepts/tide"]}`},
		{"look", `{"id": "` + hub + `", "fields": ["edges_in", "summary"]}`},
		{"move", `{"id": "` + hub + `", "direction": "both"}`},
		{"move", `{"id": "` + hub + `", "toward": "fish sales by boat"}`},
		{"scan", `{"parent_id": "_index", "recursive": true}`},
		{"scan", `{"parent_id": "_index", "recursive": true, "gauntlet": true}`},
		{"scan", `{"parent_id": "concepts/_index", "toward": "fish sales by boat"}`},
		{"locate", `{"query": "storm surge and tide", "k": 8}`},
	}
}

// runFrontierCalls answers every frontier call in a session whose goal was
// set by a locate.
func runFrontierCalls(t *testing.T, v *Vine, session, hub string) []string {
	t.Helper()
	ctx := WithSession(context.Background(), session)
	wireCall(t, ctx, v, "locate", `{"query": "storm surge flooding the harbour"}`)
	var out []string
	for _, c := range frontierCalls(hub) {
		out = append(out, wireCall(t, ctx, v, c[0], c[1]))
	}
	return out
}

func TestGauntletInertLayerIsByteIdentical(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	hub := makeHub(t, v)
	baseline := runFrontierCalls(t, v, "base", hub)
	for _, b := range baseline {
		assert.NotContains(t, b, `"frontier"`)
	}
	dir := filepath.Join(f.dir, canopyDir)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T)
	}{
		{"embedder without index", func(t *testing.T) { v.SetEmbedder(canopy.NewHash("hash", canopyDim)) }},
		{"empty index", func(t *testing.T) {
			ix, err := canopy.Build(context.Background(), canopy.NewHash("hash", canopyDim), nil, nil)
			require.NoError(t, err)
			require.NoError(t, ix.Save(dir))
			v.SetEmbedder(canopy.NewHash("hash", canopyDim))
		}},
		{"model mismatch", func(t *testing.T) {
			buildWith(t, v, canopy.NewHash("hash", canopyDim))
			v.SetEmbedder(canopy.NewHash("bge-m3", canopyDim))
		}},
		{"corrupt index", func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, canopy.VectorsFile), []byte{1, 2, 3}, 0o644))
			v.SetEmbedder(canopy.NewHash("hash", canopyDim))
		}},
		{"index without embedder", func(t *testing.T) {
			buildWith(t, v, canopy.NewHash("hash", canopyDim))
			v.SetEmbedder(nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			session := "inert-" + tc.name[:5]
			got := runFrontierCalls(t, v, session, hub)
			for i := range baseline {
				assert.Equal(t, baseline[i], got[i], "%v answers as without Canopy", frontierCalls(hub)[i])
			}
			for _, ev := range v.heat.tracer.Events(session) {
				assert.Nil(t, ev.EmbedMS, "%s embedded nothing", ev.Primitive)
				assert.Nil(t, ev.DenseMS)
			}
		})
	}
}

// proximityKeys are the Gauntlet keys of ids under a goal text.
func proximityKeys(t *testing.T, v *Vine, goal string, ids []string) []float64 {
	t.Helper()
	q, err := canopy.NewHash("hash", canopyDim).Embed(context.Background(), []string{goal})
	require.NoError(t, err)
	ix := v.canopy.Index()
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = -1
		if c, ok := ix.Similarity(q[0], id); ok {
			out[i] = math.Round(float64(c)*1000) / 1000
		}
	}
	return out
}

func isNonIncreasing(xs []float64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] > xs[i-1] {
			return false
		}
	}
	return true
}

func decode[T any](t *testing.T, raw string) T {
	t.Helper()
	var out T
	require.NoError(t, json.Unmarshal([]byte(raw), &out))
	return out
}

type wireDigest struct {
	EdgesOut []DigestEdgeOut `json:"edges_out"`
	EdgesIn  []DigestEdgeIn  `json:"edges_in"`
	Frontier *Frontier       `json:"frontier"`
}

func TestGauntletRanksTowardTheGoal(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	hub := makeHub(t, v)
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	v.SetEmbedder(nil)
	ctx := WithSession(context.Background(), "hunt")
	plainLook := wireCall(t, ctx, v, "look", `{"id": "`+hub+`"}`)
	plainMove := wireCall(t, ctx, v, "move", `{"id": "`+hub+`", "direction": "both"}`)
	plainScan := wireCall(t, ctx, v, "scan", `{"parent_id": "_index", "recursive": true}`)
	plain := decode[wireDigest](t, plainLook)
	require.GreaterOrEqual(t, len(plain.EdgesOut), 3, "the hub needs edges to order")

	// The goal is the text of the hub's last out-edge target: under the
	// Gauntlet that target comes first.
	target := plain.EdgesOut[len(plain.EdgesOut)-1].Target
	goal := nodeText(t, v, target)
	e := newCounting("hash")
	v.SetEmbedder(e)
	wireCall(t, ctx, v, "locate", `{"query": `+jsonString(goal)+`}`)
	calls, _ := e.seen()
	assert.Zero(t, calls, "a lexical locate embeds nothing; the goal waits for the first hop")

	look := decode[wireDigest](t, wireCall(t, ctx, v, "look", `{"id": "`+hub+`"}`))
	require.NotNil(t, look.Frontier)
	assert.Equal(t, Frontier{Ranked: true, Toward: goal}, *look.Frontier)
	assert.Equal(t, target, look.EdgesOut[0].Target, "the goal's own node leads")
	targets := make([]string, len(look.EdgesOut))
	for i, ed := range look.EdgesOut {
		targets[i] = ed.Target
	}
	assert.True(t, isNonIncreasing(proximityKeys(t, v, goal, targets)), "edges by goal proximity")
	sources := make([]string, len(look.EdgesIn))
	for i, ed := range look.EdgesIn {
		sources[i] = ed.Source
	}
	assert.True(t, isNonIncreasing(proximityKeys(t, v, goal, sources)))

	move := decode[Neighbors](t, wireCall(t, ctx, v, "move", `{"id": "`+hub+`", "direction": "both"}`))
	require.NotNil(t, move.Frontier)
	assert.Equal(t, target, move.Neighbors[0].ID)
	scan := decode[ScanResult](t, wireCall(t, ctx, v, "scan", `{"parent_id": "_index", "recursive": true}`))
	require.NotNil(t, scan.Frontier)
	assert.Equal(t, target, scan.Nodes[0].ID, "the whole scope is ranked before the page is cut")
	assert.Equal(t, decode[ScanResult](t, plainScan).Total, scan.Total)
	calls, _ = e.seen()
	assert.Equal(t, 1, calls, "one goal embedding per hunt, then dot products only")

	// Opting out restores the plain answers, byte for byte.
	assert.Equal(t, plainLook, wireCall(t, ctx, v, "look", `{"id": "`+hub+`", "gauntlet": false}`))
	assert.Equal(t, plainMove, wireCall(t, ctx, v, "move", `{"id": "`+hub+`", "direction": "both", "gauntlet": false}`))
	assert.Equal(t, plainScan, wireCall(t, ctx, v, "scan", `{"parent_id": "_index", "recursive": true, "gauntlet": false}`))

	// toward overrides the goal for one call, with its own memoised embedding.
	other := plain.EdgesOut[len(plain.EdgesOut)-2].Target
	towardText := nodeText(t, v, other)
	args := `{"id": "` + hub + `", "toward": ` + jsonString(towardText) + `}`
	toward := decode[wireDigest](t, wireCall(t, ctx, v, "look", args))
	assert.Equal(t, other, toward.EdgesOut[0].Target)
	assert.Equal(t, towardText, toward.Frontier.Toward)
	wireCall(t, ctx, v, "look", args)
	calls, _ = e.seen()
	assert.Equal(t, 2, calls, "the toward text is embedded once")
	after := decode[wireDigest](t, wireCall(t, ctx, v, "look", `{"id": "`+hub+`"}`))
	assert.Equal(t, goal, after.Frontier.Toward, "the session goal is untouched by a toward")

	// fields without a frontier key cost no embedding and carry no marker.
	summary := wireCall(t, WithSession(context.Background(), "fields"), v, "look", `{"id": "`+hub+`", "fields": ["summary"]}`)
	assert.NotContains(t, summary, "frontier")
	onlyFrontier := decode[map[string]any](t, wireCall(t, ctx, v, "look", `{"id": "`+hub+`", "fields": ["frontier"]}`))
	assert.Contains(t, onlyFrontier, "frontier")
	assert.NotContains(t, onlyFrontier, "edges_out")
	inOnly := decode[map[string]any](t, wireCall(t, ctx, v, "look", `{"id": "`+hub+`", "fields": ["edges_in"]}`))
	assert.Contains(t, inOnly, "frontier", "a ranked list keeps the marker that explains its order")

	// A list of ids ranks every digest, toward one goal.
	batch := decode[struct{ Nodes []wireDigest }](t, wireCall(t, ctx, v, "look", `{"id": ["`+hub+`", "concepts/tide"]}`))
	for _, d := range batch.Nodes {
		require.NotNil(t, d.Frontier)
		assert.Equal(t, goal, d.Frontier.Toward)
	}
	batch = decode[struct{ Nodes []wireDigest }](t, wireCall(t, ctx, v, "look", `{"id": ["`+hub+`"], "gauntlet": false}`))
	assert.Nil(t, batch.Nodes[0].Frontier)

	// A new locate replaces the goal.
	wireCall(t, ctx, v, "locate", `{"query": "fish sales ledger"}`)
	again := decode[wireDigest](t, wireCall(t, ctx, v, "look", `{"id": "`+hub+`"}`))
	assert.Equal(t, "fish sales ledger", again.Frontier.Toward)

	// A session that never located has no goal: unranked.
	fresh := WithSession(context.Background(), "no-goal")
	assert.Equal(t, plainLook, wireCall(t, fresh, v, "look", `{"id": "`+hub+`"}`))
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestGauntletScanCursorRefusesRanking(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	ctx := WithSession(context.Background(), "cursor")
	wireCall(t, ctx, v, "locate", `{"query": "storm safety"}`)
	digest, sha := testforest.TreeDigest(t, f.dir), head(t, f.dir)
	for _, extra := range []string{`"toward": "storm"`, `"gauntlet": true`} {
		_, err := v.Call(ctx, "scan", []byte(`{"parent_id": "_index", "after": "", `+extra+`}`))
		require.Error(t, err)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err), extra)
		assert.Contains(t, err.Error(), "after")
	}
	page := decode[ScanResult](t, wireCall(t, ctx, v, "scan", `{"parent_id": "_index", "after": ""}`))
	assert.Nil(t, page.Frontier, "an enumeration keeps id order even with a ready layer")
	requireUntouched(t, f.dir, digest, sha)
}

func TestTraceCarriesEmbedAndDenseShares(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	ctx := WithSession(context.Background(), "traced")
	hub := makeHub(t, v)
	steps := []struct {
		name, args   string
		embed, dense bool
	}{
		{"locate", `{"query": "storm surge", "hybrid": true}`, true, true},
		{"look", `{"id": "` + hub + `"}`, false, false}, // hybrid already embedded the goal
		{"locate", `{"query": "ice supply for the boats"}`, false, false},
		{"look", `{"id": "` + hub + `"}`, true, false}, // the new goal is embedded here
		{"move", `{"id": "` + hub + `"}`, false, false},
		{"scan", `{"parent_id": "_index", "toward": "radio schedules"}`, true, false},
		{"locate", `{"query": "storm surge", "hybrid": true}`, true, true}, // a memo hit still counts
	}
	for _, s := range steps {
		wireCall(t, ctx, v, s.name, s.args)
	}
	events := v.heat.tracer.Events("traced")
	require.Len(t, events, len(steps))
	for i, s := range steps {
		ev := events[i]
		assert.Equal(t, s.name, ev.Primitive)
		assert.Equal(t, s.embed, ev.EmbedMS != nil, "step %d %s: embed_ms", i, s.name)
		assert.Equal(t, s.dense, ev.DenseMS != nil, "step %d %s: dense_ms", i, s.name)
		if ev.EmbedMS != nil {
			assert.LessOrEqual(t, *ev.EmbedMS, ev.ElapsedMS, "a share of the whole span")
		}
		if ev.DenseMS != nil && ev.EmbedMS != nil {
			assert.LessOrEqual(t, *ev.EmbedMS+*ev.DenseMS, ev.ElapsedMS+0.002, "the shares are apart, not nested")
		}
		line, err := json.Marshal(ev)
		require.NoError(t, err)
		assert.Equal(t, s.embed, json.Valid(line) && containsKey(line, "embed_ms"), "step %d", i)
	}
}

func containsKey(line []byte, key string) bool {
	var m map[string]any
	return json.Unmarshal(line, &m) == nil && m[key] != nil
}

func TestGauntletLookBatchHonoursOptions(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	hub := makeHub(t, v)
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	ctx := WithSession(context.Background(), "batch")
	_, err := v.Locate(ctx, "storm surge flooding", LocateOptions{})
	require.NoError(t, err)
	off := false
	for _, tc := range []struct {
		name string
		opt  LookOptions
		want *Frontier
	}{
		{"default", LookOptions{}, &Frontier{Ranked: true, Toward: "storm surge flooding"}},
		{"opted out", LookOptions{Gauntlet: &off}, nil},
		{"toward", LookOptions{Toward: "fish sales"}, &Frontier{Ranked: true, Toward: "fish sales"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := v.LookBatch(ctx, []string{hub, "concepts/swell"}, tc.opt)
			require.NoError(t, err)
			require.Len(t, res.Nodes, 2)
			for _, d := range res.Nodes {
				assert.Equal(t, tc.want, d.Frontier, d.ID)
			}
		})
	}
}
