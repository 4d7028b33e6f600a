// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTreesSplicedAcrossCommits: commits that add, change and remove
// files in large folders (whose trees are spliced, tree.go), in folders
// nested in them, in folders that empty and come back, and in batches
// past maxDirty, each leave HEAD with the tree a whole encoding of the
// index on disk gives; git fsck --strict (which checks the order of
// every tree's items) passes at the end and git status is clean.
func TestTreesSplicedAcrossCommits(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 26))
	// Names that sort around a directory's implicit '/': "x-y.md" < "x.md"
	// < "x/" < "x0.md".
	dirs := []string{"big/", "big/x/", "big/x/deep/", "big/y/", "big/x0/", "small/", ""}
	names := []string{"x-y.md", "x.md", "x0.md", "y.md", "z.md"}
	live := map[string]int{} // path -> version
	pick := func() string {
		d := dirs[rng.IntN(len(dirs))]
		if rng.IntN(4) == 0 {
			return d + names[rng.IntN(len(names))]
		}
		return fmt.Sprintf("%spage-%03d.md", d, rng.IntN(200))
	}
	var add []string
	for i := range 150 {
		p := fmt.Sprintf("big/page-%03d.md", i)
		live[p] = 1
		add = append(add, p)
	}
	for i := range 80 {
		p := fmt.Sprintf("big/x/page-%03d.md", i)
		live[p] = 1
		add = append(add, p)
	}
	for _, p := range add {
		writeFile(t, dir, p, node(p, ""))
	}
	_, err := r.Commit(ctx, Message{Subject: PlantBatchSubject(len(add))}, add, nil, at(1))
	require.NoError(t, err)
	remove := func(p string, rm []string) []string {
		delete(live, p)
		require.NoError(t, os.Remove(filepath.Join(dir, filepath.FromSlash(p))))
		return append(rm, p)
	}
	for step := range 160 {
		var add, rm []string
		ops := 1 + rng.IntN(3)
		switch {
		case step%40 == 39:
			ops = maxDirty + 10 // a batch past what a kept encoding may owe
		case step == 100:
			// Empty big/x/deep/ and big/y/ so they vanish from big/.
			for p := range live {
				if strings.HasPrefix(p, "big/x/deep/") || strings.HasPrefix(p, "big/y/") {
					rm = remove(p, rm)
				}
			}
		}
		for range ops {
			p := pick()
			if _, ok := live[p]; ok && rng.IntN(3) == 0 {
				rm = remove(p, rm)
				continue
			}
			live[p]++
			writeFile(t, dir, p, node(p, fmt.Sprintf("version: %d\n", live[p])))
			add = append(add, p)
		}
		// A path written then removed in one step is only removed, and
		// the other way round only written.
		add = slices.DeleteFunc(add, func(p string) bool { _, ok := live[p]; return !ok })
		rm = slices.DeleteFunc(rm, func(p string) bool { _, ok := live[p]; return ok })
		if len(add)+len(rm) == 0 {
			continue
		}
		_, err := r.Commit(ctx, Message{Subject: fmt.Sprintf("graft(step-%d): test", step)}, add, rm, at(step+2))
		require.NoError(t, err, "step %d", step)
		require.Equal(t, wholeTree(t, r), goGitHead(t, dir).TreeHash, "step %d: spliced tree differs from a whole encoding", step)
	}
	require.NotNil(t, r.cache)
	assert.Contains(t, r.cache.encs, "big/", "the large folder's tree was kept for splicing")
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"))
}

// wholeTree is the root tree of the index file on disk, read by go-git
// and encoded whole, with no tree or encoding remembered.
func wholeTree(t *testing.T, r *Repo) plumbing.Hash {
	t.Helper()
	idx, err := r.st.Index()
	require.NoError(t, err)
	sortEntries(idx)
	h, err := r.writeTree(&indexCache{idx: idx, trees: map[string]plumbing.Hash{}})
	require.NoError(t, err)
	r.batch = r.batch[:0]
	return h
}
