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
)

func TestPruneLeafRemovesPassportEntryAndRow(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "prune", `{"id": "operations/fuel-logistics"}`)
	require.NoError(t, err)
	assert.Equal(t, "operations/fuel-logistics", out["id"])
	assert.Equal(t, true, out["pruned"])
	assert.Equal(t, float64(0), out["backlinks_removed"])
	assert.Contains(t, out, "payload_moved")
	assert.Nil(t, out["payload_moved"])
	assert.Len(t, out["commit"], 40)

	assert.NoFileExists(t, filepath.Join(dir, "operations", "fuel-logistics.md"))
	parent := wrNode(t, dir, "operations/_index")
	assert.NotContains(t, forest.EntryIDs(parent.Body, forest.SectionDirect), "operations/fuel-logistics")
	assert.Equal(t, "7 bananas, 0 sub-branches", parent.Coverage())
	assert.Equal(t, "2026-12-01", parent.Updated())
	assert.Equal(t, "prune(operations/fuel-logistics)", headSubject(t, dir, "operations/_index.md"))

	_, ok, err := v.Catalog().Get(context.Background(), "operations/fuel-logistics")
	require.NoError(t, err)
	assert.False(t, ok)
	in, err := v.Catalog().InEdges(context.Background(), "organizations/mare-alta")
	require.NoError(t, err)
	for _, e := range in {
		assert.NotEqual(t, "operations/fuel-logistics", e.Src, "its out-edges are gone too")
	}
	_, err = call(t, v, "look", `{"id": "operations/fuel-logistics"}`)
	assert.Equal(t, ENotFound, CodeOf(err))
	_, err = call(t, v, "history", `{"id": "operations/fuel-logistics"}`)
	assert.Equal(t, ENotFound, CodeOf(err), "a pruned id has no history")

	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	files, err := repo.TrackedFiles()
	require.NoError(t, err)
	assert.NotContains(t, files, "operations/fuel-logistics.md", "the passport is deleted through git")
}

func TestPruneAnchoredRefusesWithAnchors(t *testing.T) {
	v, dir := writableFixture(t)
	before := testforest.TreeDigest(t, dir)
	_, err := call(t, v, "prune", `{"id": "operations/radio-schedule"}`)
	wrRefused(t, dir, before, err, EAnchored, "1 links")
	var e *Error
	require.ErrorAs(t, err, &e)
	anchors, _ := e.Get("anchors")
	assert.Equal(t, []Anchor{{Source: "projects/lighthouse/radio-protocol", Rel: "related-to"}}, anchors)
	count, _ := e.Get("anchor_count")
	assert.Equal(t, 1, count)
	assert.Contains(t, e.Hint, "force")

	_, err = call(t, v, "prune", `{"id": "organizations/mare-alta"}`)
	wrRefused(t, dir, before, err, EAnchored, "22 links")
	require.ErrorAs(t, err, &e)
	anchors, _ = e.Get("anchors")
	assert.Len(t, anchors, MaxAnchorsListed, "the list is capped")
	count, _ = e.Get("anchor_count")
	assert.Equal(t, 22, count, "the count is exact")
}

func TestPruneForceDropsBacklinksInOneCommit(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "prune", `{"id": "operations/radio-schedule", "force": true}`)
	require.NoError(t, err)
	assert.Equal(t, float64(1), out["backlinks_removed"])
	holder := wrNode(t, dir, "projects/lighthouse/radio-protocol")
	for _, l := range holder.Links() {
		assert.NotEqual(t, "operations/radio-schedule", l.Target)
	}
	assert.Equal(t, "2026-12-01", holder.Updated())
	assert.Equal(t, "prune(operations/radio-schedule)", headSubject(t, dir, "projects/lighthouse/radio-protocol.md"),
		"the holder's edit is in the prune's commit")
	in, err := v.Catalog().InEdges(context.Background(), "operations/radio-schedule")
	require.NoError(t, err)
	assert.Empty(t, in)
	rec, _, err := v.Catalog().Get(context.Background(), "projects/lighthouse/radio-protocol")
	require.NoError(t, err)
	assert.Equal(t, "2026-12-01", rec.Updated, "holders are upserted")
}

func TestPruneDatasetMovesPayloadToGraveyard(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "prune", `{"id": "finance/ledger-2026"}`)
	require.NoError(t, err)
	assert.Equal(t, "_derived/graveyard/finance/ledger-2026/ledger-2026.db", out["payload_moved"])
	assert.NoFileExists(t, filepath.Join(dir, "finance", "ledger-2026.db"), "no orphan payload is left beside the branch")
	assert.FileExists(t, filepath.Join(dir, "_derived", "graveyard", "finance", "ledger-2026", "ledger-2026.db"))
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	files, err := repo.TrackedFiles()
	require.NoError(t, err)
	for _, f := range files {
		assert.True(t, strings.HasSuffix(f, ".md") || f == ".gitignore", "git tracks no binary: %s", f)
	}

	// A pruned id can be reused; pruning the new generation keeps the old
	// payload in the graveyard.
	_, err = call(t, v, "plant", `{"node": {"id": "finance/ledger-2026", "type": "dataset", "title": "Ledger 2026",
		"summary": "Ledger restarted in December 2026: empty until the audit.", "parent": "finance/_index",
		"schema": {"ledger": {"columns": {"day": "TEXT", "amount": "REAL"}}}}}`)
	require.NoError(t, err)
	out, err = call(t, v, "prune", `{"id": "finance/ledger-2026"}`)
	require.NoError(t, err)
	assert.Equal(t, "_derived/graveyard/finance/ledger-2026/ledger-2026-2.db", out["payload_moved"])
	assert.FileExists(t, filepath.Join(dir, "_derived", "graveyard", "finance", "ledger-2026", "ledger-2026.db"))
}

