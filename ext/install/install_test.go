// SPDX-License-Identifier: Apache-2.0

package install_test

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/exttest"
)

// orgTree lays out the example Org-mode converter as an extension tree.
func orgTree(t *testing.T) string {
	return exttest.Tree(t, "github.com/monkeyllm/vine/examples/ext-org")
}

func kitOptions() install.Options {
	return install.Options{Kit: install.KitOptions{HostVersion: "0.9.0"}}
}

func reasonOf(err error) string {
	var e *envelope.Error
	if errors.As(err, &e) {
		r, _ := e.Get("reason")
		s, _ := r.(string)
		return s
	}
	return ""
}

func TestInstallFromADirectory(t *testing.T) {
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	tree := orgTree(t)
	ctx := context.Background()

	_, err = home.Install(ctx, tree, kitOptions())
	assert.Equal(t, "unverified", reasonOf(err), "an unverified install waits for acknowledgement: %v", err)
	list, _ := home.List()
	assert.Empty(t, list, "a refusal installs nothing")

	opt := kitOptions()
	opt.Acknowledge = true
	var stages []string
	opt.Progress = func(s string) { stages = append(stages, s) }
	res, err := home.Install(ctx, tree, opt)
	require.NoError(t, err)
	assert.Equal(t, []string{"resolve", "kit", "stage", "record"}, stages)
	assert.Equal(t, "org", res.ID)
	assert.Equal(t, install.TierUnverified, res.Tier)
	assert.Equal(t, "file", res.Kind)
	assert.True(t, res.Kit.OK)
	checks := map[string]bool{}
	for _, c := range res.Kit.Checks {
		checks[c.Check] = c.OK
	}
	for _, want := range []string{"manifest", "station_compat", "license", "license_file", "entry",
		"handler:converters:org", "signature:converters:org", "configurable_without_console"} {
		assert.True(t, checks[want], "kit check %s", want)
	}
	assert.FileExists(t, filepath.Join(home.Tree(res.Record), "main"))

	require.NoError(t, home.SetConfig("org", map[string]any{"keep_todo": true}))
	err = home.SetConfig("org", map[string]any{"colour": "red"})
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, envelope.Schema, e.Code)
	assert.Contains(t, e.Hint, "keep_todo", "the hint names the declared settings")
	assert.Error(t, home.SetConfig("org", map[string]any{"keep_todo": "yes"}), "a setting keeps its type")

	fi, err := os.Stat(filepath.Join(home.Dir(), "org", "config.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	now := time.Now()
	require.NoError(t, home.Remove("org", now))
	list, _ = home.List()
	assert.Empty(t, list)
	assert.NoDirExists(t, filepath.Join(home.Dir(), "org"))
	q, err := home.Quarantined(now)
	require.NoError(t, err)
	assert.Contains(t, q, "org")

	res, err = home.Install(ctx, tree, opt)
	require.NoError(t, err)
	assert.True(t, res.ConfigRecovered, "reinstalling the id recovers its settings")
	cfg, err := home.Config("org")
	require.NoError(t, err)
	assert.Equal(t, true, cfg["keep_todo"])
}

func TestKitFailureInstallsNothing(t *testing.T) {
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	good := orgTree(t)
	opt := kitOptions()
	opt.Acknowledge = true
	first, err := home.Install(context.Background(), good, opt)
	require.NoError(t, err)

	tests := []struct {
		name, from, to, failed string
	}{
		{"a claimed handler the executable lacks", `"handler": "org"}`, `"handler": "org"}, {"extensions": [".orgx"], "handler": "orgx"}`, "handler:converters:orgx"},
		{"a host range that excludes this host", `">=0.1"`, `">=1.0"`, "station_compat"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := orgTree(t)
			m, err := os.ReadFile(filepath.Join(bad, "manifest.json"))
			require.NoError(t, err)
			require.Contains(t, string(m), tc.from)
			require.NoError(t, os.WriteFile(filepath.Join(bad, "manifest.json"), []byte(strings.Replace(string(m), tc.from, tc.to, 1)), 0o644))
			_, err = home.Install(context.Background(), bad, opt)
			assert.Equal(t, "kit", reasonOf(err), "%v", err)
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			kit, _ := e.Get("kit")
			assert.Contains(t, kit.(*install.KitResult).Failed, tc.failed)
			rec, ok, err := home.Get("org")
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, first.Tree, rec.Tree, "a failed update leaves the previous install")
			assert.FileExists(t, filepath.Join(home.Tree(rec), "main"))
		})
	}
	_, err = home.Install(context.Background(), t.TempDir(), opt)
	assert.Equal(t, "kit", reasonOf(err), "a tree without a manifest")
}

