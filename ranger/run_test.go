// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/ranger"
	"github.com/monkeyllm/vine/trails"
)

// F.14 under a synthetic clock: heat laid down sixty days ago evaporates
// to exactly the floor, the proposal between its ends is promoted, and a
// second run right after changes nothing.
func TestRunTwiceIsANoOp(t *testing.T) {
	ctx := context.Background()
	v, dir, _ := openFixture(t, nil)
	deposit(t, v, 0.8, now.Add(-60*24*time.Hour), shortcutSrc, shortcutTarget)
	deposit(t, v, 0.015, now.Add(-30*24*time.Hour), "concepts/tide")
	require.NoError(t, v.Trails().Deposit(ctx, "old-hunt", []string{"concepts/tide"}, 0.4, now.Add(-48*time.Hour)))
	base := head(t, dir)

	first, err := newRanger(t, v).Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, trails.Evaporation{Decayed: 2, Removed: 1, StaleSessionsCleared: 1}, first.Evaporation)
	assert.Equal(t, []string{shortcutSrc + " discovered-shortcut->" + shortcutTarget}, first.Links.Promoted,
		"two half-lives take 0.8 to the 0.2 floor")
	assert.Empty(t, first.Links.Pruned)
	assert.True(t, first.Landmarks.Changed)
	assert.Equal(t, ranger.GCSkipped, first.GC)
	require.NotNil(t, first.Health)
	assert.Equal(t, map[string]int{"0.8": 1}, first.Health.UncertainLinks)
	assert.Len(t, commitsSince(t, dir, base), 2, "one promotion, one Landmarks refresh")

	sha, rows, tree := head(t, dir), heatRows(t, v), testforest.TreeDigest(t, dir)
	for _, later := range []time.Duration{0, 300 * time.Millisecond} {
		r := newRanger(t, v, ranger.WithClock(func() time.Time { return now.Add(later) }))
		again, err := r.Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, trails.Evaporation{}, again.Evaporation)
		assert.Empty(t, again.Links.Promoted)
		assert.Empty(t, again.Links.Pruned)
		assert.Equal(t, ranger.LandmarksResult{Landmarks: first.Landmarks.Landmarks}, again.Landmarks)
		assert.Equal(t, sha, head(t, dir), "no commit")
		assert.Equal(t, rows, heatRows(t, v), "same heat rows, stamps included")
		assert.Equal(t, tree, testforest.TreeDigest(t, dir))
	}
}

func TestRunReportShape(t *testing.T) {
	v, _, _ := openFixture(t, nil)
	rep, err := newRanger(t, v).Run(context.Background())
	require.NoError(t, err)
	raw, err := json.Marshal(rep)
	require.NoError(t, err)
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &top))
	assert.ElementsMatch(t, []string{"evaporation", "payload_cache", "links", "landmarks", "health", "gc"}, keys(top))
	var links map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(top["links"], &links))
	assert.JSONEq(t, `[]`, string(links["promoted"]), "empty lists are [] on the wire, never null")
	assert.JSONEq(t, `{"evicted":0,"kept_bytes":0}`, string(top["payload_cache"]))
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestWritingStepsRefuseReadOnly(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	w, err := vine.Open(ctx, dir, nil) // build _derived, then let go
	require.NoError(t, err)
	require.NoError(t, w.Close())
	v, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer v.Close()
	r := newRanger(t, v)
	tree, derived := testforest.TreeDigest(t, dir), derivedDigest(t, dir)

	steps := map[string]func() error{
		"run":       func() error { _, err := r.Run(ctx); return err },
		"evaporate": func() error { _, err := r.Evaporate(ctx); return err },
		"cache":     func() error { _, err := r.EvictPayloadCache(ctx); return err },
		"links":     func() error { _, err := r.TendLinks(ctx); return err },
		"landmarks": func() error { _, err := r.RefreshLandmarks(ctx); return err },
	}
	for name, step := range steps {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, vine.EReadOnly, vine.CodeOf(step()))
		})
	}
	assert.Equal(t, ranger.GCSkipped, r.GC(ctx))
	_, err = r.Health(ctx)
	require.NoError(t, err, "health needs no writer")
	assert.Equal(t, tree, testforest.TreeDigest(t, dir))
	assert.Equal(t, derived, derivedDigest(t, dir), "not even heat was written")
}

func TestNewRefusesAMalformedConfig(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(ranger.ConfigFile)),
		[]byte("half_life_days: thirty\n"), 0o644))
	v, err := vine.Open(context.Background(), dir, &vine.Options{Now: clock})
	require.NoError(t, err)
	defer v.Close()
	_, err = ranger.New(v)
	var e *vine.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, vine.ESchema, e.Code)
	assert.Contains(t, e.Message, "half_life_days")

	_, err = ranger.New(v, ranger.WithConfig(ranger.Config{HalfLifeDays: 30}))
	assert.Equal(t, vine.ESchema, vine.CodeOf(err), "a config built in code is checked too")
}

func TestConfigFromTheForestDrivesTheRun(t *testing.T) {
	ctx := context.Background()
	v, _, _ := openFixture(t, func(dir string, _ *fixture.Manifest) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(ranger.ConfigFile)),
			[]byte("prune_below: 0.4\npromote_floor: 0.5\n"), 0o644))
	})
	deposit(t, v, 0.45, now, shortcutSrc, shortcutTarget)
	r := newRanger(t, v)
	assert.Equal(t, 0.4, r.Config().PruneBelow)
	res, err := r.TendLinks(ctx)
	require.NoError(t, err)
	assert.Empty(t, res.Promoted, "0.45 is under this forest's floor of 0.5")
	assert.Empty(t, res.Pruned, "0.5 is over this forest's prune_below of 0.4, and the ends are warm")
}

// The original implementation's forest: healthy by every check, its
// hand-picked Landmarks replaced by the degree ranking, its Cross trails
// kept, and a second run a no-op.
func TestRunOnTheReferenceForest(t *testing.T) {
	ctx := context.Background()
	dir := testforest.Reference(t)
	v, err := vine.Open(ctx, dir, &vine.Options{Now: clock})
	require.NoError(t, err)
	defer v.Close()
	r := newRanger(t, v)

	rep, err := r.Run(ctx)
	require.NoError(t, err)
	h := rep.Health
	assert.Equal(t, ranger.Lint{}, h.Lint)
	assert.Empty(t, h.Orphans)
	assert.Empty(t, h.BrokenWikilinks)
	assert.Empty(t, h.MissingPayloads, "the dataset's .db sits beside its passport")
	assert.Empty(t, h.UncertainLinks)
	assert.Equal(t, ranger.LandmarksResult{Landmarks: ranger.MaxLandmarks, Changed: true}, rep.Landmarks)
	body := readNode(t, dir, "_index").Body
	assert.Contains(t, body, "## Cross trails\n- Forest dialect (node and edge types) → [[_meta/schema]]")

	sha := head(t, dir)
	again, err := r.Run(ctx)
	require.NoError(t, err)
	assert.False(t, again.Landmarks.Changed)
	assert.Equal(t, sha, head(t, dir))
}
