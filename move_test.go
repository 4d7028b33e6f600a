// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/budget"
)

func TestMoveDirectionsAndRels(t *testing.T) {
	heat := entryHeat{"people/ana-ribeiro": 0.7, "operations/ice-supply": 0.2}
	f := newEntryForest(t, &Options{Heat: heat})
	ctx := context.Background()
	ids := func(n *Neighbors) []string { return n.nodeIDs() }

	out, err := f.v.Move(ctx, "products/tidewatch-buoy", MoveOptions{})
	require.NoError(t, err)
	assert.Equal(t, []Neighbor{{ID: "organizations/mare-alta", Rel: "part-of", Direction: "out", Type: "entity",
		Summary: "Fishing and small-cargo cooperative founded 2011 in Itapuã, 64 members, 18 boats.", Heat: 0}}, out.Neighbors)
	assert.False(t, out.Truncated)

	in, err := f.v.Move(ctx, "organizations/mare-alta", MoveOptions{Direction: DirectionIn, Rel: "contains"})
	require.NoError(t, err)
	require.NotEmpty(t, in.Neighbors)
	for _, n := range in.Neighbors {
		assert.Equal(t, "contains", n.Rel, "in-edges show the inverse rel")
		assert.Equal(t, "in", n.Direction)
		assert.True(t, strings.HasPrefix(n.ID, "products/"))
	}
	stored, err := f.v.Move(ctx, "organizations/mare-alta", MoveOptions{Direction: DirectionIn, Rel: "part-of"})
	require.NoError(t, err)
	assert.Equal(t, ids(in), ids(stored), "the rel filter matches the stored rel or its inverse")

	both, err := f.v.Move(ctx, "organizations/mare-alta", MoveOptions{Direction: DirectionBoth})
	require.NoError(t, err)
	assert.Equal(t, "people/ana-ribeiro", both.Neighbors[0].ID, "hottest first")
	assert.Equal(t, 0.7, both.Neighbors[0].Heat)
	assert.Equal(t, "operations/ice-supply", both.Neighbors[1].ID)
	assert.True(t, both.Truncated, "22 neighbours with full summaries are over 600 tokens")
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(both), BudgetMove)

	sym, err := f.v.Move(ctx, "concepts/swell", MoveOptions{Direction: DirectionBoth, Rel: "same-as"})
	require.NoError(t, err)
	require.Len(t, sym.Neighbors, 1, "swell declares same-as wave-period")
	assert.Equal(t, "concepts/wave-period", sym.Neighbors[0].ID)

	none, err := f.v.Move(ctx, "concepts/swell", MoveOptions{Rel: "no-such-rel"})
	require.NoError(t, err)
	assert.Empty(t, none.Neighbors, "an unknown rel matches nothing")
	raw, _ := json.Marshal(none)
	assert.JSONEq(t, `{"neighbors":[],"truncated":false}`, string(raw))
}

func TestMoveChildrenSugar(t *testing.T) {
	f := newEntryForest(t, nil)
	ctx := context.Background()
	kids, err := f.v.Move(ctx, "projects/_index", MoveOptions{Rel: "children", Direction: DirectionIn})
	require.NoError(t, err)
	assert.Equal(t, []string{"projects/lighthouse/_index", "projects/project-rules", "projects/roadmap-2027", "projects/tidewatch/_index"},
		kids.nodeIDs(), "direction is ignored for children")
	for _, k := range kids.Neighbors {
		assert.Equal(t, "children", k.Rel)
		assert.Equal(t, "out", k.Direction)
		assert.NotEqual(t, "?", k.Type)
	}
	leaf, err := f.v.Move(ctx, "concepts/tide", MoveOptions{Rel: "children"})
	require.NoError(t, err)
	assert.Empty(t, leaf.Neighbors)
}

func TestMoveDanglingAndFullSummaries(t *testing.T) {
	f := newEntryForest(t, nil)
	long := entryWords(40, "long")
	f.write("notes/source", "type: note\ntitle: Source\nsummary: Links out.\nlinks:\n- rel: related-to\n  target: ghost/gone\n- rel: related-to\n  target: notes/long\n", "# S\n")
	f.write("notes/long", "type: note\ntitle: Long\nsummary: "+long+"\n", "# L\n")
	f.reindex()
	n, err := f.v.Move(context.Background(), "notes/source", MoveOptions{})
	require.NoError(t, err)
	assert.Equal(t, []Neighbor{
		{ID: "ghost/gone", Rel: "related-to", Direction: "out", Type: "?", Summary: ""},
		{ID: "notes/long", Rel: "related-to", Direction: "out", Type: "note", Summary: long},
	}, n.Neighbors, "move shows full summaries; a dangling target is type ?")
}

func TestMoveBudget(t *testing.T) {
	f := newEntryForest(t, nil)
	f.giantLeaf("giant/leaf", 60, 0)
	f.reindex()
	n, err := f.v.Move(context.Background(), "giant/leaf", MoveOptions{})
	require.NoError(t, err)
	assert.True(t, n.Truncated)
	assert.NotEmpty(t, n.Neighbors)
	assert.Less(t, len(n.Neighbors), 60)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(n), BudgetMove)
	for i, nb := range n.Neighbors {
		assert.Equal(t, fmt.Sprintf("giant/target-%02d", i), nb.ID, "cut from the tail, order kept")
	}
}