func writeZip(t *testing.T, members map[string][]byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ext.zip")
	f, err := os.Create(p)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for name, data := range members {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return p
}

func TestInstallFromAnArchive(t *testing.T) {
	tree := orgTree(t)
	members := map[string][]byte{}
	for _, f := range []string{"manifest.json", "LICENSE", "main"} {
		data, err := os.ReadFile(filepath.Join(tree, f))
		require.NoError(t, err)
		members["org-0.1.0/"+f] = data
	}
	members["__MACOSX/._main"] = []byte("resource fork")
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	opt := kitOptions()
	opt.Acknowledge = true
	res, err := home.Install(context.Background(), writeZip(t, members), opt)
	require.NoError(t, err, "one top-level directory is unwrapped")
	assert.NoFileExists(t, filepath.Join(home.Tree(res.Record), "__MACOSX", "._main"))

	for _, evil := range []string{"../outside.txt", "/etc/evil", `dir\evil`, "a/../../evil"} {
		t.Run(evil, func(t *testing.T) {
			m := map[string][]byte{"org/manifest.json": members["org-0.1.0/manifest.json"], evil: []byte("x")}
			home, err := install.Open(t.TempDir())
			require.NoError(t, err)
			_, err = home.Install(context.Background(), writeZip(t, m), opt)
			assert.Equal(t, "archive", reasonOf(err), "%v", err)
			entries, _ := os.ReadDir(home.Dir())
			for _, e := range entries {
				assert.True(t, strings.HasPrefix(e.Name(), "."), "nothing but scratch space: %s", e.Name())
			}
			assert.NoFileExists(t, filepath.Join(filepath.Dir(home.Dir()), "outside.txt"))
		})
	}
}

// gitRepo makes a repository holding tree, committed, tagged tag
// (annotated, unsigned) when tag is set.
func gitRepo(t *testing.T, tree string) (string, *git.Repository) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	require.NoError(t, err)
	commitTree(t, repo, dir, tree, "first")
	return dir, repo
}

func commitTree(t *testing.T, repo *git.Repository, dir, tree, msg string) {
	t.Helper()
	entries, err := os.ReadDir(tree)
	require.NoError(t, err)
	wt, err := repo.Worktree()
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(tree, e.Name()))
		require.NoError(t, err)
		fi, _ := e.Info()
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, fi.Mode().Perm()))
		_, err = wt.Add(e.Name())
		require.NoError(t, err)
	}
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}
	_, err = wt.Commit(msg, &git.CommitOptions{Author: sig, AllowEmptyCommits: true})
	require.NoError(t, err)
}

func TestInstallFromGit(t *testing.T) {
	tree := orgTree(t)
	dir, repo := gitRepo(t, tree)
	head, err := repo.Head()
	require.NoError(t, err)
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}
	_, err = repo.CreateTag("v0.1.0", head.Hash(), &git.CreateTagOptions{Tagger: sig, Message: "v0.1.0"})
	require.NoError(t, err)

	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	opt := kitOptions()
	opt.Acknowledge = true
	res, err := home.Install(context.Background(), dir+"@v0.1.0", opt)
	require.NoError(t, err)
	assert.Equal(t, "git", res.Kind)
	assert.Equal(t, head.Hash().String(), res.Revision, "the record holds the sha, not the tag")
	assert.Empty(t, res.Tracking, "a tag is not a moving ref")
	assert.Equal(t, install.TierUnverified, res.Tier)
	assert.Contains(t, res.Reason, "not signed")

	// The tag is moved to a new commit: the new sha is what installs.
	require.NoError(t, os.WriteFile(filepath.Join(tree, "NOTES"), []byte("moved"), 0o644))
	commitTree(t, repo, dir, tree, "second")
	head2, err := repo.Head()
	require.NoError(t, err)
	require.NoError(t, repo.DeleteTag("v0.1.0"))
	_, err = repo.CreateTag("v0.1.0", head2.Hash(), &git.CreateTagOptions{Tagger: sig, Message: "v0.1.0 again"})
	require.NoError(t, err)
	res2, err := home.Install(context.Background(), dir+"@v0.1.0", opt)
	require.NoError(t, err)
	assert.Equal(t, head2.Hash().String(), res2.Revision)
	assert.True(t, res2.Updated)

	// A branch is a moving ref: tracked, unverified by construction.
	branch := head2.Name().Short()
	res3, err := home.Install(context.Background(), dir+"#"+branch, opt)
	require.NoError(t, err)
	assert.Equal(t, branch, res3.Tracking)
	assert.Contains(t, res3.Reason, "moving ref")

	_, err = home.Install(context.Background(), dir+"@no-such-ref", opt)
	assert.Equal(t, "git", reasonOf(err))
}

