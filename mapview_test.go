// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestGraphWholeForest(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	sc, err := v.Scoped(FullPolicy())
	require.NoError(t, err)
	g, err := sc.Graph(context.Background(), MapOptions{})
	require.NoError(t, err)
	ids, err := v.cat.IDs(context.Background())
	require.NoError(t, err)
	assert.Len(t, g.Nodes, len(ids), "every node of the forest, under the default limit")
	assert.False(t, g.Truncated)
	assert.True(t, g.Derived)
	assert.NotEmpty(t, g.Types)
	assert.NotEmpty(t, g.Rels)
	checkGraphInvariants(t, g)
}

// checkGraphInvariants holds for every graph: nodes sorted by id, every
// edge between two nodes of the response, degrees counted from the
// response's edges, parents only when present.
func checkGraphInvariants(t *testing.T, g *Graph) {
	t.Helper()
	in := map[string]bool{}
	for i, n := range g.Nodes {
		if i > 0 {
			assert.Less(t, g.Nodes[i-1].ID, n.ID, "nodes sorted by id")
		}
		in[n.ID] = true
	}
	degree := map[string]int{}
	for _, e := range g.Edges {
		assert.True(t, in[e.Src] && in[e.Dst], "edge %v has both ends in the response", e)
		degree[e.Src]++
		degree[e.Dst]++
	}
	for _, n := range g.Nodes {
		assert.Equal(t, degree[n.ID], n.Degree, "degree of %s", n.ID)
		if n.Parent != nil {
			assert.True(t, in[*n.Parent], "parent of %s is in the response", n.ID)
		}
		assert.NotContains(t, []string{"", "leaf"}, n.Kind)
	}
}

func TestGraphUnderPolicyShowsOnlyTheVisible(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	sc, err := v.Scoped(scopeTestPolicy)
	require.NoError(t, err)
	g, err := sc.Graph(context.Background(), MapOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, g.Nodes)
	for _, n := range g.Nodes {
		assert.True(t, strings.HasPrefix(n.ID, "projects/"), "%s is inside the grant", n.ID)
		assert.False(t, strings.HasPrefix(n.ID, "projects/tidewatch/"), "%s is denied", n.ID)
	}
	checkGraphInvariants(t, g)
	for _, n := range g.Nodes {
		if n.ID == "projects/_index" {
			require.NotNil(t, n.Coverage)
			kids := 0
			for _, m := range g.Nodes {
				if m.Parent != nil && *m.Parent == n.ID {
					kids++
				}
			}
			assert.Equal(t, kids, n.Coverage.Notes+n.Coverage.Branches, "coverage counts the visible children only")
		}
	}
}

func TestMapScopeSpellingsAndRefusals(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()
	full, err := v.Scoped(FullPolicy())
	require.NoError(t, err)
	var first []byte
	for _, scope := range []string{"projects", "projects/", "projects/_index", "/projects/_index/"} {
		g, err := full.Graph(ctx, MapOptions{Scope: scope})
		require.NoError(t, err, scope)
		data, _ := json.Marshal(g)
		if first == nil {
			first = data
		}
		assert.Equal(t, string(first), string(data), "scope %q names the same branch", scope)
		for _, n := range g.Nodes {
			assert.True(t, strings.HasPrefix(n.ID, "projects/"), n.ID)
		}
	}

	scoped, err := v.Scoped(scopeTestPolicy)
	require.NoError(t, err)
	hidden := func(s *Scoped, scope string) string {
		_, err := s.Graph(ctx, MapOptions{Scope: scope})
		require.Error(t, err)
		data, _ := json.Marshal(AsError("graph", err))
		return string(data)
	}
	assert.Equal(t, hidden(scoped, "no-such-branch"), strings.ReplaceAll(hidden(scoped, "people"), "people", "no-such-branch"),
		"a hidden branch answers like an absent one")
	assert.Contains(t, hidden(scoped, "people"), "node not found: people/_index")
	_, err = scoped.Trails(ctx, MapOptions{Scope: "projects/tidewatch"})
	assert.Equal(t, ENotFound, CodeOf(err))

	noRead, err := v.Scoped(Policy{Allow: []string{""}, Caps: []Capability{CapQuery}})
	require.NoError(t, err)
	_, err = noRead.Graph(ctx, MapOptions{})
	assert.Equal(t, EForbidden, CodeOf(err))
}

