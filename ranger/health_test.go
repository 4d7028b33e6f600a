// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/ranger"
	"github.com/monkeyllm/vine/trails"
)

func TestHealthOfAHealthyForest(t *testing.T) {
	ctx := context.Background()
	v, _, _ := openFixture(t, nil)
	h, err := newRanger(t, v).Health(ctx)
	require.NoError(t, err)
	rep, err := v.Validate(ctx)
	require.NoError(t, err)

	assert.Equal(t, ranger.Lint{Errors: rep.Errors, Warnings: rep.Warnings}, h.Lint, "lint is validate's count")
	assert.Equal(t, 0, h.Lint.Errors)
	for name, list := range map[string][]string{"needs_split": h.NeedsSplit, "fat_nodes": h.FatNodes,
		"stale_passports": h.StalePassports, "needs_description": h.NeedsDescription, "orphans": h.Orphans,
		"missing_payloads": h.MissingPayloads, "payload_drift": h.PayloadDrift, "changed_sources": h.ChangedSources} {
		assert.Empty(t, list, name)
	}
	assert.Empty(t, h.BrokenWikilinks)
	assert.Equal(t, map[string]int{"0.5": 1}, h.UncertainLinks, "the fixture's one shortcut")
	assert.Equal(t, trails.HeatStats{}, h.Heat)
	assert.Equal(t, forest.LockFree, h.Lock.State, "an open Vine takes the writer lock per write, not for its life")
	held, err := forest.AcquireLock(v.Dir())
	require.NoError(t, err)
	h, err = newRanger(t, v).Health(ctx)
	require.NoError(t, err)
	require.NoError(t, held.Release())
	assert.Equal(t, forest.LockHeld, h.Lock.State, "a lock held right now is named")
	require.NotNil(t, h.Lock.Holder)
	assert.Equal(t, os.Getpid(), h.Lock.Holder.PID)

	raw, err := json.Marshal(h)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(raw, []byte(`{"needs_split":[],"fat_nodes":[],"lint":{"errors":0,`)),
		"H.3's fields come first, in order, with [] for empty lists: %s", raw)
	assert.Contains(t, string(raw), `"uncertain_links":{"0.5":1},"heat":{"rows":0,"max":0,"mean":0}`)
}

