// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/exttest"
)

// orgExtensionTree builds the example Org-mode converter into an
// installable tree.
func orgExtensionTree(t *testing.T) string {
	return exttest.Tree(t, "github.com/monkeyllm/vine/examples/ext-org")
}

// TestExtensionOnAnEngineOnlyHost is F.186: with no Station, an
// extension is installed, enabled by a commit in the forest, and its
// converter claims the next ingest; validate names an expected
// extension this host lacks.
func TestExtensionOnAnEngineOnlyHost(t *testing.T) {
	tree := orgExtensionTree(t)
	home := filepath.Join(t.TempDir(), "ext-home")
	t.Setenv(extHomeEnv, home)
	dir := filepath.Join(t.TempDir(), "kb")
	code, out, _ := runCLI(t, "", "init", "--forest", dir, "--title", "Notes")
	require.Equal(t, exitOK, code, out)

	code, out, _ = runCLI(t, "", "ext", "install", tree, "--home", home)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"reason":"unverified"`, "an unverified install waits for --acknowledge")

	code, out, errOut := runCLI(t, "", "ext", "install", tree, "--home", home, "--acknowledge", "--enable-on", dir, "--json")
	require.Equal(t, exitOK, code, out+errOut)
	var inst map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &inst))
	assert.Equal(t, "org", inst["id"])
	assert.Equal(t, "unverified", inst["tier"])
	assert.NotNil(t, inst["enabled_on"], out)

	code, out, _ = runCLI(t, "", "ext", "list", "--home", home)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "org")
	assert.Contains(t, out, "unverified")

	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "soup.org"), []byte("#+TITLE: Leek soup\n* Method\nSimmer /gently/ for =20= minutes.\n"), 0o644))
	code, out, errOut = runCLI(t, "", "adopt", src, "--forest", dir, "--json")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"soup"`)
	data, err := os.ReadFile(filepath.Join(dir, "soup.md"))
	require.NoError(t, err, out)
	assert.Contains(t, string(data), "# Method")
	assert.Contains(t, string(data), "Simmer *gently* for `20` minutes.")

	code, out, _ = runCLI(t, "", "ext", "disable", "org", "--forest", dir, "--home", home)
	require.Equal(t, exitOK, code, out)
	code, out, _ = runCLI(t, "", "validate", "--forest", dir, "--json")
	assert.NotContains(t, out, `expects extension`, "a disabled extension that is installed is not absent")

	code, out, _ = runCLI(t, "", "ext", "remove", "org", "--home", home)
	require.Equal(t, exitOK, code, out)
	_, out, _ = runCLI(t, "", "validate", "--forest", dir, "--json")
	assert.Contains(t, out, `expects extension \"org\"`, "validate names the expected extension this host lacks")
	code, out, _ = runCLI(t, "", "ext", "quarantine", "--home", home)
	require.Equal(t, exitOK, code)
	assert.True(t, strings.Contains(out, "{}") || strings.Contains(out, "org"), out)
}

// TestExtensionFromAGitTag: installed from a local repository at a tag,
// vine ext list shows the tier, the commit and the kit; a branch is
// tracked and unverified.
func TestExtensionFromAGitTag(t *testing.T) {
	tree := orgExtensionTree(t)
	repoDir := t.TempDir()
	repo, err := git.PlainInit(repoDir, false)
	require.NoError(t, err)
	wt, err := repo.Worktree()
	require.NoError(t, err)
	for _, f := range []string{"manifest.json", "LICENSE", "main"} {
		data, err := os.ReadFile(filepath.Join(tree, f))
		require.NoError(t, err)
		mode := os.FileMode(0o644)
		if f == "main" {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(filepath.Join(repoDir, f), data, mode))
		_, err = wt.Add(f)
		require.NoError(t, err)
	}
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}
	commit, err := wt.Commit("org 0.1.0", &git.CommitOptions{Author: sig})
	require.NoError(t, err)
	_, err = repo.CreateTag("v0.1.0", commit, &git.CreateTagOptions{Tagger: sig, Message: "v0.1.0"})
	require.NoError(t, err)
	head, err := repo.Head()
	require.NoError(t, err)

	home := filepath.Join(t.TempDir(), "home")
	code, out, errOut := runCLI(t, "", "ext", "install", repoDir+"@v0.1.0", "--home", home, "--acknowledge")
	require.Equal(t, exitOK, code, out+errOut)
	code, out, _ = runCLI(t, "", "ext", "list", "--home", home)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "unverified")
	assert.Contains(t, out, commit.String()[:12], "the sha, not the tag")
	assert.Contains(t, out, "ok (")

	code, out, errOut = runCLI(t, "", "ext", "install", repoDir+"#"+head.Name().Short(), "--home", home, "--acknowledge", "--json")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"tracking":"`+head.Name().Short()+`"`)
	assert.Contains(t, out, `"tier":"unverified"`)
	code, out, _ = runCLI(t, "", "ext", "list", "--home", home)
	assert.Contains(t, out, "tracking "+head.Name().Short())
}