func TestParseSource(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		in, kind, loc, ref string
	}{
		{"github.com/org/repo@v1.2.0", "git", "https://github.com/org/repo", "v1.2.0"},
		{"https://example.com/x.zip", "archive", "https://example.com/x.zip", ""},
		{"./x.zip", "file", "./x.zip", ""},
		{dir, "file", dir, ""},
		{dir + "#main", "git", dir, "main"},
		{"git@github.com:org/repo.git", "git", "git@github.com:org/repo.git", ""},
		{"https://github.com/org/repo", "git", "https://github.com/org/repo", ""},
	}
	for _, tc := range tests {
		s, err := install.ParseSource(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.kind, s.Kind, tc.in)
		assert.Equal(t, tc.loc, s.Location, tc.in)
		assert.Equal(t, tc.ref, s.Ref, tc.in)
	}
	_, err := install.ParseSource(filepath.Join(dir, "missing"))
	assert.Error(t, err)
}

// TestSecretInAForestFileIsRefused is F.188.
func TestSecretInAForestFileIsRefused(t *testing.T) {
	tree := orgTree(t)
	m, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	withSecret := strings.Replace(string(m), `"config": {`, `"config": {"token": {"type": "string", "secret": true},`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(tree, "manifest.json"), []byte(withSecret), 0o644))
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	opt := kitOptions()
	opt.Acknowledge = true
	_, err = home.Install(context.Background(), tree, opt)
	require.NoError(t, err)

	clean, err := forest.ParseEnablement([]byte("extensions:\n  org:\n    enabled: true\n    config:\n      keep_todo: true\n"))
	require.NoError(t, err)
	assert.NoError(t, home.CheckEnablement(clean))
	leaky, err := forest.ParseEnablement([]byte("extensions:\n  org:\n    config:\n      token: sk-123\n"))
	require.NoError(t, err)
	err = home.CheckEnablement(leaky)
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, envelope.Schema, e.Code)
	assert.Contains(t, e.Message, "org.token")
}

// TestQuarantineExpires is F.182's second half: settings kept past
// QuarantineFor are gone, and a reinstall then recovers nothing.
func TestQuarantineExpires(t *testing.T) {
	tree := orgTree(t)
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	opt := kitOptions()
	opt.Acknowledge = true
	_, err = home.Install(context.Background(), tree, opt)
	require.NoError(t, err)
	require.NoError(t, home.SetConfig("org", map[string]any{"keep_todo": true}))
	removed := time.Now()
	require.NoError(t, home.Remove("org", removed))
	later := removed.Add(install.QuarantineFor + time.Hour)
	q, err := home.Quarantined(later)
	require.NoError(t, err)
	assert.Empty(t, q, "an expired quarantine is gone")
	opt.Now = func() time.Time { return later }
	res, err := home.Install(context.Background(), tree, opt)
	require.NoError(t, err)
	assert.False(t, res.ConfigRecovered)
}

// TestKitFailsAPanelFieldNotDeclared is F.191: every setting a panel
// shows must be declared in the manifest's config, which is what makes
// it reachable without a console.
func TestKitFailsAPanelFieldNotDeclared(t *testing.T) {
	tree := orgTree(t)
	m, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tree, "manifest.json"),
		[]byte(strings.Replace(string(m), `"contributes": {`, `"contributes": {"panel": "ui/panel.json",`, 1)), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "ui"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "ui", "panel.json"),
		[]byte(`{"title": "Org", "sections": [{"title": "Look", "fields": ["keep_todo", "colour"]}]}`), 0o644))
	kit, _ := install.Kit(context.Background(), tree, install.KitOptions{HostVersion: "0.9.0"})
	assert.False(t, kit.OK)
	assert.Contains(t, kit.Failed, "panel")
}
