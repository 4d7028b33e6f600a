// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
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
