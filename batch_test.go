// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/budget"
)

func TestBatchShapeFollowsTheRequest(t *testing.T) {
	f := newEntryForest(t, nil)
	single, err := f.call("look", map[string]any{"id": "concepts/tide"})
	require.NoError(t, err)
	list, err := f.call("look", map[string]any{"id": []string{"concepts/tide"}})
	require.NoError(t, err)
	assert.Equal(t, `{"nodes":[`+single+`],"missing":[],"dropped":[],"truncated":false}`, list,
		"a one-element list wraps the very single digest")

	pSingle, err := f.call("pick", map[string]any{"id": "concepts/tide"})
	require.NoError(t, err)
	pList, err := f.call("pick", map[string]any{"id": []string{"concepts/tide"}})
	require.NoError(t, err)
	assert.Equal(t, `{"nodes":[`+pSingle+`],"missing":[],"dropped":[],"truncated":false}`, pList)
}

func TestLookBatchOrderMissingAndDuplicates(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/new-home", "type: note\ntitle: New home\nsummary: Moved here.\nmoved_from:\n- notes/old-home\n", "# New\n")
	f.reindex()
	ids := []string{"people/tomas-feliz", "ghost/one", "concepts/tide", "notes/old-home", "people/tomas-feliz", "../escape", "concepts/swell"}
	res, err := f.v.LookBatch(context.Background(), ids, LookOptions{Fields: []string{"title"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"people/tomas-feliz", "concepts/tide", "concepts/swell"}, res.nodeIDs(), "caller order, duplicates collapsed")
	assert.Equal(t, []string{"ghost/one", "notes/old-home", "../escape"}, res.Missing, "absent, moved and escaping ids are missing alike")
	assert.Empty(t, res.Dropped)
	assert.False(t, res.Truncated)
	for _, d := range res.Nodes {
		assert.Equal(t, []string{"id", "title"}, d.Keys(), "every item takes the same fields")
	}
}

func TestLookBatchBudgetDropsFromTheTail(t *testing.T) {
	f := newEntryForest(t, nil)
	var ids []string
	for i := range 10 {
		id := fmt.Sprintf("giant/fat-%02d", i)
		var body strings.Builder
		for j := range 80 {
			fmt.Fprintf(&body, "## Header %02d of a fat outline\n\n", j)
		}
		f.write(id, "type: note\ntitle: Fat\nsummary: A fat digest.\n", body.String())
		ids = append(ids, id)
	}
	f.reindex()
	res, err := f.v.LookBatch(context.Background(), append(ids, "ghost/x"), LookOptions{})
	require.Error(t, err, "11 ids are over the cap")
	res, err = f.v.LookBatch(context.Background(), ids, LookOptions{})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.NotEmpty(t, res.Nodes)
	assert.NotEmpty(t, res.Dropped)
	assert.Equal(t, ids, append(res.nodeIDs(), res.Dropped...), "every id once, drops from the tail in request order")
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), BudgetLookBatch)
	for _, d := range res.Nodes {
		assert.LessOrEqual(t, budget.EstimatePayloadTokens(d), BudgetLook, "each digest keeps its own budget")
	}
}

func TestPickBatch(t *testing.T) {
	f := newEntryForest(t, nil)
	for i := range 5 {
		f.write(fmt.Sprintf("notes/body-%d", i), "type: note\ntitle: Body\nsummary: A 1500-token body.\n",
			"# Body\n\n## Part\n\n"+strings.Repeat("word ", 1500))
	}
	f.reindex()
	ctx := context.Background()
	ids := []string{"notes/body-0", "ghost/x", "notes/body-1", "notes/body-2", "notes/body-0"}
	res, err := f.v.PickBatch(ctx, ids, PickOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"notes/body-0", "notes/body-1"}, res.nodeIDs())
	assert.Equal(t, []string{"ghost/x"}, res.Missing)
	assert.Equal(t, []string{"notes/body-2"}, res.Dropped)
	assert.True(t, res.Truncated)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), BudgetPick)
	for _, c := range res.Nodes {
		assert.Equal(t, ContentBody, c.Shape, "bodies are never sliced to make room")
	}

	secs, err := f.v.PickBatch(ctx, []string{"notes/body-3", "notes/body-4"}, PickOptions{Sections: []string{"Part", "Nope"}})
	require.NoError(t, err)
	for _, c := range secs.Nodes {
		assert.Equal(t, ContentSections, c.Shape, "each item is the single primitive's answer")
		assert.Equal(t, []string{"Nope"}, c.Missing)
	}

	_, err = f.v.PickBatch(ctx, []string{"notes/body-3", "concepts/tide"}, PickOptions{Section: "Part"})
	assert.Equal(t, ENotFound, CodeOf(err), "a bare section absent from one node fails the call (spec 02 §10 item 8)")
}

func TestBatchRefusals(t *testing.T) {
	f := newEntryForest(t, nil)
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("x/%d", i)
		}
		return out
	}
	tests := []struct {
		prim string
		args map[string]any
		want []string
	}{
		{"look", map[string]any{"id": []string{}}, []string{"'id'", "empty list"}},
		{"look", map[string]any{"id": many(11)}, []string{"'id'", "11 ids", "at most 10"}},
		{"look", map[string]any{"id": []any{"a", 1}}, []string{"'id'", "list of integer/string"}},
		{"pick", map[string]any{"id": []string{}}, []string{"'id'", "empty list"}},
		{"pick", map[string]any{"id": many(6)}, []string{"'id'", "6 ids", "at most 5"}},
		{"pick", map[string]any{"id": []string{"concepts/tide"}, "after": "b0"}, []string{"'after'", "one body"}},
		{"look", map[string]any{"id": "concepts/tide", "fields": "title"}, []string{"'fields'", "string[]"}},
		{"look", map[string]any{"id": nil}, []string{"'id'", "null"}},
	}
	for _, tt := range tests {
		_, err := f.call(tt.prim, tt.args)
		var e *Error
		require.ErrorAs(t, err, &e, "%s %v", tt.prim, tt.args)
		assert.Equal(t, ESchema, e.Code)
		for _, w := range tt.want {
			assert.Contains(t, e.Message, w, "%s %v", tt.prim, tt.args)
		}
	}
}

func TestBatchMissingIsByteIdentical(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/new-home", "type: note\ntitle: New home\nsummary: Moved here.\nmoved_from:\n- notes/old-home\n", "# New\n")
	f.reindex()
	a, err := f.call("look", map[string]any{"id": []string{"concepts/tide", "ghost/a"}})
	require.NoError(t, err)
	b, err := f.call("look", map[string]any{"id": []string{"concepts/tide", "notes/old-home"}})
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(a, "ghost/a", "notes/old-home", 1), b)
}
