// SPDX-License-Identifier: Apache-2.0

package recovery

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
	"github.com/monkeyllm/vine/internal/journal"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestUndoPutsTheForestBackAsHeadHasIt: a write that died before its
// commit is undone file by file, its new payload, folder and temporary
// files removed, and the intent log discarded.
func TestUndoPutsTheForestBackAsHeadHasIt(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	root, err := forest.NewRoot(dir)
	require.NoError(t, err)
	head, err := repo.Head()
	require.NoError(t, err)
	tide := filepath.Join(dir, "concepts", "tide.md")
	want, err := os.ReadFile(tide)
	require.NoError(t, err)

	j := journal.New(repo.GitDir())
	require.NoError(t, j.Begin("graft", head))
	require.NoError(t, j.Note(journal.Record{Kind: journal.Put, Path: "concepts/tide.md"}))
	require.NoError(t, os.WriteFile(tide, []byte("half a write"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "concepts", ".vine-123.tmp"), nil, 0o644))
	require.NoError(t, j.Note(journal.Record{Kind: journal.Put, Path: "concepts/new.md"}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "concepts", "new.md"), []byte("a new node"), 0o644))
	require.NoError(t, j.Note(journal.Record{Kind: journal.Put, Path: "concepts/tide.md"}))
	require.NoError(t, j.Note(journal.Record{Kind: journal.Dir, Path: "fresh"}))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "fresh"), 0o755))
	require.NoError(t, j.Note(journal.Record{Kind: journal.Born, Path: "fresh/data.db"}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fresh", "data.db"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fresh", "data.db-wal"), []byte("x"), 0o644))
	require.NoError(t, j.Close())

	var synced [][]string
	complete := func(_ context.Context, written, removed []string) (int, int, error) {
		synced = append(synced, written, removed)
		return len(written), len(removed), nil
	}
	res, err := New(j, repo, root, complete, nil).Recover(ctx, false)
	require.NoError(t, err)
	require.NotNil(t, res)
	assert.Equal(t, "graft", res.Op)
	assert.False(t, res.Completed)
	assert.Equal(t, head, res.Head)
	got, err := os.ReadFile(tide)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.NoDirExists(t, filepath.Join(dir, "fresh"))
	assert.NoFileExists(t, filepath.Join(dir, "concepts", ".vine-123.tmp"))
	assert.NoFileExists(t, filepath.Join(dir, "concepts", "new.md"))
	assert.Len(t, res.Actions, 6, "%q", res.Actions)
	assert.Equal(t, [][]string{{"concepts/tide.md"}, {"concepts/new.md"}}, synced,
		"the catalog follows the node files put back and taken away, once each; payloads are not nodes")

	again, err := New(j, repo, root, complete, nil).Recover(ctx, false)
	require.NoError(t, err)
	assert.Nil(t, again, "the log is discarded once settled")
}

// TestNilRecovererHasNothingToRepair: a read-only forest has no journal.
func TestNilRecovererHasNothingToRepair(t *testing.T) {
	res, err := New(nil, nil, forest.Root{}, nil, nil).Recover(context.Background(), true)
	require.NoError(t, err)
	assert.Nil(t, res)
}

// TestCompletesAPullThatMovedHeadSeveralCommits: a pull fast-forwards
// HEAD by any number of commits, so a dead puller's log is settled as
// landed when HEAD descends from its base, not only when HEAD's parent is
// the base. A HEAD that does not descend from the base is refused.
func TestCompletesAPullThatMovedHeadSeveralCommits(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	root, err := forest.NewRoot(dir)
	require.NoError(t, err)
	base, err := repo.Head()
	require.NoError(t, err)
	tide := filepath.Join(dir, "concepts", "tide.md")
	orig, err := os.ReadFile(tide)
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, os.WriteFile(tide, append(orig, []byte(strings.Repeat("\nmore", i+1))...), 0o644))
		_, err := repo.Commit(ctx, gitops.Message{Subject: "graft(concepts/tide): test"}, []string{"concepts/tide.md"}, nil, gitops.Options{})
		require.NoError(t, err)
	}

	j := journal.New(repo.GitDir())
	require.NoError(t, j.Begin("pull", base))
	require.NoError(t, j.Note(journal.Record{Kind: journal.Put, Path: "concepts/tide.md"}))
	require.NoError(t, j.Close())
	var written []string
	complete := func(_ context.Context, w, _ []string) (int, int, error) {
		written = w
		return len(w), 0, nil
	}
	res, err := New(j, repo, root, complete, nil).Recover(ctx, false)
	require.NoError(t, err)
	require.NotNil(t, res)
	assert.True(t, res.Completed, "HEAD descends from the pull's base: the pull landed")
	assert.Equal(t, []string{"concepts/tide.md"}, written)

	// A log whose base HEAD does not descend from cannot be settled.
	head, err := repo.Head()
	require.NoError(t, err)
	require.NoError(t, j.Begin("pull", head))
	require.NoError(t, j.Close())
	require.NoError(t, os.WriteFile(filepath.Join(repo.GitDir(), "refs", "heads", "main"), []byte(base+"\n"), 0o644))
	_, err = New(j, repo, root, complete, nil).Recover(ctx, false)
	assert.Error(t, err, "HEAD moved to a commit that does not descend from the base")
}
