// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walkIDs collects every id Walk reports.
func walkIDs(t *testing.T, r Root) ([]string, []SkippedFile) {
	t.Helper()
	var ids []string
	skipped, err := r.Walk(func(id, path string) error {
		got, err := r.IDOf(path)
		if err == nil && !isSymlinked(path) {
			assert.Equal(t, id, got, "path and id agree")
		}
		ids = append(ids, id)
		return nil
	})
	require.NoError(t, err)
	return ids, skipped
}

func isSymlinked(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	return err != nil || real != path
}

func TestWalkFixture(t *testing.T) {
	r, err := NewRoot(unpackFixtureForest(t))
	require.NoError(t, err)
	ids, skipped := walkIDs(t, r)
	assert.Empty(t, skipped)
	assert.Len(t, ids, 82, "the reference reindexes 82 nodes")
	assert.Contains(t, ids, "_meta/schema")
	assert.Contains(t, ids, "projects/mixerllm/_index")
	assert.NotContains(t, ids, "sales/report-q1-2026.db")
	branches := 0
	for _, id := range ids {
		if IsIndex(id) {
			branches++
		}
	}
	assert.Equal(t, 12, branches)

	again, _ := walkIDs(t, r)
	assert.Equal(t, ids, again, "walk order is deterministic")
}

func TestWalkSkipsAndReports(t *testing.T) {
	r, _ := escapeForest(t)
	write := func(rel string) {
		p := filepath.Join(r.Dir(), filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	for _, rel := range []string{
		"b.md", "a.md", "notes/z.md", "notes/readme.txt",
		"_derived/bodies/x.md", "deep/_assets/orig.md", "deep/.git/x.md", "deep/_derived/y.md",
		"deep/leaf.md", "_meta/schema.md", "notes/.md",
	} {
		write(rel)
	}
	symlink(t, r.Dir(), filepath.Join(r.Dir(), "deep", "loop"))
	symlink(t, filepath.Join(r.Dir(), "..", "outside", "secret.md"), filepath.Join(r.Dir(), "big.db"))
	symlink(t, filepath.Join(r.Dir(), "nowhere"), filepath.Join(r.Dir(), "gone"))

	ids, skipped := walkIDs(t, r)
	assert.Equal(t, []string{
		"_index", "_meta/schema", "a", "alias/a", "alias/z", "b", "deep/leaf", "notes/a", "notes/z",
	}, ids)
	assert.ElementsMatch(t, []SkippedFile{
		{Path: "alias/.md", Reason: SkipBadID},
		{Path: "alias/dangling.md", Reason: SkipSymlinkBroken},
		{Path: "alias/leak.md", Reason: SkipSymlinkEscape},
		{Path: "cache", Reason: SkipSymlinkExcluded},
		{Path: "deep/loop", Reason: SkipSymlinkCycle},
		{Path: "notes/.md", Reason: SkipBadID},
		{Path: "notes/dangling.md", Reason: SkipSymlinkBroken},
		{Path: "notes/leak.md", Reason: SkipSymlinkEscape},
		{Path: "out", Reason: SkipSymlinkEscape},
	}, skipped)
	assert.True(t, slices.IsSorted(ids), "sorted order")
}

func TestWalkStopsOnCallbackError(t *testing.T) {
	r, _ := escapeForest(t)
	stop := errors.New("stop")
	n := 0
	_, err := r.Walk(func(id, path string) error {
		n++
		return stop
	})
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, n)
}

func TestWalkUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	r, _ := escapeForest(t)
	locked := filepath.Join(r.Dir(), "locked")
	require.NoError(t, os.MkdirAll(locked, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(locked, "x.md"), nil, 0o644))
	require.NoError(t, os.Chmod(locked, 0))
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	_, skipped := walkIDs(t, r)
	assert.Contains(t, skipped, SkippedFile{Path: "locked", Reason: SkipUnreadableDir})
}
