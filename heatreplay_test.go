// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/trails"
)

// The replay of issue 34: the pheromone cross-talk of the original's
// paper (§6.2), reproduced by scripted walkers on a generated forest and
// measured as each family's recall@1 over repeated passes.
//
// Family A asks four questions about the harbor's tide gauges; each
// answer sits in harbor/gauges/, and a rival note outside that branch
// ranks just above it until heat lifts it. Family B asks two questions
// about the orchard's frost alarm relay; its answers rank first, and a
// planted decoy ranks just below them: the index of harbor/gauges/,
// which every A answer's trail crosses and so warms. Family A's passes
// heat the decoy four times as fast as B's own passes heat B's answers.
//
// A walker locates its question, picks the hits in rank order until one
// holds the fact it needs, and closes its session with that node (no
// model: the fact is the script's). Recall@1 is whether the question's
// top hit was its answer.

// replayQuestion is one scripted question with the node that answers it
// and the fact the walker recognises it by.
type replayQuestion struct {
	family, query, answer, fact string
}

var replayQuestions = []replayQuestion{
	{"A", "north tide gauge calibration offset", "harbor/gauges/north", "offset north 0.042"},
	{"A", "south tide gauge calibration offset", "harbor/gauges/south", "offset south 0.017"},
	{"A", "east tide gauge calibration offset", "harbor/gauges/east", "offset east 0.031"},
	{"A", "west tide gauge calibration offset", "harbor/gauges/west", "offset west 0.055"},
	{"B", "frost alarm relay threshold", "orchard/frost-threshold", "threshold 1.5 C"},
	{"B", "frost alarm relay reset", "orchard/frost-reset", "reset after 40 minutes"},
}

// replayNode is one generated node file.
type replayNode struct {
	id, typ, title, summary, body string
}

func replayForest() []replayNode {
	nodes := []replayNode{
		{"harbor/_index", "branch", "Harbor", "Harbor operations: quays, moorings and the instruments on the breakwater.", ""},
		{"harbor/gauges/_index", "branch", "Frost alarm relay threshold and reset panels",
			"The relay panels in the breakwater shed, which also houses the gauge electronics.", "Panels only."},
		{"harbor/logs/_index", "branch", "Harbor logs", "Logs kept by the harbor master's office.", ""},
		{"orchard/_index", "branch", "Orchard", "The orchard: trees, irrigation and frost protection.", ""},
		{"orchard/frost-threshold", "note", "Frost alarm relay threshold",
			"When the orchard's frost alarm relay trips.", "The relay trips at threshold 1.5 C measured at the lowest row."},
		{"orchard/frost-reset", "note", "Frost alarm relay reset",
			"How the orchard's frost alarm relay is reset.", "The relay may reset after 40 minutes above the threshold."},
	}
	for _, side := range []struct{ name, fact string }{
		{"north", "0.042"}, {"south", "0.017"}, {"east", "0.031"}, {"west", "0.055"},
	} {
		nodes = append(nodes,
			replayNode{"harbor/gauges/" + side.name, "note", strings.ToUpper(side.name[:1]) + side.name[1:] + " tide gauge calibration offset record",
				"The calibration offset applied to the " + side.name + " tide gauge.",
				"Measured offset " + side.name + " " + side.fact + " m against the benchmark."},
			replayNode{"harbor/logs/" + side.name + "-gauge", "note", strings.ToUpper(side.name[:1]) + side.name[1:] + " tide gauge calibration offset",
				"Log of visits to the " + side.name + " tide gauge.",
				"Visited; calibration offset checked, no figure recorded."})
	}
	for i, w := range []string{"quay", "mooring", "crane", "pilot", "dredge", "buoy", "irrigation", "pruning", "grafting", "harvest"} {
		branch := "harbor/logs/"
		if i >= 6 {
			branch = "orchard/"
		}
		nodes = append(nodes, replayNode{branch + w, "note", strings.ToUpper(w[:1]) + w[1:] + " notes",
			"Notes on the " + w + ".", "Routine " + w + " notes."})
	}
	return nodes
}

