// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/ranger"
)

// expectedLandmarks recomputes H.7 from the node files: degree over
// declared links in both directions, branches, _meta and degree 0 left
// out, degree descending then id ascending, at most 20.
func expectedLandmarks(t *testing.T, dir string, ids []string) []string {
	t.Helper()
	deg := map[string]int{}
	seen := map[[3]string]bool{}
	for _, id := range ids {
		for _, l := range readNode(t, dir, id).Links() {
			key := [3]string{id, l.Rel, l.Target}
			if !seen[key] { // the catalog keeps one row per (src, rel, dst)
				seen[key] = true
				deg[id]++
				deg[l.Target]++
			}
		}
	}
	var cands []string
	for _, id := range ids {
		if deg[id] > 0 && !forest.IsIndex(id) && !forest.IsSystem(id) {
			cands = append(cands, id)
		}
	}
	slices.SortFunc(cands, func(a, b string) int { return cmp.Or(cmp.Compare(deg[b], deg[a]), strings.Compare(a, b)) })
	return cands[:min(len(cands), ranger.MaxLandmarks)]
}

func landmarkIDs(t *testing.T, dir string) []string {
	t.Helper()
	body := readNode(t, dir, forest.RootIndexID).Body
	return forest.EntryIDs(body, forest.SectionLandmarks)
}

func TestRefreshLandmarks(t *testing.T) {
	ctx := context.Background()
	v, dir, man := openFixture(t, nil)
	want := expectedLandmarks(t, dir, man.Nodes)
	require.Len(t, want, ranger.MaxLandmarks, "the fixture is woven enough for a full list")
	base := head(t, dir)
	r := newRanger(t, v)

	res, err := r.RefreshLandmarks(ctx)
	require.NoError(t, err)
	assert.Equal(t, ranger.LandmarksResult{Landmarks: ranger.MaxLandmarks, Changed: true}, res)
	assert.Equal(t, want, landmarkIDs(t, dir))
	master := readNode(t, dir, forest.RootIndexID)
	assert.Equal(t, now.Format(time.DateOnly), master.Updated())
	for _, line := range forest.SectionLines(master.Body, forest.SectionLandmarks) {
		assert.Regexp(t, `^- \[\[[^\]]+\]\] — .+$`, line)
	}
	rec, err := v.Record(ctx, want[0])
	require.NoError(t, err)
	assert.Contains(t, master.Body, forest.EntryLine(want[0], rec.Summary), "entries carry the summary verbatim")
	commits := commitsSince(t, dir, base)
	require.Len(t, commits, 1)
	assert.Equal(t, gitops.RangerLandmarksSubject, commits[0].Subject)
	assert.Equal(t, []string{"_index.md"}, commits[0].Files)
	got, err := v.Record(ctx, forest.RootIndexID)
	require.NoError(t, err)
	assert.Equal(t, now.Format(time.DateOnly), got.Updated, "the master's catalog row follows")

	h, err := r.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, h.Landmarks, "the health report lists what the master index shows")

	sha, tree := head(t, dir), testforest.TreeDigest(t, dir)
	again, err := r.RefreshLandmarks(ctx)
	require.NoError(t, err)
	assert.Equal(t, ranger.LandmarksResult{Landmarks: ranger.MaxLandmarks}, again, "idempotent")
	assert.Equal(t, sha, head(t, dir))
	assert.Equal(t, tree, testforest.TreeDigest(t, dir))
}

func TestRefreshLandmarksFollowsTheEdges(t *testing.T) {
	ctx := context.Background()
	v, dir, man := openFixture(t, nil)
	r := newRanger(t, v)
	_, err := r.RefreshLandmarks(ctx)
	require.NoError(t, err)

	// Weave one quiet node into the top: links to it from six nodes.
	quiet := "finance/member-dues"
	require.NotContains(t, landmarkIDs(t, dir), quiet)
	for _, src := range leaves(man, quiet)[:6] {
		_, err := v.Graft(ctx, src, vine.GraftPatch{AddLinks: []vine.Link{{Rel: "related-to", Target: quiet}}})
		require.NoError(t, err)
	}
	res, err := r.RefreshLandmarks(ctx)
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Equal(t, expectedLandmarks(t, dir, man.Nodes), landmarkIDs(t, dir))
	assert.Contains(t, landmarkIDs(t, dir), quiet)
}

func TestRefreshLandmarksSmallForest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := vine.Init(ctx, dir, "Small", &vine.InitOptions{Now: clock})
	require.NoError(t, err)
	v, err := vine.Open(ctx, dir, &vine.Options{Now: clock})
	require.NoError(t, err)
	defer v.Close()
	r := newRanger(t, v)

	res, err := r.RefreshLandmarks(ctx)
	require.NoError(t, err)
	assert.Equal(t, ranger.LandmarksResult{}, res, "no edges, no landmarks, no write")

	plant := func(id string, links ...vine.Link) {
		_, err := v.Plant(ctx, vine.NodeSpec{ID: id, Type: "note", Title: id, Parent: forest.RootIndexID,
			Summary: "Test note " + id + " about tides.", Body: "# " + id, Links: links}, vine.PlantOptions{})
		require.NoError(t, err)
	}
	plant("tide")
	plant("swell", vine.Link{Rel: "related-to", Target: "tide"})
	plant("storm", vine.Link{Rel: "related-to", Target: "tide"})
	plant("lonely")

	res, err = r.RefreshLandmarks(ctx)
	require.NoError(t, err)
	assert.Equal(t, ranger.LandmarksResult{Landmarks: 3, Changed: true}, res)
	assert.Equal(t, []string{"tide", "storm", "swell"}, landmarkIDs(t, dir),
		"degree first, then id; the degree-0 node is no landmark")
}

func TestRefreshLandmarksAppendsAMissingSection(t *testing.T) {
	ctx := context.Background()
	v, dir, _ := openFixture(t, func(dir string, _ *fixture.Manifest) {
		editNode(t, dir, forest.RootIndexID, func(n *forest.Node) {
			start, end, ok := forest.FindSection(n.Body, forest.SectionLandmarks)
			if ok {
				n.Body = n.Body[:start] + n.Body[end:]
			}
		})
	})
	require.Nil(t, forest.SectionLines(readNode(t, dir, forest.RootIndexID).Body, forest.SectionLandmarks))
	res, err := newRanger(t, v).RefreshLandmarks(ctx)
	require.NoError(t, err)
	assert.True(t, res.Changed)
	body := readNode(t, dir, forest.RootIndexID).Body
	assert.Len(t, forest.EntryIDs(body, forest.SectionLandmarks), res.Landmarks)
	assert.Contains(t, body, "## "+forest.SectionSubBranches, "the rest of the index is kept")
}
