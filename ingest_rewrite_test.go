// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/internal/trust"
)

func TestIngestRewrite(t *testing.T) {
	ctx := context.Background()
	v, dir := writableFixture(t)
	const id = "operations/ice-supply"
	head := func() string {
		repo, err := gitops.Open(dir)
		require.NoError(t, err)
		sha, err := repo.Head()
		require.NoError(t, err)
		return sha
	}

	refusals := []struct {
		name  string
		grant trust.Grant
		edit  func(n *forest.Node) error
		code  Code
		says  string
	}{
		{"no grant", trust.Grant{}, func(*forest.Node) error { return nil }, ESchema, "trusted-ingest grant"},
		{"summary is curated", trust.Ingest(), func(n *forest.Node) error {
			n.Front.Set("summary", "A different summary for the ice supply.")
			return nil
		}, ESchema, "may not change summary"},
		{"type is fixed", trust.Ingest(), func(n *forest.Node) error { n.Front.Set("type", "concept"); return nil }, ESchema, "type"},
		{"write checks hold", trust.Ingest(), func(n *forest.Node) error {
			n.Front.Set("origin", "two words")
			return nil
		}, ESchema, "origin"},
	}
	digest, before := testforest.TreeDigest(t, dir), head()
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Rewrite(ctx, tt.grant, id, gitops.GardenerSyncSubject(id), tt.edit)
			require.Error(t, err)
			assert.Equal(t, tt.code, CodeOf(err))
			assert.ErrorContains(t, err, tt.says)
			assert.Equal(t, digest, testforest.TreeDigest(t, dir))
			assert.Equal(t, before, head())
		})
	}

	sha, err := v.Rewrite(ctx, trust.Ingest(), id, gitops.GardenerSyncSubject(id), func(*forest.Node) error { return nil })
	require.NoError(t, err)
	assert.Empty(t, sha, "identical bytes are no write")
	assert.Equal(t, before, head())

	sha, err = v.Rewrite(ctx, trust.Ingest(), id, gitops.GardenerSyncSubject(id), func(n *forest.Node) error {
		n.Front.Set("source_hash", strings.Repeat("a", 64))
		n.Body += "\n\nRefreshed line."
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, sha, head())
	data, err := os.ReadFile(filepath.Join(dir, id+".md"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "source_hash: "+strings.Repeat("a", 64))
	assert.Contains(t, string(data), "updated: '"+plantClock().Format("2006-01-02")+"'")
	rec, err := v.Record(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, BodyHash(strings.TrimLeft(string(data[strings.Index(string(data), "\n---\n")+5:]), "\n")), rec.BodyHash,
		"the catalog follows the commit")

	_, err = v.Rewrite(ctx, trust.Ingest(), "no/such", "x", func(*forest.Node) error { return nil })
	assert.Equal(t, ENotFound, CodeOf(err))
}