func TestPruneMediaMovesAssetToGraveyard(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "prune", `{"id": "media/harbour-map"}`)
	require.NoError(t, err)
	assert.Equal(t, "_derived/graveyard/media/harbour-map/harbour-map.png", out["payload_moved"])
	assert.NoFileExists(t, filepath.Join(dir, "media", "_assets", "harbour-map.png"))
	assert.FileExists(t, filepath.Join(dir, "media", "_assets", "buoy-diagram.png"), "other assets stay")
}

func TestPruneStagedUploadSourceMovesToGraveyard(t *testing.T) {
	v, dir := writableFixture(t)
	staging := filepath.Join(dir, "_derived", "uploads")
	require.NoError(t, os.MkdirAll(staging, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(staging, "rota.txt"), []byte("night rota"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_meta", "gardener.yaml"), []byte("source_root: _derived/uploads\n"), 0o644))
	wrRewrite(t, dir, "operations/crew-rotation", func(n *forest.Node) { n.Front.Set("source_path", "rota.txt") })
	_, err := call(t, v, "prune", `{"id": "operations/crew-rotation"}`)
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(staging, "rota.txt"))
	assert.FileExists(t, filepath.Join(dir, "_derived", "graveyard", "operations", "crew-rotation", "source", "rota.txt"))
}

func TestPruneEmptyBranchRemovesItsFolder(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "plant", `{"node": {"id": "training/_index", "type": "branch", "title": "Training",
		"summary": "Courses for members: safety, radio and first aid.", "parent": "_index"}}`)
	require.NoError(t, err)
	_, err = call(t, v, "prune", `{"id": "training/_index"}`)
	require.NoError(t, err)
	assert.NoDirExists(t, filepath.Join(dir, "training"))
	root := wrNode(t, dir, "_index")
	assert.NotContains(t, forest.EntryIDs(root.Body, forest.SectionSubBranches), "training/_index")
	assert.Equal(t, "0 bananas, 10 sub-branches", root.Coverage())
}

func TestPruneRefusalsLeaveTheForestByteIdentical(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "transplant", `{"id": "operations/waste-handling", "new_id": "operations/waste"}`)
	require.NoError(t, err)
	before := testforest.TreeDigest(t, dir)
	tests := []struct {
		name, args string
		code       Code
		mention    string
	}{
		{"root", `{"id": "_index"}`, ESchema, "root index"},
		{"meta", `{"id": "_meta/schema"}`, ESchema, "_meta"},
		{"branch with children", `{"id": "projects/lighthouse/_index"}`, EAnchored, "5 children"},
		{"force never deletes a branch's children", `{"id": "projects/lighthouse/_index", "force": true}`, EAnchored, "children"},
		{"absent", `{"id": "operations/nothing"}`, ENotFound, "node not found"},
		{"waymark", `{"id": "operations/waste-handling"}`, EMoved, "operations/waste"},
		{"escape", `{"id": "../x"}`, ENotFound, "not found"},
		{"force not a boolean", `{"id": "operations/ice-supply", "force": "yes"}`, ESchema, "force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, v, "prune", tt.args)
			wrRefused(t, dir, before, err, tt.code, tt.mention)
		})
	}
	_, err = call(t, v, "prune", `{"id": "projects/lighthouse/_index"}`)
	var e *Error
	require.ErrorAs(t, err, &e)
	children, _ := e.Get("children")
	assert.Equal(t, 5, children)
}

func TestPruneOfMovedNodeKillsItsWaymarks(t *testing.T) {
	v, _ := writableFixture(t)
	_, err := call(t, v, "transplant", `{"id": "operations/waste-handling", "new_id": "operations/waste"}`)
	require.NoError(t, err)
	_, err = call(t, v, "prune", `{"id": "operations/waste"}`)
	require.NoError(t, err)
	_, err = call(t, v, "look", `{"id": "operations/waste-handling"}`)
	assert.Equal(t, ENotFound, CodeOf(err), "a redirect to nothing is worse than no redirect")
}

func TestPruneFailedCommitRestoresEverything(t *testing.T) {
	v, dir := writableFixture(t)
	lock := filepath.Join(dir, ".git", "index.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	before := testforest.TreeDigest(t, dir)
	_, err := call(t, v, "prune", `{"id": "finance/ledger-2026"}`)
	require.Error(t, err)
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "passport, index and payload are back")
	assert.FileExists(t, filepath.Join(dir, "finance", "ledger-2026.db"))
	assert.NoDirExists(t, filepath.Join(dir, "_derived", "graveyard"))
	require.NoError(t, os.Remove(lock))
	_, err = call(t, v, "prune", `{"id": "finance/ledger-2026"}`)
	require.NoError(t, err, "the forest is intact for the next write")
}

func TestPruneOnReadOnlyIsRefused(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	_, err := call(t, v, "prune", `{"id": "nothing/here"}`)
	assert.Equal(t, EReadOnly, CodeOf(err))
}
