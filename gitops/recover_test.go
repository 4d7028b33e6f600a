// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFinishInterruptedIndex kills a commit, in effect, at each point
// where it leaves index.lock: the repair must leave the index of the
// commit HEAD names, whichever of the two files holds it.
func TestFinishInterruptedIndex(t *testing.T) {
	tests := []struct {
		name      string
		landed    bool
		lockHolds string // which index index.lock holds: "old" or "new"
		wantIndex string // which index the repair leaves
		wantDone  string
	}{
		{"died before the branch moved", false, "new", "old", "removed the orphaned index.lock"},
		{"died after the branch moved, before the swap", true, "new", "new", "completed the index of the landed commit"},
		{"died after the swap, before the old index was removed", true, "old", "new", "removed the orphaned index.lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, r := newForest(t)
			ctx := context.Background()
			writeFile(t, dir, "a.md", "a\n")
			_, err := r.Commit(ctx, Message{Subject: "a"}, []string{"a.md"}, nil, at(1))
			require.NoError(t, err)
			old := snap(t, dir, r)
			writeFile(t, dir, "b.md", "b\n")
			_, err = r.Commit(ctx, Message{Subject: "b"}, []string{"b.md"}, nil, at(2))
			require.NoError(t, err)
			next := snap(t, dir, r)
			if !tt.landed {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".git/refs/heads", DefaultBranch), []byte(old.head+"\n"), 0o644))
			}
			index := map[string][]byte{"old": old.index, "new": next.index}
			other := map[string]string{"old": "new", "new": "old"}
			gitDir := filepath.Join(dir, ".git")
			require.NoError(t, os.WriteFile(filepath.Join(gitDir, "index"), index[other[tt.lockHolds]], 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(gitDir, "index.lock"), index[tt.lockHolds], 0o644))

			done, err := r.FinishInterrupted(time.Now().Add(-time.Minute), tt.landed)
			require.NoError(t, err)
			assert.Equal(t, []string{tt.wantDone}, done)
			assert.NoFileExists(t, filepath.Join(gitDir, "index.lock"))
			got, err := os.ReadFile(filepath.Join(gitDir, "index"))
			require.NoError(t, err)
			assert.Equal(t, index[tt.wantIndex], got)
			held, err := r.indexHolds(headOf(t, r))
			require.NoError(t, err)
			assert.True(t, held, "the index describes HEAD's tree")

			// The next commit builds on that index: nothing of HEAD is lost.
			writeFile(t, dir, "c.md", "c\n")
			_, err = r.Commit(ctx, Message{Subject: "c"}, []string{"c.md"}, nil, at(3))
			require.NoError(t, err)
			want := []string{".gitignore", "_index.md", "_meta/schema.md", "a.md", "b.md", "c.md"}
			if !tt.landed {
				want = []string{".gitignore", "_index.md", "_meta/schema.md", "a.md", "c.md"}
			}
			assert.Equal(t, want, headFiles(t, r))
		})
	}
}

// TestIndexIsSwappedIntoPlace: a commit leaves no index.lock, the index
// git reads is the one this Repo wrote, and git agrees the tree is clean.
func TestIndexIsSwappedIntoPlace(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	for i, name := range []string{"a.md", "b.md"} {
		writeFile(t, dir, name, name+"\n")
		_, err := r.Commit(ctx, Message{Subject: name}, []string{name}, nil, at(i+1))
		require.NoError(t, err)
		assert.NoFileExists(t, filepath.Join(dir, ".git", "index.lock"))
		held, err := r.indexHolds(headOf(t, r))
		require.NoError(t, err)
		assert.True(t, held)
	}
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"))
}

// headOf is HEAD's commit.
func headOf(t *testing.T, r *Repo) plumbing.Hash {
	t.Helper()
	h, err := headHash(r.refFiles(r.st))
	require.NoError(t, err)
	return h
}
