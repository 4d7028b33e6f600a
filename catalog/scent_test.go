// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScentRowsReadTheIndexWithItsNodes(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	ok, err := c.ScentTracked(ctx)
	require.NoError(t, err)
	assert.True(t, ok, "this package's own index")
	require.NoError(t, c.Upsert(ctx,
		Record{ID: "a/_index", Kind: "branch", Type: "branch", Title: "A", Summary: "Branch A", Created: "2024-01-02"},
		Record{ID: "a/n", Kind: "note", Type: "entity", Title: "Ação", Summary: "s", Tags: []string{"t1", "t2"},
			Aliases: []string{"x y", "z"}, Updated: "2025-05-05"},
	))
	var rows []ScentRow
	gen, nodes, err := c.ScentRows(ctx, func(r *ScentRow) error { rows = append(rows, *r); return nil })
	require.NoError(t, err)
	want, err := c.Generation(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, gen)
	assert.Equal(t, 2, nodes)
	require.Len(t, rows, 2)
	assert.Equal(t, ScentRow{RowID: rows[0].RowID, Title: "A", Summary: "Branch A", Node: true, ID: "a/_index",
		Kind: "branch", Type: "branch", Created: "2024-01-02"}, rows[0])
	assert.Equal(t, ScentRow{RowID: rows[1].RowID, Title: "Ação", Aliases: "x y z", Tags: "t1 t2", Summary: "s", Node: true,
		ID: "a/n", Kind: "note", Type: "entity", Updated: "2025-05-05"}, rows[1])
}

func TestTokenizerSplitsAsTheIndex(t *testing.T) {
	tok := &Tokenizer{}
	defer tok.Close()
	got, err := tok.Tokens([]string{"Produção São-Paulo", "", "TW-2 fts5.c"})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"producao", "sao", "paulo"}, nil, {"tw", "2", "fts5", "c"}}, got)
	require.NoError(t, tok.Close())
	_, err = tok.Tokens([]string{"x"})
	assert.Error(t, err, "closed")
}
