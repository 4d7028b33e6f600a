// SPDX-License-Identifier: Apache-2.0

package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/internal/exttest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestRankingExtensionReordersHarvest runs the example ranking
// extension as a child process behind a forest's harvest.
func TestRankingExtensionReordersHarvest(t *testing.T) {
	tree := exttest.Tree(t, "github.com/monkeyllm/vine/examples/ext-titleboost")
	data, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	m, err := ext.ParseManifest(data)
	require.NoError(t, err)
	w := worker.New(tree, m, worker.Options{})
	defer w.Close()

	dir, _ := testforest.Fixture(t)
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	const q = "harbour map"
	plain, err := v.Harvest(ctx, q, vine.HarvestOptions{K: 5})
	require.NoError(t, err)

	v.SetRanker(w.Ranker())
	ranked, err := v.Harvest(ctx, q, vine.HarvestOptions{K: 5})
	require.NoError(t, err)
	var want []string
	var rest []string
	for _, it := range plain.Results {
		if containsFold(it.Title, "harbour") && containsFold(it.Title, "map") {
			want = append(want, it.ID)
		} else {
			rest = append(rest, it.ID)
		}
	}
	want = append(want, rest...)
	var got []string
	for _, it := range ranked.Results {
		got = append(got, it.ID)
	}
	require.NotEmpty(t, want)
	require.NotEqual(t, want[0], plain.Results[0].ID, "the fixture question must need the reorder")
	assert.Equal(t, want, got)
	assert.Equal(t, []string{"ext:titleboost"}, ranked.Extensions)
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
