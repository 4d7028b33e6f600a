// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeIndexRoundTrip(t *testing.T) {
	when := time.Unix(1780000000, 123456789)
	long := strings.Repeat("d/", 2100) + "x.md" // longer than the 12-bit name length
	for _, tc := range []struct {
		name    string
		entries []*index.Entry
		version uint32
	}{
		{"plain", []*index.Entry{
			{Name: "a.md", Hash: plumbing.NewHash("0123456789abcdef0123456789abcdef01234567"), Mode: filemode.Regular,
				CreatedAt: when, ModifiedAt: when, Dev: 1, Inode: 2, UID: 3, GID: 4, Size: 5},
			{Name: "b/c.md", Mode: filemode.Executable, Size: 7},
			{Name: long, Mode: filemode.Symlink},
		}, 2},
		{"extended flags", []*index.Entry{
			{Name: "a.md", Mode: filemode.Regular, IntentToAdd: true},
			{Name: "b.md", Mode: filemode.Regular, SkipWorktree: true},
			{Name: "c.md", Mode: filemode.Regular},
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := &index.Index{Version: 2, Entries: tc.entries}
			got := &index.Index{}
			require.NoError(t, index.NewDecoder(bytes.NewReader(encodeIndex(idx))).Decode(got))
			assert.Equal(t, tc.version, got.Version)
			require.Len(t, got.Entries, len(tc.entries))
			for i, want := range tc.entries {
				e := got.Entries[i]
				assert.Equal(t, want.Name, e.Name)
				assert.Equal(t, want.Hash, e.Hash)
				assert.Equal(t, want.Mode, e.Mode)
				assert.Equal(t, want.Size, e.Size)
				assert.Equal(t, want.IntentToAdd, e.IntentToAdd)
				assert.Equal(t, want.SkipWorktree, e.SkipWorktree)
				assert.Equal(t, [4]uint32{want.Dev, want.Inode, want.UID, want.GID}, [4]uint32{e.Dev, e.Inode, e.UID, e.GID})
				if !want.ModifiedAt.IsZero() {
					assert.True(t, want.ModifiedAt.Equal(e.ModifiedAt))
					assert.True(t, want.CreatedAt.Equal(e.CreatedAt))
				}
			}
		})
	}
}

func TestCommitKeepsIntentToAddOutOfTheTree(t *testing.T) {
	dir, r := newForest(t)
	writeFile(t, dir, "later.md", "not yet\n")
	gitCmd(t, dir, "add", "-N", "later.md") // an index entry git marks intent-to-add (v3 index)
	writeFile(t, dir, "now.md", "now\n")
	_, err := r.Commit(context.Background(), Message{Subject: "s"}, []string{"now.md"}, nil, at(1))
	require.NoError(t, err)
	assert.NotContains(t, headFiles(t, r), "later.md")
	assert.Contains(t, headFiles(t, r), "now.md")
	assert.Equal(t, []string{".gitignore", "_index.md", "_meta/schema.md", "later.md", "now.md"}, lines(gitCmd(t, dir, "ls-files")))
	assert.Equal(t, " A later.md\n", gitCmd(t, dir, "status", "--porcelain"))
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
}

// TestIndexSplicedAcrossCommits follows one Repo through commits that add
// entries before, between and after others, change and remove them: each
// index file, whose unchanged entries are copied from the last one
// (indexCache.enc), must be the bytes a fresh encoding of it gives, and
// git must find the worktree clean.
func TestIndexSplicedAcrossCommits(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	steps := []struct {
		write  map[string]string
		remove []string
	}{
		{write: map[string]string{"m/b.md": "b\n", "m/d.md": "d\n"}},
		{write: map[string]string{"m/a.md": "a\n"}},                // before every entry of m
		{write: map[string]string{"m/c.md": "c\n", "z.md": "z\n"}}, // between, and last
		{write: map[string]string{"m/b.md": "b, changed\n"}},       // in place
		{remove: []string{"m/c.md"}, write: map[string]string{"m/e.md": "e\n"}},
		{remove: []string{"m/a.md", "z.md"}}, // the first and the last
		{write: map[string]string{"0.md": "first of all\n", "m/c.md": "c again\n"}},
	}
	for i, s := range steps {
		var add []string
		for p, body := range s.write {
			writeFile(t, dir, p, body)
			add = append(add, p)
		}
		for _, p := range s.remove {
			require.NoError(t, os.Remove(filepath.Join(dir, filepath.FromSlash(p))))
		}
		if i > 0 { // the commit splices into the index the last one left
			require.NotNil(t, r.cache, "step %d", i)
			require.NotNil(t, r.cache.enc, "step %d", i)
		}
		_, err := r.Commit(ctx, Message{Subject: fmt.Sprintf("step %d", i)}, add, s.remove, at(i))
		require.NoError(t, err, "step %d", i)

		raw, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		require.NoError(t, err)
		idx := &index.Index{}
		require.NoError(t, index.NewDecoder(bytes.NewReader(raw)).Decode(idx), "step %d", i)
		assert.Equal(t, encodeIndex(idx), raw, "step %d: the spliced index differs from a fresh encoding", i)
		assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"), "step %d", i)
	}
	assert.Equal(t, []string{".gitignore", "0.md", "_index.md", "_meta/schema.md", "m/b.md", "m/c.md", "m/d.md", "m/e.md"},
		lines(gitCmd(t, dir, "ls-files")))
	require.NotNil(t, r.cache)
	assert.Len(t, r.cache.enc, len(r.cache.idx.Entries))
}
