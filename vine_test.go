// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/testforest"
)

func openT(t *testing.T, dir string, opts *Options) *Vine {
	t.Helper()
	v, err := Open(context.Background(), dir, opts)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

func TestReferenceForestOpensValidatesAndReindexes(t *testing.T) {
	dir := testforest.Reference(t)
	ctx := context.Background()
	v := openT(t, dir, nil)

	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	for _, f := range rep.Findings {
		if f.Level == "error" {
			t.Errorf("unexpected error finding: %+v", f)
		}
	}
	assert.Equal(t, 0, rep.Errors)
	assert.Equal(t, 82, rep.Nodes)

	res, err := v.Reindex(ctx)
	require.NoError(t, err)
	assert.Equal(t, 82, res.Nodes, "the reference reports 82 nodes")
	assert.Equal(t, 12, res.Branches, "the reference reports 12 branches")
	assert.Equal(t, 95, res.Edges, "95 declared links")
	assert.Empty(t, res.Skipped)

	d := v.Dialect()
	assert.Len(t, d.Types, 8)
	assert.Len(t, d.Rels, 10)

	rec, ok, err := v.Catalog().Get(ctx, "sales/report-q1-2026")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "dataset", rec.Type)
	assert.Equal(t, "report-q1-2026.db", rec.Payload)
	assert.Equal(t, []string{"_index", "sales/_index"}, rec.Trail)
}

func TestFixtureForestIsValidAndCommitsOnlyMarkdown(t *testing.T) {
	dir, man := testforest.Fixture(t)
	ctx := context.Background()
	v := openT(t, dir, nil)

	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Errors, "%+v", rep.Findings)
	assert.Equal(t, 0, rep.Warnings, "%+v", rep.Findings)

	st, err := v.Catalog().Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, len(man.Nodes), st.Nodes)
	assert.Equal(t, len(man.Branches), st.Branches)
	assert.GreaterOrEqual(t, len(man.Branches), 11, "at least ten branches under the root")
	assert.Equal(t, man.Edges, st.Edges)

	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	files, err := repo.TrackedFiles()
	require.NoError(t, err)
	for _, f := range files {
		assert.True(t, strings.HasSuffix(f, ".md") || f == ".gitignore", "tracked %s", f)
	}
	assert.Contains(t, files, "_index.md")
	assert.FileExists(t, filepath.Join(dir, "finance", "ledger-2026.db"), "the payload exists on disk")
	assert.NotContains(t, files, "finance/ledger-2026.db")
}

func TestInitCreatesAnOpenableForest(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "new")
	clock := func() time.Time { return time.Date(2026, 6, 1, 9, 0, 0, 0, time.Local) }
	res, err := Init(ctx, dir, "Team knowledge", &InitOptions{Now: clock})
	require.NoError(t, err)
	assert.Equal(t, "Team knowledge", res.Title)
	assert.Len(t, res.Commit, 40)

	gi, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, forest.GitignoreContent, string(gi))
	assert.Len(t, gi, 44)

	master, err := os.ReadFile(filepath.Join(dir, "_index.md"))
	require.NoError(t, err)
	n, err := forest.Parse("_index", master)
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "type", "title", "summary", "coverage", "created", "updated"}, n.Front.Keys())
	assert.Equal(t, "2026-06-01", n.Created())
	assert.Equal(t, "0 bananas, 0 sub-branches", n.Coverage())
	for _, h := range []string{"## Sub-branches", "## Direct bananas", "## Cross trails", "## Landmarks"} {
		assert.Contains(t, n.Body, h)
	}

	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	log, err := repo.Log(ctx, "_index.md", 5, false)
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "init: forest 'Team knowledge' (empty A.5 skeleton)", log[0].Subject)
	files, err := repo.TrackedFiles()
	require.NoError(t, err)
	assert.Equal(t, []string{".gitignore", "_index.md", "_meta/schema.md"}, files)

	v := openT(t, dir, nil)
	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Errors, "%+v", rep.Findings)
	st, err := v.Catalog().Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Nodes)
}

func TestInitRefusesAndLeavesNothing(t *testing.T) {
	ctx := context.Background()
	existing, _ := testforest.Fixture(t)
	before := testforest.TreeDigest(t, existing)

	tests := []struct {
		name, dir, title, summary string
		code                      Code
	}{
		{"existing forest", existing, "Again", "", ESchema},
		{"empty title", filepath.Join(t.TempDir(), "a"), "  ", "", ESchema},
		{"multi-line title", filepath.Join(t.TempDir(), "b"), "a\nb", "", ESchema},
		{"summary over budget", filepath.Join(t.TempDir(), "c"), "T", strings.Repeat("word ", 60), EFrontmatter},
		{"forbidden opening", filepath.Join(t.TempDir(), "d"), "T", "This document describes things.", EFrontmatter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Init(ctx, tt.dir, tt.title, &InitOptions{Summary: tt.summary})
			require.Error(t, err)
			assert.Equal(t, tt.code, CodeOf(err), err.Error())
			if tt.dir != existing {
				assert.NoDirExists(t, tt.dir, "a refused init creates nothing")
			}
		})
	}
	assert.Equal(t, before, testforest.TreeDigest(t, existing))
}