func TestMoveDirectionRefusedBeforeLookup(t *testing.T) {
	f := newEntryForest(t, nil)
	_, err := f.v.Move(context.Background(), "ghost/never", MoveOptions{Direction: "all"})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ESchema, e.Code, "the enum is checked before the id: never an empty list, never E_NOT_FOUND")
	assert.Contains(t, e.Message, "'direction'")
	assert.Contains(t, e.Message, `"all"`)
	assert.Contains(t, e.Message, "out, in, both")
	assert.Contains(t, e.Hint, "both")

	_, err = f.call("move", map[string]any{"id": "ghost/never", "direction": "all"})
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ESchema, e.Code)
	assert.Contains(t, e.Message, "'direction'")
	assert.Contains(t, e.Message, "out, in, both")

	_, err = f.call("move", map[string]any{"id": []string{"concepts/tide"}})
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ESchema, e.Code, "move takes one id")
}

// TestMoveFromTheCatalogMatchesFullResolution: the start of a move read
// from the catalog row (a string check, one statement) or from the
// adjacency copy is the start the full resolution gives, for every node
// of the fixture and for ids the catalog does not hold.
func TestMoveFromTheCatalogMatchesFullResolution(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	nb := neighborsOf(v)
	ids, err := v.cat.IDs(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, ids)
	graph := moveGraph(ctx, v.cat, v.adjacency, v.log)
	require.NotNil(t, graph)
	edges := 0
	for _, id := range append(ids, "no/such-node", " products/tidewatch-buoy/ ") {
		got, gotErr := moveFrom(ctx, v.resolver, nb, nil, id)
		fromGraph, graphErr := moveFrom(ctx, v.resolver, nb, graph, id)
		assert.Equal(t, got, fromGraph, id)
		assert.Equal(t, gotErr, graphErr, id)
		rec, wantErr := v.resolver.resolve(ctx, id)
		if wantErr != nil {
			assert.Equal(t, wantErr, gotErr, id)
			continue
		}
		require.NoError(t, gotErr, id)
		var want []Neighbor
		for _, e := range rec.Edges {
			want = append(want, Neighbor{ID: e.Dst, Rel: e.Rel, Direction: DirectionOut})
		}
		require.NoError(t, fillNeighborRows(ctx, nb, want))
		assert.Equal(t, moveOrigin{id: rec.ID, out: want}, got, id)
		edges += len(want)
	}
	assert.Positive(t, edges, "the fixture has out-edges to compare")
}

// TestMoveOfANodeSwappedForASymlinkReadsOnlyTheCatalog: move answers an
// indexed id from its catalog row even when its file has since been
// replaced by a symlink out of the forest, and reads nothing outside;
// look and pick, which read the file, still answer not found; an id never
// indexed through such a link is not found for move too.
func TestMoveOfANodeSwappedForASymlinkReadsOnlyTheCatalog(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := context.Background()
	const id, secret = "products/tidewatch-buoy", "SECRET-OUTSIDE-THE-FOREST"
	before, err := v.Move(ctx, id, MoveOptions{Direction: DirectionBoth})
	require.NoError(t, err)

	outside := filepath.Join(t.TempDir(), "secret.md")
	node := "---\ntype: note\ntitle: Secret\nsummary: " + secret + "\nlinks:\n- rel: related\n  target: people/ana-ribeiro\n---\n\n" + secret + "\n"
	require.NoError(t, os.WriteFile(outside, []byte(node), 0o644))
	file := filepath.Join(dir, "products", "tidewatch-buoy.md")
	require.NoError(t, os.Remove(file))
	require.NoError(t, os.Symlink(outside, file))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "products", "leak.md")))

	after, err := v.Move(ctx, id, MoveOptions{Direction: DirectionBoth})
	require.NoError(t, err)
	assert.Equal(t, before, after, "the catalog row answers; the file is not read")
	raw, err := json.Marshal(after)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), secret)

	_, err = v.Look(ctx, id, LookOptions{})
	assert.Equal(t, ENotFound, CodeOf(err), "look reads the file: containment stays")
	_, err = v.Pick(ctx, id, PickOptions{})
	assert.Equal(t, ENotFound, CodeOf(err), "pick reads the file: containment stays")
	_, err = v.Move(ctx, "products/leak", MoveOptions{})
	assert.Equal(t, ENotFound, CodeOf(err), "an id without a row is contained with symlinks resolved")
}

// TestMoveTraceCountsTheTokensReturned: the trace event of a move counts
// the tokens of the answer as budget.EstimatePayloadTokens counts them,
// taken from the size the cut measured.
func TestMoveTraceCountsTheTokensReturned(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := WithSession(context.Background(), "hunt-move")
	var want []float64
	for _, args := range []string{`{"id": "products/tidewatch-buoy"}`, `{"id": "organizations/mare-alta", "direction": "both"}`,
		`{"id": "projects/_index", "rel": "children"}`} {
		res, err := v.Call(ctx, "move", []byte(args))
		require.NoError(t, err)
		want = append(want, float64(budget.EstimatePayloadTokens(res)))
	}
	raw, err := os.ReadFile(filepath.Join(dir, "_derived", "traces", "hunt-move.jsonl"))
	require.NoError(t, err)
	var got []float64
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		got = append(got, e["tokens_out"].(float64))
	}
	assert.Equal(t, want, got)
}
