// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/testforest"
)

func TestTransplantMovesLeafLinksAndIndexes(t *testing.T) {
	v, dir := writableFixture(t)
	old := wrNode(t, dir, "operations/radio-schedule")
	out, err := call(t, v, "transplant", `{"id": "operations/radio-schedule", "new_id": " /projects/lighthouse/radio-schedule/ "}`)
	require.NoError(t, err)
	assert.Equal(t, "projects/lighthouse/radio-schedule", out["id"])
	assert.Equal(t, "operations/radio-schedule", out["moved_from"])
	assert.Equal(t, float64(1), out["backlinks_rewritten"])
	assert.Len(t, out["commit"], 40)
	assert.Equal(t, []any{"_index", "projects/_index", "projects/lighthouse/_index"}, out["trail"])
	assert.NotContains(t, out, "alias_clipped")

	assert.NoFileExists(t, filepath.Join(dir, "operations", "radio-schedule.md"))
	n := wrNode(t, dir, "projects/lighthouse/radio-schedule")
	assert.Equal(t, "projects/lighthouse/radio-schedule", n.Front.String("id"))
	assert.Equal(t, old.Created(), n.Created(), "created is preserved")
	assert.Equal(t, "2026-12-01", n.Updated())
	assert.Equal(t, old.Body, n.Body)
	assert.Equal(t, []string{"operations/radio-schedule"}, n.MovedFrom())
	assert.Equal(t, []string{"operations/radio-schedule"}, n.Aliases(), "the old id joins the aliases")

	holder := wrNode(t, dir, "projects/lighthouse/radio-protocol")
	assert.Contains(t, holder.Links(), forest.Link{Rel: "related-to", Target: "projects/lighthouse/radio-schedule", Confidence: 1,
		Entry: forest.NewFrontmatter(forest.Field{Key: "rel", Value: "related-to"}, forest.Field{Key: "target", Value: "projects/lighthouse/radio-schedule"})})
	assert.Equal(t, "2026-12-01", holder.Updated())

	from := wrNode(t, dir, "operations/_index")
	assert.NotContains(t, forest.EntryIDs(from.Body, forest.SectionDirect), "operations/radio-schedule")
	assert.Equal(t, "7 bananas, 0 sub-branches", from.Coverage())
	to := wrNode(t, dir, "projects/lighthouse/_index")
	assert.Contains(t, forest.SectionLines(to.Body, forest.SectionDirect), forest.EntryLine(n.ID, n.Summary()))
	assert.Equal(t, "6 bananas, 0 sub-branches", to.Coverage())

	subject := "transplant(operations/radio-schedule -> projects/lighthouse/radio-schedule)"
	for _, f := range []string{"projects/lighthouse/radio-schedule.md", "projects/lighthouse/radio-protocol.md", "operations/_index.md", "projects/lighthouse/_index.md"} {
		assert.Equal(t, subject, headSubject(t, dir, f), f)
	}

	ctx := context.Background()
	_, ok, err := v.Catalog().Get(ctx, "operations/radio-schedule")
	require.NoError(t, err)
	assert.False(t, ok, "the old row is gone")
	in, err := v.Catalog().InEdges(ctx, "projects/lighthouse/radio-schedule")
	require.NoError(t, err)
	assert.Equal(t, []string{"projects/lighthouse/radio-protocol"}, inSources(in))
	assert.Equal(t, 1, wrStale(t, v, "projects/lighthouse/radio-schedule"), "the new id needs a vector")
}

func inSources(in []catalog.InEdge) []string {
	var out []string
	for _, e := range in {
		out = append(out, e.Src)
	}
	return out
}

