// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/adjacency"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestMoveAdjacencyAnswersAsTheCatalog: move answered from the in-memory
// adjacency copy is byte for byte the answer the catalog statements give,
// for every node of the fixture, the reference forest and two synthetic
// forests (the nested one has hubs past the in-edge sample), in every
// direction, unfiltered, filtered by each rel the node touches (stored
// and inverse), by an unknown rel, and for children; heat on some nodes
// so the order and a hub's sample have work to do.
func TestMoveAdjacencyAnswersAsTheCatalog(t *testing.T) {
	ctx := context.Background()
	forests := map[string]string{}
	forests["fixture"], _ = testforest.Fixture(t)
	forests["reference"] = testforest.Reference(t)
	for name, opt := range map[string]fixture.SyntheticOptions{
		"synthetic-flat-900":    {Nodes: 900},
		"synthetic-nested-1500": {Nodes: 1500, Nested: true, Vocabulary: 4000},
	} {
		if testing.Short() {
			opt.Nodes /= 3
		}
		dir := t.TempDir()
		require.NoError(t, fixture.Synthetic(ctx, dir, opt))
		forests[name] = dir
	}
	for name, dir := range forests {
		t.Run(name, func(t *testing.T) {
			heat := listedHeat{}
			compareMoveAnswers(t, openT(t, dir, &Options{ReadOnly: true, Heat: heat}), heat)
		})
	}
	t.Run("fixture-with-hub", func(t *testing.T) {
		dir, _ := testforest.Fixture(t)
		heat := listedHeat{}
		v := openT(t, dir, &Options{Now: plantClock, Heat: heat})
		for batch := range 5 { // 100 sources: past the sample
			var nodes []map[string]any
			for i := range 20 {
				nodes = append(nodes, map[string]any{"id": fmt.Sprintf("operations/cite-%d-%02d", batch, i), "type": "note",
					"title": "Cite", "summary": "Cites the radio concept.", "parent": "operations/_index",
					"links": []map[string]any{{"rel": "mentioned-in", "target": "concepts/lora"}}})
			}
			spec, err := json.Marshal(map[string]any{"node": nodes})
			require.NoError(t, err)
			_, err = v.Call(ctx, "plant", spec)
			require.NoError(t, err)
		}
		compareMoveAnswers(t, v, heat)
	})
}

// compareMoveAnswers compares the two ways for every node of v, with heat
// on one node in seven.
func compareMoveAnswers(t *testing.T, v *Vine, heat listedHeat) {
	ctx := context.Background()
	ids, err := v.cat.IDs(ctx)
	require.NoError(t, err)
	for i := 0; i < len(ids); i += 7 {
		heat[ids[i]] = []float64{0.1, 0.25, 0.25}[i%3] // ties too
	}
	var graph *adjacency.Graph
	for range 4 { // a generation just written stands a call before the copy is read
		graph = moveGraph(ctx, v.cat, v.adjacency, v.log)
	}
	require.NotNil(t, graph, "the copy is built at the current generation")
	calls, hubs := 0, 0
	for _, id := range append(ids, "no/such-node") {
		if len(graph.In(id)) >= sampleInDegree {
			hubs++
		}
		for _, opt := range moveOracleOptions(v, graph.Out(id), graph.In(id)) {
			got, want := moveBothWays(t, v, id, opt)
			require.Equal(t, want, got, "%s %+v", id, opt)
			calls++
		}
	}
	t.Logf("%d nodes, %d hubs, %d moves compared", len(ids), hubs, calls)
}

// listedHeat is a heat source that lists its hot nodes, so a hub's
// in-edges are sampled.
type listedHeat map[string]float64

func (h listedHeat) Heat(ctx context.Context, ids []string) (map[string]float64, error) {
	return entryHeat(h).Heat(ctx, ids)
}

func (h listedHeat) Hot(_ context.Context, limit int) (map[string]float64, bool, error) {
	if len(h) > limit {
		return nil, false, nil
	}
	return maps.Clone(h), true, nil
}

// moveOracleOptions are the calls the oracle compares for one node.
func moveOracleOptions(v *Vine, out, in []adjacency.Edge) []MoveOptions {
	rels := []string{"", "no-such-rel"}
	for _, e := range slices.Concat(out, in) {
		rels = append(rels, e.Rel, v.Dialect().Inverse(e.Rel))
	}
	slices.Sort(rels)
	opts := []MoveOptions{{Rel: relChildren}}
	for _, rel := range slices.Compact(rels) {
		for _, dir := range []string{DirectionOut, DirectionIn, DirectionBoth} {
			opts = append(opts, MoveOptions{Rel: rel, Direction: dir})
		}
	}
	return opts
}

