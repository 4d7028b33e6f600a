// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanMerge: the per-path three-way merge between a forest and a
// clone of it, over the in-process file:// transport. "ours" is the clone,
// "theirs" what it fetches from the origin.
func TestPlanMerge(t *testing.T) {
	cases := []struct {
		name         string
		theirs, ours map[string]string // path -> content ("" removes)
		prefer       Prefer
		kind         MergeKind
		changes      []string // paths the pull writes or removes here
		conflicts    []string
		settled      []string
	}{
		{name: "nothing new", kind: UpToDate},
		{name: "only theirs wrote", theirs: map[string]string{"a.md": "A2", "n/new.md": "N"},
			kind: FastForward, changes: []string{"a.md", "n/new.md"}},
		{name: "only ours wrote", ours: map[string]string{"a.md": "A2"}, kind: Ahead},
		{name: "different nodes", theirs: map[string]string{"a.md": "A2", "c.md": ""}, ours: map[string]string{"b.md": "B2"},
			kind: Merge, changes: []string{"a.md", "c.md"}},
		{name: "same change on both sides", theirs: map[string]string{"a.md": "A2"}, ours: map[string]string{"a.md": "A2", "b.md": "B2"},
			kind: Merge},
		{name: "conflict", theirs: map[string]string{"a.md": "A-theirs", "b.md": "B2"}, ours: map[string]string{"a.md": "A-ours"},
			kind: Merge, changes: []string{"b.md"}, conflicts: []string{"a.md"}}, // an unsettled path keeps ours
		{name: "removed there, changed here", theirs: map[string]string{"c.md": ""}, ours: map[string]string{"c.md": "C2"},
			kind: Merge, conflicts: []string{"c.md"}},
		{name: "prefer theirs", theirs: map[string]string{"a.md": "A-theirs"}, ours: map[string]string{"a.md": "A-ours"},
			prefer: PreferTheirs, kind: Merge, changes: []string{"a.md"}, settled: []string{"a.md"}},
		{name: "prefer ours", theirs: map[string]string{"a.md": "A-theirs"}, ours: map[string]string{"a.md": "A-ours"},
			prefer: PreferOurs, kind: Merge, settled: []string{"a.md"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			origin, o := newForest(t)
			for _, p := range []string{"a.md", "b.md", "c.md"} {
				writeFile(t, origin, p, p+" base")
			}
			_, err := o.Commit(ctx, Message{Subject: "base"}, []string{"a.md", "b.md", "c.md"}, nil, at(1))
			require.NoError(t, err)
			clone := filepath.Join(t.TempDir(), "clone")
			r, err := Clone(ctx, "file://"+origin, clone, RemoteOptions{})
			require.NoError(t, err)
			commitAll(t, origin, o, c.theirs)
			commitAll(t, clone, r, c.ours)

			f, err := r.Fetch(ctx, RemoteOptions{})
			require.NoError(t, err)
			p, err := r.PlanMerge(f.Commit, c.prefer, nil)
			require.NoError(t, err)
			assert.Equal(t, c.kind, p.Kind)
			assert.Equal(t, c.conflicts, p.Conflicts)
			assert.Equal(t, c.settled, p.Settled)
			var paths []string
			for _, ch := range p.Changes {
				paths = append(paths, ch.Path)
			}
			assert.Equal(t, c.changes, paths)
		})
	}
}

// commitAll writes (or removes) files and commits them, if any.
func commitAll(t *testing.T, dir string, r *Repo, files map[string]string) {
	t.Helper()
	var add, rm []string
	for p, content := range files {
		if content == "" {
			require.NoError(t, os.Remove(filepath.Join(dir, p)))
			rm = append(rm, p)
			continue
		}
		writeFile(t, dir, p, content)
		add = append(add, p)
	}
	if len(add)+len(rm) == 0 {
		return
	}
	_, err := r.Commit(context.Background(), Message{Subject: "change"}, add, rm, at(2))
	require.NoError(t, err)
}

// TestCheckURL: what a remote URL may be.
func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"file:///srv/forest.git", true},
		{"https://git.example.org/f.git", true},
		{"ssh://git@git.example.org/f.git", true},
		{"git@git.example.org:f.git", true},
		{"https://me:secret@git.example.org/f.git", false},
		{"", false},
		{"git://git.example.org/f.git", false},
	} {
		err := CheckURL(c.url)
		assert.Equal(t, c.ok, err == nil, "%q: %v", c.url, err)
	}
}

// TestGitBinaryAgreesWithAMerge: after a merge lands, git reads the merge
// commit (both parents, the merged tree), finds the repository sound and
// the worktree clean against the rebuilt index. Skips without git.
func TestGitBinaryAgreesWithAMerge(t *testing.T) {
	ctx := context.Background()
	origin, o := newForest(t)
	writeFile(t, origin, "a.md", "a base")
	writeFile(t, origin, "b.md", "b base")
	_, err := o.Commit(ctx, Message{Subject: "base"}, []string{"a.md", "b.md"}, nil, at(1))
	require.NoError(t, err)
	clone := filepath.Join(t.TempDir(), "clone")
	r, err := Clone(ctx, "file://"+origin, clone, RemoteOptions{})
	require.NoError(t, err)
	commitAll(t, origin, o, map[string]string{"a.md": "a theirs", "n/new.md": "new"})
	commitAll(t, clone, r, map[string]string{"b.md": "b ours"})

	f, err := r.Fetch(ctx, RemoteOptions{})
	require.NoError(t, err)
	p, err := r.PlanMerge(f.Commit, PreferNone, nil)
	require.NoError(t, err)
	require.Equal(t, Merge, p.Kind)
	for _, c := range p.Changes {
		data, err := r.Blob(c.Hash)
		require.NoError(t, err)
		writeFile(t, clone, c.Path, string(data))
	}
	head, err := r.FinishMerge(ctx, p, Message{Subject: "pull(origin): merge origin/main"}, at(3))
	require.NoError(t, err)

	assert.Equal(t, []string{head}, lines(gitCmd(t, clone, "rev-parse", "HEAD")))
	parents := lines(gitCmd(t, clone, "log", "-1", "--format=%P"))
	assert.Equal(t, []string{p.Ours + " " + p.Theirs}, parents)
	gitCmd(t, clone, "fsck", "--strict")
	assert.Empty(t, lines(gitCmd(t, clone, "status", "--porcelain")), "the index matches the worktree")
	assert.Equal(t, []string{"a theirs"}, lines(gitCmd(t, clone, "show", "HEAD:a.md")))
	assert.Equal(t, []string{"b ours"}, lines(gitCmd(t, clone, "show", "HEAD:b.md")))

	// The next commit builds on the merge.
	commitAll(t, clone, r, map[string]string{"b.md": "b later"})
	assert.Equal(t, []string{head}, lines(gitCmd(t, clone, "log", "-1", "--format=%P")))
}
