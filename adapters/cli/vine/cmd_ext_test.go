// SPDX-License-Identifier: Apache-2.0

package main

import (
	"crypto/ed25519"
	"encoding/base64"
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

	"github.com/monkeyllm/vine/ext/install"
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

// TestExtensionFromAGitTag is issue 35's line (and F.193 through the
// command): installed from a local repository at a tag, vine ext list
// shows the tier, the commit and the kit; a branch is tracked and
// unverified; outdated sees a moved tag and update installs its sha,
// naming the previous one; the listing needs no source.
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

	// Back to the tag, which then moves.
	code, out, errOut = runCLI(t, "", "ext", "install", repoDir+"@v0.1.0", "--home", home, "--acknowledge")
	require.Equal(t, exitOK, code, out+errOut)
	require.NoError(t, os.WriteFile(filepath.Join(repoDir, "NOTES"), []byte("moved"), 0o644))
	_, err = wt.Add("NOTES")
	require.NoError(t, err)
	moved, err := wt.Commit("notes", &git.CommitOptions{Author: sig})
	require.NoError(t, err)
	require.NoError(t, repo.DeleteTag("v0.1.0"))
	_, err = repo.CreateTag("v0.1.0", moved, &git.CreateTagOptions{Tagger: sig, Message: "v0.1.0 moved"})
	require.NoError(t, err)
	code, out, errOut = runCLI(t, "", "ext", "outdated", "--home", home)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "behind: vine ext update org")
	assert.Contains(t, out, moved.String()[:12])
	code, out, _ = runCLI(t, "", "ext", "update", "org", "--home", home)
	assert.Equal(t, exitFailure, code, "new unverified code needs --acknowledge")
	assert.Contains(t, out, `"reason":"unverified"`)
	code, out, errOut = runCLI(t, "", "ext", "update", "org", "--home", home, "--acknowledge")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "updated org")
	assert.Contains(t, out, "revision "+moved.String())
	assert.Contains(t, out, "was "+commit.String())

	require.NoError(t, os.RemoveAll(repoDir))
	code, out, _ = runCLI(t, "", "ext", "list", "--home", home)
	require.Equal(t, exitOK, code, "the listing makes no call to the source")
	assert.Contains(t, out, moved.String()[:12])
}

// TestExtensionFromTheIndex: an id installs through the index named by
// $MONKEYLLM_EXT_INDEX, whose signature must verify against
// $MONKEYLLM_EXT_INDEX_KEY; an unsigned tag is not what the index
// vouches for, so it waits for --acknowledge and installs unverified.
func TestExtensionFromTheIndex(t *testing.T) {
	tree := orgExtensionTree(t)
	repoDir := t.TempDir()
	repo, err := git.PlainInit(repoDir, false)
	require.NoError(t, err)
	wt, err := repo.Worktree()
	require.NoError(t, err)
	for _, f := range []string{"manifest.json", "LICENSE", "main"} {
		data, err := os.ReadFile(filepath.Join(tree, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(repoDir, f), data, 0o755))
		_, err = wt.Add(f)
		require.NoError(t, err)
	}
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}
	commit, err := wt.Commit("org 0.1.0", &git.CommitOptions{Author: sig})
	require.NoError(t, err)
	_, err = repo.CreateTag("v0.1.0", commit, &git.CreateTagOptions{Tagger: sig, Message: "v0.1.0"})
	require.NoError(t, err)

	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	index := filepath.Join(t.TempDir(), "index.json")
	data := []byte(`{"extensions": {"org": {"source": "` + repoDir + `@v0.1.0", "identity": {"account": "ada"}}}}`)
	require.NoError(t, os.WriteFile(index, data, 0o644))
	t.Setenv(extIndexEnv, index)
	t.Setenv(extIndexKeyEnv, base64.StdEncoding.EncodeToString(pub))
	home := filepath.Join(t.TempDir(), "home")

	code, out, _ := runCLI(t, "", "ext", "install", "org", "--home", home)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"reason":"index"`, "an index without its signature is refused")

	require.NoError(t, os.WriteFile(index+install.IndexSigSuffix, install.SignIndex(priv, data), 0o644))
	code, out, _ = runCLI(t, "", "ext", "install", "org", "--home", home)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"reason":"index"`, "the tag is not signed by the identity the index expects")
	assert.Contains(t, out, "github.com/ada")

	code, out, errOut := runCLI(t, "", "ext", "install", "org", "--home", home, "--acknowledge", "--json")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"tier":"unverified"`)
	code, out, _ = runCLI(t, "", "ext", "list", "--home", home, "--json")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, `"kind":"index"`)
	assert.Contains(t, out, commit.String())

	t.Setenv(extIndexKeyEnv, "not a key")
	code, _, errOut = runCLI(t, "", "ext", "install", "org", "--home", home)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, extIndexKeyEnv)
}

// TestExpectedButAbsentExtension is F.187 on an engine-only host: a
// forest that expects extensions this host has not installed validates
// with a warning naming each, ingests with the loader inert (no error,
// the built-in converters), and nothing installs because it asked.
func TestExpectedButAbsentExtension(t *testing.T) {
	home := filepath.Join(t.TempDir(), "never-created")
	t.Setenv(extHomeEnv, home)
	dir := filepath.Join(t.TempDir(), "kb")
	code, out, _ := runCLI(t, "", "init", "--forest", dir, "--title", "Notes")
	require.Equal(t, exitOK, code, out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_meta", "extensions.yaml"),
		[]byte("extensions:\n  whisper:\n    enabled: true\n  org:\n    enabled: false\n"), 0o644))

	code, out, errOut := runCLI(t, "", "validate", "--forest", dir, "--json")
	require.Equal(t, exitOK, code, "a missing extension is a warning: "+out+errOut)
	assert.Contains(t, out, `expects extension \"whisper\"`)
	assert.Contains(t, out, `expects extension \"org\"`, "a disabled one is still expected")

	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "tides.txt"), []byte("High water at dawn.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "soup.org"), []byte("* Method\n"), 0o644))
	code, out, errOut = runCLI(t, "", "adopt", src, "--forest", dir, "--json")
	require.Equal(t, exitOK, code, "the absent loader is inert, never an error: "+out+errOut)
	assert.FileExists(t, filepath.Join(dir, "tides.md"))
	assert.NoFileExists(t, filepath.Join(dir, "soup.md"), "no converter claims .org without the extension")
	assert.NoDirExists(t, home, "nothing installs because a forest expects it")
}