// TestHealthFindsEachProblem breaks the fixture once per problem kind and
// expects health to name exactly the broken nodes.
func TestHealthFindsEachProblem(t *testing.T) {
	ctx := context.Background()
	sources := t.TempDir()
	write := func(name, content string) string {
		require.NoError(t, os.WriteFile(filepath.Join(sources, name), []byte(content), 0o644))
		sum := sha256.Sum256([]byte(content))
		return hex.EncodeToString(sum[:])
	}
	unchangedHash := write("unchanged.txt", "same bytes")
	write("changed.txt", "new bytes")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))

	passport := func(id, sourcePath, hash string) func(dir string) {
		return func(dir string) {
			editNode(t, dir, id, func(n *forest.Node) {
				n.Front.Set("source_path", sourcePath)
				n.Front.Set("source_hash", hash)
			})
		}
	}
	breakages := []func(dir string){
		func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "_meta", "gardener.yaml"),
				[]byte("source_root: "+sources+"\n"), 0o644))
		},
		passport("library/safety-manual", "vanished.docx", "00"),
		passport("library/harbour-handbook", "unchanged.txt", unchangedHash),
		passport("library/tidewatch-field-report-1", "changed.txt", unchangedHash),
		passport("library/tidewatch-field-report-2", "../"+filepath.Base(filepath.Dir(outside))+"/outside.txt", ""),
		func(dir string) { // the media stub sentence, still there
			editNode(t, dir, "media/storm-photo", func(n *forest.Node) {
				n.Body += "\n\n" + gardener.MediaStubSentinel + "\n"
			})
		},
		func(dir string) { // a media payload gone, another one changed
			require.NoError(t, os.Remove(filepath.Join(dir, "media", "_assets", "harbour-map.png")))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "media", "_assets", "buoy-diagram.png"), []byte("not a png"), 0o644))
		},
		func(dir string) {
			editNode(t, dir, "concepts/tide", func(n *forest.Node) {
				n.Body += "\n\nSee [[concepts/swell]] and [[concepts/no-such-wave|the lost wave]].\n"
			})
		},
		func(dir string) { // drop an entry from its parent index: the node is unreachable
			editNode(t, dir, "finance/_index", func(n *forest.Node) {
				n.Body, _ = forest.RemoveEntry(n.Body, "finance/member-dues")
			})
		},
		func(dir string) { // a branch grown past its size signal
			editNode(t, dir, "events/_index", func(n *forest.Node) {
				n.Body += "\n\n## Archive\n\n" + strings.Repeat("- [[events/_index]] — self\n", 151)
			})
		},
		func(dir string) { // a fat node: 51 distinct edges
			editNode(t, dir, "concepts/swell", func(n *forest.Node) {
				for i := range 51 {
					addLinks(n, link("related-to", "nowhere/target-"+string(rune('a'+i/26))+string(rune('a'+i%26)), nil))
				}
			})
		},
	}
	v, dir, _ := openFixture(t, func(dir string, _ *fixture.Manifest) {
		for _, b := range breakages {
			b(dir)
		}
	})
	deposit(t, v, 0.5, now, "concepts/tide")
	deposit(t, v, 0.25, now, "concepts/swell")
	tree, derived := testforest.TreeDigest(t, dir), derivedDigest(t, dir)
	h, err := newRanger(t, v).Health(ctx)
	require.NoError(t, err)

	assert.Equal(t, []string{"library/safety-manual", "library/tidewatch-field-report-2"}, h.StalePassports,
		"a vanished source and one outside the source root")
	assert.Equal(t, []string{"library/tidewatch-field-report-1"}, h.ChangedSources)
	assert.Equal(t, []string{"media/storm-photo"}, h.NeedsDescription)
	assert.Equal(t, []string{"media/harbour-map"}, h.MissingPayloads)
	assert.Equal(t, []string{"media/buoy-diagram"}, h.PayloadDrift)
	assert.Equal(t, []ranger.Wikilink{{ID: "concepts/tide", Target: "concepts/no-such-wave"}}, h.BrokenWikilinks)
	assert.Equal(t, []string{"finance/member-dues"}, h.Orphans)
	assert.Equal(t, []string{"events/_index"}, h.NeedsSplit)
	assert.Equal(t, []string{"concepts/swell"}, h.FatNodes)
	assert.Equal(t, trails.HeatStats{Rows: 2, Max: 0.5, Mean: 0.375}, h.Heat)
	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Equal(t, ranger.Lint{Errors: rep.Errors, Warnings: rep.Warnings}, h.Lint)
	assert.Positive(t, h.Lint.Errors, "the 51 links to nowhere and the missing payload are lint errors")

	assert.Equal(t, tree, testforest.TreeDigest(t, dir), "health writes no file")
	assert.Equal(t, derived, derivedDigest(t, dir), "nor heat, nor catalog")
}

func TestHealthThresholdsComeFromTheConfig(t *testing.T) {
	ctx := context.Background()
	v, dir, man := openFixture(t, nil)
	cfg := ranger.DefaultConfig()
	cfg.SplitEntries, cfg.FatDegree = 5, 3
	h, err := newRanger(t, v, ranger.WithConfig(cfg)).Health(ctx)
	require.NoError(t, err)

	for _, id := range man.Branches {
		body := readNode(t, dir, id).Body
		over := strings.Count("\n"+body, "\n- [[") > 5
		assert.Equal(t, over, slices.Contains(h.NeedsSplit, id), "%s: %d entries", id, strings.Count("\n"+body, "\n- [["))
	}
	assert.NotEmpty(t, h.NeedsSplit)
	assert.NotEmpty(t, h.FatNodes)

	cfg = ranger.DefaultConfig()
	cfg.SplitTokens = 1
	h, err = newRanger(t, v, ranger.WithConfig(cfg)).Health(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, man.Branches, h.NeedsSplit, "every branch body is over one token")
}

func TestHealthOnAReadOnlyForestSeesTheLock(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	w, err := forest.AcquireLock(dir) // a writer in the middle of a write
	require.NoError(t, err)
	ro, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	r := newRanger(t, ro)

	h, err := r.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, forest.LockHeld, h.Lock.State)
	require.NoError(t, w.Release())
	h, err = r.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, forest.LockFree, h.Lock.State, "the writer is gone")
}