// writeReplayForest makes the forest under dir and opens it.
func writeReplayForest(t *testing.T, ctx context.Context) *vine.Vine {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kb")
	_, err := vine.Init(ctx, dir, "Replay", nil)
	require.NoError(t, err)
	for _, n := range replayForest() {
		path := filepath.Join(dir, filepath.FromSlash(n.id)+".md")
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		md := fmt.Sprintf("---\nid: %s\ntype: %s\ntitle: %s\nsummary: %q\ncreated: '2026-01-01'\nupdated: '2026-01-01'\n---\n\n# %s\n\n%s\n",
			n.id, n.typ, n.title, n.summary, n.title, n.body)
		require.NoError(t, os.WriteFile(path, []byte(md), 0o644))
	}
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	_, err = v.Reindex(ctx)
	require.NoError(t, err)
	return v
}

// replayPass walks every question once, A's before B's, and returns each
// family's recall@1 in this pass.
func replayPass(t *testing.T, ctx context.Context, v *vine.Vine, pass int) map[string]float64 {
	t.Helper()
	hits, asked := map[string]float64{}, map[string]float64{}
	for i, q := range replayQuestions {
		sctx := vine.WithSession(ctx, fmt.Sprintf("replay-%d-%d", pass, i))
		res, err := v.Locate(sctx, q.query, vine.LocateOptions{K: 5})
		require.NoError(t, err)
		require.NotEmpty(t, res.Results, q.query)
		asked[q.family]++
		if res.Results[0].ID == q.answer {
			hits[q.family]++
		}
		if testing.Verbose() {
			var top []string
			for _, h := range res.Results[:min(3, len(res.Results))] {
				top = append(top, fmt.Sprintf("%s %.4f (h %.2f)", h.ID, h.Score, h.Heat))
			}
			t.Logf("pass %d %s %q: %s", pass, q.family, q.query, strings.Join(top, " | "))
		}
		found := ""
		for _, h := range res.Results {
			c, err := v.Pick(sctx, h.ID, vine.PickOptions{})
			require.NoError(t, err)
			if strings.Contains(c.Body, q.fact) {
				found = h.ID
				break
			}
		}
		var out *trails.Outcome
		if found == "" {
			out, err = v.CloseSession(sctx, false, nil)
		} else {
			out, err = v.CloseSession(sctx, true, []string{found})
		}
		require.NoError(t, err)
		// No hunt here trails four reads, so none shouts: the replay
		// grafts no discovered-shortcut, and shortcuts cannot carry
		// cross-talk into it.
		assert.Empty(t, out.SuggestShortcuts, q.query)
	}
	for f := range asked {
		hits[f] /= asked[f]
	}
	return hits
}

// replayCurves runs passes in mode on a fresh forest and returns each
// family's recall@1 per pass.
func replayCurves(t *testing.T, mode trails.HeatMode, passes int) map[string][]float64 {
	ctx := context.Background()
	v := writeReplayForest(t, ctx)
	require.NoError(t, v.SetHeatMode(ctx, mode))
	curves := map[string][]float64{}
	for p := 1; p <= passes; p++ {
		r := replayPass(t, ctx, v, p)
		for _, f := range []string{"A", "B"} {
			curves[f] = append(curves[f], r[f])
		}
	}
	return curves
}

// TestHeatReplayCrossTalk: with unconditioned heat family A's passes
// warm B's decoy until it outranks B's answers, pass after pass; with
// conditioned heat A keeps the same gain and B never falls.
func TestHeatReplayCrossTalk(t *testing.T) {
	const passes = 5
	un := replayCurves(t, trails.Unconditioned, passes)
	t.Logf("unconditioned: A %v  B %v", un["A"], un["B"])
	co := replayCurves(t, trails.Conditioned, passes)
	t.Logf("conditioned:   A %v  B %v", co["A"], co["B"])

	assert.Equal(t, []float64{0, 1, 1, 1, 1}, un["A"], "unconditioned: heat lifts A's answers over their rivals")
	assert.Equal(t, []float64{1, 0, 0, 0, 0}, un["B"], "unconditioned: A's heat on the decoy costs B its answers")
	assert.Equal(t, []float64{0, 1, 1, 1, 1}, co["A"], "conditioned: A keeps its gain")
	assert.Equal(t, []float64{1, 1, 1, 1, 1}, co["B"], "conditioned: B does not fall")
}