func TestTransplantLeavesAWaymark(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "transplant", `{"id": "operations/radio-schedule", "new_id": "projects/lighthouse/radio-schedule"}`)
	require.NoError(t, err)
	for _, prim := range []string{"look", "pick", "move", "history"} {
		_, err := call(t, v, prim, `{"id": "operations/radio-schedule"}`)
		require.Error(t, err, prim)
		assert.Equal(t, EMoved, CodeOf(err), prim)
		var e *Error
		require.ErrorAs(t, err, &e)
		to, _ := e.Get("moved_to")
		assert.Equal(t, "projects/lighthouse/radio-schedule", to, prim)
	}
	res, err := v.Locate(context.Background(), "radio-schedule", LocateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Results)
	assert.Equal(t, "projects/lighthouse/radio-schedule", res.Results[0].ID, "locate finds the node by its old name")

	// The waymark is derived from moved_from, so reindex keeps it.
	_, err = v.Reindex(context.Background())
	require.NoError(t, err)
	_, err = call(t, v, "look", `{"id": "operations/radio-schedule"}`)
	assert.Equal(t, EMoved, CodeOf(err), "the waymark survives reindex")

	// A second move: the first address points at the final one.
	_, err = call(t, v, "transplant", `{"id": "projects/lighthouse/radio-schedule", "new_id": "operations/radio-watch"}`)
	require.NoError(t, err)
	n := wrNode(t, dir, "operations/radio-watch")
	assert.Equal(t, []string{"operations/radio-schedule", "projects/lighthouse/radio-schedule"}, n.MovedFrom())
	for _, id := range []string{"operations/radio-schedule", "projects/lighthouse/radio-schedule"} {
		_, err = call(t, v, "look", `{"id": "`+id+`"}`)
		var e *Error
		require.ErrorAs(t, err, &e)
		to, _ := e.Get("moved_to")
		assert.Equal(t, "operations/radio-watch", to, id)
	}

	// Moving back to an old address makes it live again.
	_, err = call(t, v, "transplant", `{"id": "operations/radio-watch", "new_id": "operations/radio-schedule"}`)
	require.NoError(t, err)
	out, err := call(t, v, "look", `{"id": "operations/radio-schedule"}`)
	require.NoError(t, err)
	assert.Equal(t, "operations/radio-schedule", out["id"])
	_, err = call(t, v, "look", `{"id": "operations/radio-watch"}`)
	assert.Equal(t, EMoved, CodeOf(err))
}

func TestTransplantMovesPayloads(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "transplant", `{"id": "finance/ledger-2026", "new_id": "operations/ledger-2026"}`)
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(dir, "finance", "ledger-2026.db"))
	assert.FileExists(t, filepath.Join(dir, "operations", "ledger-2026.db"))
	assert.Equal(t, "ledger-2026.db", wrNode(t, dir, "operations/ledger-2026").Payload(), "payload is unchanged")
	out, err := call(t, v, "look", `{"id": "operations/ledger-2026"}`)
	require.NoError(t, err)
	assert.NotEqual(t, true, out["payload_missing"], "the payload travelled with its passport")
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	files, err := repo.TrackedFiles()
	require.NoError(t, err)
	assert.NotContains(t, files, "operations/ledger-2026.db", "git never tracks the payload")
	assert.Contains(t, files, "operations/ledger-2026.md")

	_, err = call(t, v, "transplant", `{"id": "media/harbour-map", "new_id": "operations/harbour-map"}`)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(dir, "operations", "_assets", "harbour-map.png"))
	assert.NoFileExists(t, filepath.Join(dir, "media", "_assets", "harbour-map.png"))
	out, err = call(t, v, "look", `{"id": "operations/harbour-map"}`)
	require.NoError(t, err)
	assert.NotEqual(t, true, out["payload_missing"])
}

