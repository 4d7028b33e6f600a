// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTypedReads(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	ingested := Record{ID: "crm/_index", Kind: "branch", Type: "branch", Title: "CRM", Source: "ingest", Confidence: 1}
	root := Record{ID: "_index", Kind: "branch", Type: "branch", Title: "Root", Confidence: 1}
	acme := note("crm/acme")
	acme.Title, acme.Summary = "Acme walrus", "the walrus account"
	acme.Edges = []Edge{{Rel: "related", Dst: "crm/globex", Confidence: 1}, {Rel: "part-of", Dst: "crm/_index", Confidence: 1}}
	require.NoError(t, c.Upsert(ctx, ingested, root, acme, note("crm/globex")))

	all, err := c.Branches(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"_index", "crm/_index"}, all)
	some, err := c.Branches(ctx, "ingest")
	require.NoError(t, err)
	assert.Equal(t, []string{"crm/_index"}, some)

	found, err := c.Search(ctx, MatchExpr([]string{"walrus"}), 8)
	require.NoError(t, err)
	assert.Equal(t, []Match{{ID: "crm/acme", Kind: "note", Title: "Acme walrus", Summary: "the walrus account"}}, found)
	none, err := c.Search(ctx, "", 8)
	require.NoError(t, err)
	assert.Empty(t, none)

	deg, err := c.EdgeDegrees(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"crm/acme": 2, "crm/globex": 1, "crm/_index": 1}, deg)

}

func TestEmbedMemo(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	_, ok, err := c.EmbedMemo(ctx, "k", "m")
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, c.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO embed_memo (key, model, dim, vector, used) VALUES ('k', 'm', 1, x'0000803f', 1)")
		return err
	}))
	row, ok, err := c.EmbedMemo(ctx, "k", "m")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 1, row.Dim)
	assert.Equal(t, []byte{0, 0, 0x80, 0x3f}, row.Vector)
	_, ok, err = c.EmbedMemo(ctx, "k", "other")
	require.NoError(t, err)
	assert.False(t, ok)
}
