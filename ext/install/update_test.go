// SPDX-License-Identifier: Apache-2.0

package install_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext/install"
)

// TestUpdateFollowsAMovedTag is F.189 and F.192: a tag is recorded as
// its sha; when the tag moves, outdated says so and update installs the
// new sha, reporting the previous one; an update whose new code fails
// the kit leaves the previous install running and unmodified.
func TestUpdateFollowsAMovedTag(t *testing.T) {
	f := newForge(t)
	ada := f.newKey(t, "ada")
	tree := orgTree(t)
	dir, repo := gitRepo(t, tree)
	f.owners[dir] = "ada"
	tag(t, repo, "v0.1.0", ada)
	first := headOf(t, repo)
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	ctx := context.Background()
	res, err := home.Install(ctx, dir+"@v0.1.0", trusted(f))
	require.NoError(t, err)
	assert.Equal(t, first, res.Revision, "the record holds the sha the tag named")

	stale, err := home.Outdated(ctx, f.trust())
	require.NoError(t, err)
	require.Len(t, stale, 1)
	assert.False(t, stale[0].Behind, "%+v", stale[0])

	require.NoError(t, os.WriteFile(filepath.Join(tree, "NOTES"), []byte("moved"), 0o644))
	commitTree(t, repo, dir, tree, "second")
	tag(t, repo, "v0.1.0", ada)
	second := headOf(t, repo)
	stale, err = home.Outdated(ctx, f.trust())
	require.NoError(t, err)
	assert.True(t, stale[0].Behind)
	assert.Equal(t, second, stale[0].Latest)
	assert.Equal(t, first, stale[0].Revision)
	rec, _ := home.Lookup("org")
	assert.Equal(t, first, rec.Revision, "outdated installs nothing")

	up, err := home.Update(ctx, "org", trusted(f))
	require.NoError(t, err)
	assert.Equal(t, second, up.Revision, "the moved tag's new sha")
	assert.Equal(t, first, up.PreviousRevision, "reported beside the previous one")
	assert.True(t, up.Changed)
	assert.Equal(t, install.TierSigned, up.Tier)

	again, err := home.Update(ctx, "org", trusted(f))
	require.NoError(t, err)
	assert.False(t, again.Changed, "nothing moved")

	// F.192: the tag moves to code the kit refuses.
	before, _ := home.Lookup("org")
	manifest, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tree, "manifest.json"), bytes.Replace(manifest, []byte(`">=0.1"`), []byte(`">=9.0"`), 1), 0o644))
	commitTree(t, repo, dir, tree, "third")
	tag(t, repo, "v0.1.0", ada)
	_, err = home.Update(ctx, "org", trusted(f))
	assert.Equal(t, "kit", reasonOf(err), "%v", err)
	after, _ := home.Lookup("org")
	assert.Equal(t, before, after, "the record is unmodified")
	assert.FileExists(t, filepath.Join(home.Tree(after), "main"), "the previous tree is in place")
	assert.FileExists(t, filepath.Join(home.Tree(after), "NOTES"))
	trees, _ := os.ReadDir(filepath.Join(home.Dir(), "org", "trees"))
	assert.Len(t, trees, 1, "nothing of the failed update was staged")

	_, err = home.Update(ctx, "nothing", trusted(f))
	assert.Error(t, err)
}

func headOf(t *testing.T, repo *git.Repository) string {
	t.Helper()
	h, err := repo.Head()
	require.NoError(t, err)
	return h.Hash().String()
}

// TestBranchIsTracked is F.193: a branch resolves to its sha, recorded
// as tracking and unverified; listing needs neither the network nor
// the source; outdated and update follow the branch's new head.
func TestBranchIsTracked(t *testing.T) {
	tree := orgTree(t)
	dir, repo := gitRepo(t, tree)
	head, err := repo.Head()
	require.NoError(t, err)
	branch := head.Name().Short()
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	ctx := context.Background()
	opt := kitOptions()
	_, err = home.Install(ctx, dir+"#"+branch, opt)
	assert.Equal(t, "unverified", reasonOf(err), "a moving ref is unverified by construction")
	opt.Acknowledge = true
	res, err := home.Install(ctx, dir+"#"+branch, opt)
	require.NoError(t, err)
	assert.Equal(t, head.Hash().String(), res.Revision)
	assert.Equal(t, branch, res.Tracking)
	assert.Equal(t, install.TierUnverified, res.Tier)

	require.NoError(t, os.WriteFile(filepath.Join(tree, "NOTES"), []byte("new"), 0o644))
	commitTree(t, repo, dir, tree, "second")
	stale, err := home.Outdated(ctx, install.Trust{})
	require.NoError(t, err)
	require.Len(t, stale, 1)
	assert.True(t, stale[0].Behind)
	assert.Equal(t, branch, stale[0].Tracking)
	_, err = home.Update(ctx, "org", kitOptions())
	assert.Equal(t, "unverified", reasonOf(err), "new unverified code needs a person's word again")
	up, err := home.Update(ctx, "org", opt)
	require.NoError(t, err)
	assert.Equal(t, headOf(t, repo), up.Revision)

	// Offline: the source is gone, and the listing does not notice.
	require.NoError(t, os.RemoveAll(dir))
	list, err := home.List()
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, branch, list[0].Tracking)
	stale, err = home.Outdated(ctx, install.Trust{})
	require.NoError(t, err, "an unreachable source is reported on its line")
	assert.NotEmpty(t, stale[0].Error)
	assert.False(t, stale[0].Behind)
}