// TestOpenBesideAnotherWriter: the writer lock is taken per write, so two
// writable Vines share a forest and each sees the other's writes; a lock
// held past LockWait answers E_LOCKED naming its holder.
func TestOpenBesideAnotherWriter(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, t.TempDir(), nil)
	assert.Equal(t, ENotFound, CodeOf(err))

	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{Now: plantClock})
	w := openT(t, dir, &Options{Now: plantClock, LockWait: 100 * time.Millisecond})
	_, err = v.Call(ctx, "plant", []byte(`{"node": {"id": "concepts/from-v", "type": "concept", "title": "From v",
		"summary": "Planted by the first writer.", "parent": "concepts/_index"}}`))
	require.NoError(t, err)
	_, err = w.Call(ctx, "graft", []byte(`{"id": "concepts/from-v", "patch": {"append_section": {"header": "By w", "body": "Second writer."}}}`))
	require.NoError(t, err, "the second writer sees the first one's node at once")
	hits, err := v.Locate(ctx, "from v", LocateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, hits.Results)

	held, err := forest.AcquireLock(dir)
	require.NoError(t, err)
	start := time.Now()
	_, err = w.Call(ctx, "graft", []byte(`{"id": "concepts/from-v", "patch": {"append_section": {"header": "Late", "body": "x"}}}`))
	assert.Equal(t, ELocked, CodeOf(err), "a lock held past LockWait")
	assert.Contains(t, err.Error(), fmt.Sprintf("pid %d", os.Getpid()), "E_LOCKED names the holder")
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "it waited first")
	_, err = Open(ctx, dir, &Options{LockWait: -1})
	assert.Equal(t, ELocked, CodeOf(err), "a writable open repairs under the lock, so it waits too")
	ro := openT(t, dir, &Options{ReadOnly: true})
	assert.True(t, ro.ReadOnly())
	_, err = ro.Locate(ctx, "from v", LocateOptions{})
	assert.NoError(t, err, "reads never wait for the lock")
	require.NoError(t, held.Release())
	require.NoError(t, v.Close())
	again := openT(t, dir, nil)
	assert.False(t, again.ReadOnly(), "the lock frees on Close")
}

func TestReindexSkipsUnreadableAndReportsProgress(t *testing.T) {
	ctx := context.Background()
	dir, man := testforest.Fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes-broken.md"), []byte("no frontmatter here\n"), 0o644))
	var seen []Progress
	v := openT(t, dir, &Options{SkipAutoIndex: true, Progress: func(p Progress) { seen = append(seen, p) }})
	res, err := v.Reindex(ctx)
	require.NoError(t, err)
	assert.Equal(t, len(man.Nodes), res.Nodes)
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, "notes-broken.md", res.Skipped[0].Path)
	require.NotEmpty(t, seen)
	last := seen[len(seen)-1]
	assert.Equal(t, "reindex", last.Op)
	assert.Equal(t, last.Total, last.Done)

	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Errors)
	assert.True(t, slices.ContainsFunc(rep.Findings, func(f Finding) bool {
		return f.NodeID == "notes-broken" && strings.Contains(f.Message, "unreadable")
	}))
}

func TestValidateFindsBrokenLinksDriftAndMissingPayloads(t *testing.T) {
	ctx := context.Background()
	dir, man := testforest.Fixture(t)
	appendTo := func(rel, text string) {
		f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(text)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	appendTo("concepts/tide.md", "\nSee [[concepts/nowhere]].\n")
	appendTo("finance/ledger-2026.db", "drift")
	require.NoError(t, os.Remove(filepath.Join(dir, "media", "_assets", "harbour-map.png")))

	v := openT(t, dir, &Options{ReadOnly: true})
	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	has := func(id, level, part string) bool {
		return slices.ContainsFunc(rep.Findings, func(f Finding) bool {
			return f.NodeID == id && f.Level == level && strings.Contains(f.Message, part)
		})
	}
	assert.True(t, has("concepts/tide", "warning", "concepts/nowhere"), "%+v", rep.Findings)
	assert.True(t, has(man.Dataset, "warning", "payload_hash drift"), "%+v", rep.Findings)
	assert.True(t, has(man.Media, "error", "payload missing"), "%+v", rep.Findings)
	assert.True(t, has("concepts/tide", "error", "changed since the last commit"), "a hand edit no commit holds")
	assert.Equal(t, 2, rep.Errors)
}
