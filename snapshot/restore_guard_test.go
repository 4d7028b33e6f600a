// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// commitOddEntry commits, on top of dir's HEAD, a root tree entry of the
// given mode: a symlink whose blob is target, or a submodule naming HEAD.
// It writes git objects only, so no symlink ever exists on this disk.
func commitOddEntry(t *testing.T, dir, name string, mode filemode.FileMode, target string) {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	head, err := repo.Head()
	require.NoError(t, err)
	commit, err := repo.CommitObject(head.Hash())
	require.NoError(t, err)
	tree, err := commit.Tree()
	require.NoError(t, err)
	hash := head.Hash()
	if mode != filemode.Submodule {
		hash = storeObject(t, repo, plumbing.BlobObject, func(o plumbing.EncodedObject) error {
			w, err := o.Writer()
			if err == nil {
				_, err = w.Write([]byte(target))
				w.Close()
			}
			return err
		})
	}
	entries := append(slices.Clone(tree.Entries), object.TreeEntry{Name: name, Mode: mode, Hash: hash})
	slices.SortFunc(entries, func(a, b object.TreeEntry) int { return strings.Compare(gitSortKey(a), gitSortKey(b)) })
	treeHash := storeObject(t, repo, plumbing.TreeObject, (&object.Tree{Entries: entries}).Encode)
	sig := object.Signature{Name: "t", Email: "t@example.org", When: stamp()}
	next := &object.Commit{Author: sig, Committer: sig, Message: "odd entry", TreeHash: treeHash,
		ParentHashes: []plumbing.Hash{head.Hash()}}
	require.NoError(t, repo.Storer.SetReference(plumbing.NewHashReference(head.Name(),
		storeObject(t, repo, plumbing.CommitObject, next.Encode))))
}

// gitSortKey orders tree entries as git does: a folder as if its name
// ended in "/".
func gitSortKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

func storeObject(t *testing.T, repo *git.Repository, typ plumbing.ObjectType, fill func(plumbing.EncodedObject) error) plumbing.Hash {
	t.Helper()
	o := repo.Storer.NewEncodedObject()
	o.SetType(typ)
	require.NoError(t, fill(o))
	h, err := repo.Storer.SetEncodedObject(o)
	require.NoError(t, err)
	return h
}

// TestRestoreRefusesOddTreeEntries: a bundle whose tree holds a symlink
// (leaving the forest or not) or a submodule is refused before checkout,
// and nothing is left where the forest would have gone.
func TestRestoreRefusesOddTreeEntries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, entry, target string
		mode                filemode.FileMode
		want                string
	}{
		{"symlink to an absolute path", "evil.md", "/etc/passwd", filemode.Symlink, "symlink at evil.md"},
		{"symlink leaving the forest", "evil", "../../outside", filemode.Symlink, "symlink at evil"},
		{"symlink to a node of the forest", "alias.md", "people/lucia-andrade.md", filemode.Symlink, "symlink at alias.md"},
		{"submodule", "vendor", "", filemode.Submodule, "submodule at vendor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, _ := testforest.Fixture(t)
			commitOddEntry(t, src, tt.entry, tt.mode, tt.target)
			archive := create(t, src, CreateOptions{NoPayloads: true}).File
			parent := t.TempDir()
			_, err := Restore(context.Background(), archive, filepath.Join(parent, "new", "mare-alta"), RestoreOptions{})
			e := refusal(t, err, envelope.Schema)
			assert.Contains(t, e.Message, tt.want)
			assert.Contains(t, e.Hint, "plain files only")
			assert.Empty(t, entries(t, parent), "nothing left behind")
		})
	}
}

// TestRestoreRefusesANestedTarget: a target inside an existing forest,
// written plainly or reached through a symlink, is refused before
// anything is written, and that forest stays byte-identical.
func TestRestoreRefusesANestedTarget(t *testing.T) {
	t.Parallel()
	src, _ := testforest.Fixture(t)
	archive := create(t, src, CreateOptions{NoPayloads: true}).File
	host, _ := testforest.Fixture(t)
	require.NoError(t, os.Mkdir(filepath.Join(host, "people", "empty"), 0o755))
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(filepath.Join(host, "people"), link))
	tests := []struct {
		name, target, want string
	}{
		{"a new folder in a branch", filepath.Join(host, "people", "copy"), "people/copy is inside the forest mare-alta"},
		{"missing parents", filepath.Join(host, "a", "b", "copy"), "a/b/copy"},
		{"an empty folder of the forest", filepath.Join(host, "people", "empty"), "people/empty"},
		{"inside the derived layer", filepath.Join(host, "_derived", "copy"), "_derived/copy"},
		{"through a symlink", filepath.Join(link, "copy"), "is inside the forest mare-alta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testforest.Unchanged(t, host, func() {
				_, err := Restore(context.Background(), archive, tt.target, RestoreOptions{})
				e := refusal(t, err, envelope.Schema)
				assert.Contains(t, e.Message, tt.want)
				assert.NotContains(t, e.Message, host, "no machine path")
				assert.NotContains(t, e.Message, link, "no machine path")
			})
		})
	}
}

func TestIsForestRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files []string // "x/" makes a folder
		want  bool
	}{
		{"empty", nil, false},
		{"a stray master index", []string{"_index.md"}, false},
		{"index and dialect", []string{"_index.md", "_meta/", "_meta/schema.md"}, true},
		{"index and repository", []string{"_index.md", ".git/"}, true},
		{"a folder named _index.md", []string{"_index.md/", ".git/"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(dir, f)
				if strings.HasSuffix(f, "/") {
					require.NoError(t, os.MkdirAll(p, 0o755))
					continue
				}
				require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
			}
			assert.Equal(t, tt.want, isForestRoot(dir))
		})
	}
}

// TestLongHostFoldersAreRefusals: a restore target or an output folder no
// file system can create is E_SCHEMA naming the limit, not E_INTERNAL,
// and nothing is created.
func TestLongHostFoldersAreRefusals(t *testing.T) {
	t.Parallel()
	src, _ := testforest.Fixture(t)
	archive := create(t, src, CreateOptions{NoPayloads: true}).File
	long := strings.Repeat("a", 300)
	parent := t.TempDir()

	_, err := Restore(context.Background(), archive, filepath.Join(parent, long, "forest"), RestoreOptions{})
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "restore target has a folder name of 300 bytes, over the limit of 255")

	_, err = Create(context.Background(), src, CreateOptions{OutDir: filepath.Join(parent, long), Now: stamp})
	e = refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "output directory has a folder name of 300 bytes")
	assert.Empty(t, entries(t, parent), "nothing created")
}