// TestRefusalStagesNothing is F.174: whatever refuses an install, the
// home is as it was: no record, no tree, no settings.
func TestRefusalStagesNothing(t *testing.T) {
	f := newForge(t)
	ada := f.newKey(t, "ada")
	tree := orgTree(t)
	signed, signedRepo := gitRepo(t, tree)
	f.owners[signed] = "ada"
	tag(t, signedRepo, "v1", ada)
	bobs, bobsRepo := gitRepo(t, tree)
	f.owners[bobs] = "bob"
	tag(t, bobsRepo, "v1", f.newKey(t, "bob"))
	broken := orgTree(t)
	require.NoError(t, os.Remove(filepath.Join(broken, "LICENSE")))

	tests := []struct {
		name, first, source, reason string
	}{
		{"unverified", "", tree, "unverified"},
		{"kit", "", broken, "kit"},
		{"tier_downgrade", signed + "@v1", tree, "tier_downgrade"},
		{"identity_changed", signed + "@v1", bobs + "@v1", "identity_changed"},
		{"git", "", signed + "@v9", "git"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, err := install.Open(t.TempDir())
			require.NoError(t, err)
			if tc.first != "" {
				_, err := home.Install(context.Background(), tc.first, trusted(f))
				require.NoError(t, err)
			}
			before := snapshot(t, home.Dir())
			_, err = home.Install(context.Background(), tc.source, trusted(f))
			assert.Equal(t, tc.reason, reasonOf(err), "%v", err)
			assert.Equal(t, before, snapshot(t, home.Dir()), "the home is byte for byte as it was")
		})
	}
}

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	}))
	return out
}

// TestOversizeArchiveRefusedBeforeWriting is F.200: an archive over
// the ceiling, packed (fetched) or unpacked, is refused before any of
// it is written to the tree.
func TestOversizeArchiveRefusedBeforeWriting(t *testing.T) {
	install.SetMaxArchive(t, 1<<10)
	zipPath := writeZip(t, map[string][]byte{"x/manifest.json": []byte("{}"), "x/big": bytes.Repeat([]byte("a"), 4<<10)})
	data, err := os.ReadFile(zipPath)
	require.NoError(t, err)
	dest := filepath.Join(t.TempDir(), "tree")
	err = install.Unzip(bytes.NewReader(data), int64(len(data)), dest)
	assert.Equal(t, "too_large", reasonOf(err), "%v", err)
	assert.NoDirExists(t, dest, "nothing was written")

	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	opt := kitOptions()
	opt.Acknowledge = true
	_, err = home.Install(context.Background(), zipPath, opt)
	assert.Equal(t, "too_large", reasonOf(err))
	ids, _ := home.IDs()
	assert.Empty(t, ids)
}

// TestEscapingMemberRefusesTheWholeArchive is F.201: one member
// escaping the tree refuses the archive before any member is written,
// the good ones included.
func TestEscapingMemberRefusesTheWholeArchive(t *testing.T) {
	for _, evil := range []string{"../outside.txt", "/etc/evil", `dir\evil`, "a/../../evil", "C:/evil"} {
		t.Run(evil, func(t *testing.T) {
			zipPath := writeZip(t, map[string][]byte{"aaa-first.txt": []byte("good"), evil: []byte("x"), "zzz-last.txt": []byte("good")})
			data, err := os.ReadFile(zipPath)
			require.NoError(t, err)
			base := t.TempDir()
			dest := filepath.Join(base, "tree")
			err = install.Unzip(bytes.NewReader(data), int64(len(data)), dest)
			assert.Equal(t, "archive", reasonOf(err), "%v", err)
			assert.True(t, strings.Contains(err.Error(), "whole archive"), err.Error())
			entries, _ := os.ReadDir(base)
			assert.Empty(t, entries, "not even the good members were written")
		})
	}
}