func TestGraphLimitKeepsBestConnected(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	sc, err := v.Scoped(FullPolicy())
	require.NoError(t, err)
	ctx := context.Background()
	whole, err := sc.Graph(ctx, MapOptions{})
	require.NoError(t, err)
	g, err := sc.Graph(ctx, MapOptions{Limit: 10})
	require.NoError(t, err)
	assert.True(t, g.Truncated)
	assert.Len(t, g.Nodes, 10)
	checkGraphInvariants(t, g)
	least := 1 << 30
	for _, n := range g.Nodes {
		for _, w := range whole.Nodes {
			if w.ID == n.ID {
				least = min(least, w.Degree)
			}
		}
	}
	kept := map[string]bool{}
	for _, n := range g.Nodes {
		kept[n.ID] = true
	}
	for _, w := range whole.Nodes {
		if !kept[w.ID] {
			assert.LessOrEqual(t, w.Degree, least, "%s (degree %d) was dropped before a node of degree %d", w.ID, w.Degree, least)
		}
	}
	one, err := sc.Graph(ctx, MapOptions{Limit: -5})
	require.NoError(t, err)
	assert.Len(t, one.Nodes, 1, "a limit below 1 is clamped to 1")
}

func TestTrailsShowPersistentHeatOnly(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	now := time.Now()
	require.NoError(t, v.heat.store.Deposit(ctx, "", []string{"concepts/tide", "projects/_index"}, 0.5, now))
	require.NoError(t, v.heat.store.Deposit(ctx, "", []string{"concepts/tide"}, 0.2, now))
	require.NoError(t, v.heat.store.Deposit(ctx, "hunt-x", []string{"people/ana-ribeiro"}, 0.9, now))
	sc, err := v.Scoped(FullPolicy())
	require.NoError(t, err)
	tr, err := sc.Trails(ctx, MapOptions{})
	require.NoError(t, err)
	require.Len(t, tr.Heat, 2, "session heat is not observable: %+v", tr.Heat)
	assert.Equal(t, "concepts/tide", tr.Heat[0].ID, "hottest first")
	assert.Equal(t, 2, tr.Stats.Rows)
	assert.Equal(t, tr.Heat[0].Heat, tr.Stats.Max)

	limited, err := sc.Trails(ctx, MapOptions{Limit: 1})
	require.NoError(t, err)
	assert.True(t, limited.Truncated)
	assert.Len(t, limited.Heat, 1)

	scoped, err := v.Scoped(scopeTestPolicy)
	require.NoError(t, err)
	tr, err = scoped.Trails(ctx, MapOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"projects/_index"}, tr.NodeIDs(), "hidden heat is absent")

	g, err := sc.Graph(ctx, MapOptions{Scope: "concepts"})
	require.NoError(t, err)
	for _, n := range g.Nodes {
		if n.ID == "concepts/tide" {
			assert.Positive(t, n.Heat)
		}
	}
}

func TestParseMapLimit(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int
		bad  bool
	}{{"", 0, false}, {"25", 25, false}, {"0", 1, false}, {"-3", 1, false}, {"ten", 0, true}, {"1.5", 0, true}} {
		got, err := ParseMapLimit(c.raw)
		if c.bad {
			assert.Equal(t, ESchema, CodeOf(err), c.raw)
			continue
		}
		require.NoError(t, err, c.raw)
		assert.Equal(t, c.want, got, c.raw)
	}
}