func TestTransplantAliasClipped(t *testing.T) {
	v, dir := writableFixture(t)
	full := make([]any, forest.MaxAliases)
	for i := range full {
		full[i] = fmt.Sprintf("alias %d", i)
	}
	wrRewrite(t, dir, "operations/ice-supply", func(n *forest.Node) { n.Front.Set("aliases", full) })
	out, err := call(t, v, "transplant", `{"id": "operations/ice-supply", "new_id": "operations/ice"}`)
	require.NoError(t, err)
	assert.Equal(t, true, out["alias_clipped"])
	n := wrNode(t, dir, "operations/ice")
	assert.Len(t, n.Aliases(), forest.MaxAliases, "hand-written aliases are never displaced")
	assert.Equal(t, []string{"operations/ice-supply"}, n.MovedFrom())
}

func TestTransplantRekeysHeat(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	heat := &wrHeat{}
	v := openT(t, dir, &Options{Now: plantClock, Heat: heat})
	_, err := v.Transplant(context.Background(), "operations/ice-supply", "operations/ice")
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"operations/ice-supply", "operations/ice"}}, heat.rekeyed)
}

func TestTransplantRefusalsLeaveTheForestByteIdentical(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "transplant", `{"id": "operations/waste-handling", "new_id": "operations/waste"}`)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "operations", "ledger-2026.db"), []byte("someone else's"), 0o644))
	before := testforest.TreeDigest(t, dir)
	tests := []struct {
		name, args string
		code       Code
		mention    string
	}{
		{"absent", `{"id": "operations/nothing", "new_id": "operations/x"}`, ENotFound, "node not found"},
		{"waymark", `{"id": "operations/waste-handling", "new_id": "operations/x"}`, EMoved, "operations/waste"},
		{"empty new_id", `{"id": "operations/ice-supply", "new_id": " / "}`, ESchema, "empty"},
		{"same id", `{"id": "operations/ice-supply", "new_id": "/operations/ice-supply/"}`, ESchema, "equals"},
		{"branch", `{"id": "projects/lighthouse/_index", "new_id": "operations/lighthouse/_index"}`, ESchema, "branch"},
		{"root", `{"id": "_index", "new_id": "x"}`, ESchema, "branch"},
		{"meta source", `{"id": "_meta/schema", "new_id": "operations/schema"}`, ESchema, "_meta"},
		{"meta destination", `{"id": "operations/ice-supply", "new_id": "_meta/ice"}`, ESchema, "_meta"},
		{"index destination", `{"id": "operations/ice-supply", "new_id": "operations/ice/_index"}`, ESchema, "_index"},
		{"md suffix", `{"id": "operations/ice-supply", "new_id": "operations/ice.md"}`, ESchema, "canonical"},
		{"taken", `{"id": "operations/ice-supply", "new_id": "operations/fuel-logistics"}`, ESchema, "already exists"},
		{"no destination branch", `{"id": "operations/ice-supply", "new_id": "nowhere/ice"}`, ENotFound, "nowhere/_index"},
		{"escape", `{"id": "operations/ice-supply", "new_id": "../outside"}`, ENotFound, "escapes"},
		{"payload collision", `{"id": "finance/ledger-2026", "new_id": "operations/ledger-2026"}`, ESchema, "payload"},
		{"missing new_id", `{"id": "operations/ice-supply"}`, ESchema, "new_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, v, "transplant", tt.args)
			wrRefused(t, dir, before, err, tt.code, tt.mention)
		})
	}
}

func TestTransplantFailedCommitRestoresEverything(t *testing.T) {
	v, dir := writableFixture(t)
	lock := filepath.Join(dir, ".git", "index.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	before := testforest.TreeDigest(t, dir)
	_, err := call(t, v, "transplant", `{"id": "finance/ledger-2026", "new_id": "operations/ledger-2026"}`)
	require.Error(t, err)
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "new file deleted, old file, indexes and payload restored")
	require.NoError(t, os.Remove(lock))
	_, err = call(t, v, "look", `{"id": "finance/ledger-2026"}`)
	require.NoError(t, err)
}

func TestTransplantOnReadOnlyIsRefused(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	_, err := call(t, v, "transplant", `{"id": "nothing/here", "new_id": "x"}`)
	assert.Equal(t, EReadOnly, CodeOf(err))
}