// moveBothWays answers one move from the adjacency copy and from the
// catalog, each as its JSON or its error.
func moveBothWays(t *testing.T, v *Vine, id string, opt MoveOptions) (graph, catalog string) {
	t.Helper()
	answer := func() string {
		n, err := v.Move(context.Background(), id, opt)
		if err != nil {
			return fmt.Sprintf("error %v", err)
		}
		tokens, ok := n.payloadTokens()
		require.True(t, ok)
		require.Equal(t, budget.EstimatePayloadTokens(n), tokens, "the size the cut measured")
		out, err := json.Marshal(n)
		require.NoError(t, err)
		return string(out)
	}
	graph = answer()
	model := v.adjacency
	v.adjacency = nil
	defer func() { v.adjacency = model }()
	return graph, answer()
}

// TestMoveSizesMatchTheRendering: the sizes move cuts its answer by are
// the code points of the rendering the budget measures, for answers with
// escapes, wide characters and heats of every form.
func TestMoveSizesMatchTheRendering(t *testing.T) {
	list := []Neighbor{
		{ID: "a/b", Rel: "part-of", Direction: DirectionOut, Type: "?", Summary: "", Heat: 0},
		{ID: "ção/水", Rel: "cites", Direction: DirectionIn, Type: "entity", Summary: "q\"uote\\ tab\t \x01 <&> \u2028 🌊 bad\xff", Heat: 0.1234},
		{ID: "x", Rel: "r", Direction: DirectionOut, Type: "t", Summary: "s, t: {u}", Heat: 1e-7},
		{ID: "y", Rel: "r", Direction: DirectionOut, Type: "t", Summary: "s", Heat: 12345.5},
	}
	for _, truncated := range []bool{false, true} {
		for n := range len(list) + 1 {
			res := &Neighbors{Neighbors: list[:n], Truncated: truncated}
			sizes, ok := neighborSizes(res.Neighbors)
			require.True(t, ok)
			got := neighborsFrame(truncated)
			for i, s := range sizes {
				got += s
				if i > 0 {
					got += len(", ")
				}
			}
			assert.Equal(t, utf8.RuneCountInString(budget.Render(res)), got, "%d neighbours, truncated %v", n, truncated)
		}
	}
	_, ok := neighborSizes([]Neighbor{{Heat: math.NaN()}})
	assert.False(t, ok, "a heat JSON cannot hold is left to the render")
	null := &Neighbors{}
	null.cut()
	_, ok = null.payloadTokens()
	assert.False(t, ok, "a nil list is left to the render")
}

// TestMoveCutsWhereShrinkTailCuts: sized from its parts, move's answer is
// cut to the same prefix budget.ShrinkTail keeps when it renders it, and
// the size it keeps counts the tokens EstimatePayloadTokens counts.
func TestMoveCutsWhereShrinkTailCuts(t *testing.T) {
	words := []string{"tide", "ção", "水位", "buoy \"seven\"", "line\nbreak", "🌊"}
	for n := range 70 {
		list := []Neighbor{} // as Move answers: an empty list renders [], a nil one null
		for i := range n {
			summary := ""
			for j := range (i * 13) % 40 {
				summary += words[(i+j)%len(words)] + " "
			}
			list = append(list, Neighbor{ID: fmt.Sprintf("region/item-%03d", i), Rel: "cites", Direction: DirectionIn,
				Type: "note", Summary: summary, Heat: float64(i%5) / 7})
		}
		for _, truncated := range []bool{false, true} {
			want := &Neighbors{Neighbors: slices.Clone(list), Truncated: truncated}
			if budget.ShrinkTail(&want.Neighbors, BudgetMove, func() any { return want }) > 0 {
				want.Truncated = true
			}
			got := &Neighbors{Neighbors: slices.Clone(list), Truncated: truncated}
			got.cut()
			assert.Equal(t, want.Neighbors, got.Neighbors, "%d neighbours", n)
			assert.Equal(t, want.Truncated, got.Truncated, "%d neighbours", n)
			tokens, ok := got.payloadTokens()
			assert.True(t, ok)
			assert.Equal(t, budget.EstimatePayloadTokens(got), tokens, "%d neighbours", n)
		}
	}
}
