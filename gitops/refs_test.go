// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefFilesReadAsGoGit: refFiles answers every reference as go-git's
// storage does, whether it reads the file itself (a loose ref, detached
// HEAD, a ref file with odd white space) or leaves it to go-git (a packed
// ref, an empty file, a symlink, a name that is not a plain ref path, a
// missing ref).
func TestRefFilesReadAsGoGit(t *testing.T) {
	dir, r := newForest(t)
	git := filepath.Join(dir, ".git")
	head, err := r.Head()
	require.NoError(t, err)
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(git, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("refs/heads/spaced", "  "+head+" \r\n")
	write("refs/heads/empty", "")
	write("refs/tags/sym", "ref: refs/heads/main\n")
	write("packed-refs", "# pack-refs with: peeled fully-peeled sorted\n"+head+" refs/heads/packed\n")
	require.NoError(t, os.Symlink(filepath.Join(git, "refs", "heads", "main"), filepath.Join(git, "refs", "heads", "linked")))

	names := []plumbing.ReferenceName{
		plumbing.HEAD, "refs/heads/main", "refs/heads/spaced", "refs/heads/empty", "refs/tags/sym",
		"refs/heads/packed", "refs/heads/linked", "refs/heads/missing", "refs/heads/../../HEAD",
		"refs/heads/.hidden", "refs//heads/main",
	}
	check := func(label string) {
		t.Helper()
		fast := r.refFiles(r.st)
		require.NotEmpty(t, fast.dir, "the forest's git directory holds its own refs")
		for _, name := range names {
			want, wantErr := r.st.Reference(name)
			got, gotErr := fast.Reference(name)
			if wantErr != nil {
				assert.Error(t, gotErr, "%s: %s", label, name)
				continue
			}
			require.NoError(t, gotErr, "%s: %s", label, name)
			assert.Equal(t, want.Strings(), got.Strings(), "%s: %s", label, name)
			assert.Equal(t, want.Type(), got.Type(), "%s: %s", label, name)
		}
	}
	check("on a branch")
	write("HEAD", head+"\n")
	check("detached")
	write("HEAD", "ref: refs/heads/spaced\n")
	check("on a branch with white space")
	_, h, err := headTarget(r.refFiles(r.st))
	require.NoError(t, err)
	assert.Equal(t, head, h.String())
}

// BenchmarkHeadTarget resolves HEAD to its branch and commit, through
// go-git's storage and through refFiles.
func BenchmarkHeadTarget(b *testing.B) {
	_, r := newForest(b)
	for _, c := range []struct {
		name string
		st   refReader
	}{{"go-git", r.st}, {"files", r.refFiles(r.st)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := headTarget(c.st); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
