// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

// writeConfig points VINE_CONFIG at a file holding text.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	t.Setenv(configEnv, path)
	return path
}

// TestDefaultForestOrder: --forest beats VINE_FOREST, which beats the
// config file; "~" is the home directory in all three.
func TestDefaultForestOrder(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	home := filepath.Dir(dir)
	t.Setenv("HOME", home)
	tilde := "~/" + filepath.Base(dir)
	missing := filepath.Join(t.TempDir(), "missing")

	writeConfig(t, "forest: "+tilde+"\n")
	code, out, _ := runCLI(t, "", "validate")
	assert.Equal(t, exitOK, code, "the config file names the forest: %s", out)

	t.Setenv(forestEnv, missing)
	code, out, _ = runCLI(t, "", "validate")
	assert.Equal(t, exitFailure, code, "VINE_FOREST beats the config file")
	assert.Contains(t, out, "E_NOT_FOUND")

	code, out, _ = runCLI(t, "", "validate", "--forest", tilde)
	assert.Equal(t, exitOK, code, "--forest beats VINE_FOREST: %s", out)
	code, out, _ = runCLI(t, "", "validate", "--forest="+tilde)
	assert.Equal(t, exitOK, code, "~ after = is expanded too: %s", out)

	t.Setenv(forestEnv, tilde)
	code, out, _ = runCLI(t, "", "call", "look", `{"id": "operations/_index"}`)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, `"operations/_index"`)
}

// TestConfigFlags: a top-level key is that flag for every command that
// has it, a command's section beats it, and the command line and the
// environment beat both.
func TestConfigFlags(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	writeConfig(t, "json: true\ncommands:\n  reindex:\n    json: false\n")
	code, out, _ := runCLI(t, "", "validate", "--forest", dir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, `"errors":0`, "json: true made validate print JSON")
	code, out, _ = runCLI(t, "", "reindex", "--forest", dir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "indexed ", "the reindex section beats the top level")
	code, out, _ = runCLI(t, "", "reindex", "--forest", dir, "--json=true")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, `"nodes"`, "the command line beats the file")

	writeConfig(t, "commands:\n  canopy:\n    embedder: hash\n    dim: 16\n")
	code, out, _ = runCLI(t, "", "canopy", "build", "--forest", dir)
	assert.Equal(t, exitOK, code, "a parent's section reaches its actions: %s", out)
	assert.Contains(t, out, `"dim":16`)
}

// TestConfigMistakes: a file that does not parse, or names a command or
// a value that does not exist, stops the command (exit 2) naming the
// file; help and version still work.
func TestConfigMistakes(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	for _, text := range []string{
		"forest: [\n",
		"commands:\n  sevre:\n    http: :8080\n",
		"commands: 3\n",
		"commands:\n  ranger:\n    every: soon\n",
	} {
		path := writeConfig(t, text)
		code, _, errOut := runCLI(t, "", "validate", "--forest", dir)
		if text == "commands:\n  ranger:\n    every: soon\n" {
			assert.Equal(t, exitOK, code, "validate has no --every")
			code, _, errOut = runCLI(t, "", "ranger", "--forest", dir, "--health")
		}
		assert.Equal(t, exitUsage, code, text)
		assert.Contains(t, errOut, path, text)
		code, _, _ = runCLI(t, "", "validate", "--help")
		assert.Equal(t, exitOK, code, text)
		code, _, _ = runCLI(t, "", "version")
		assert.Equal(t, exitOK, code, text)
	}
	t.Setenv(configEnv, filepath.Join(t.TempDir(), "absent.yaml"))
	code, _, _ := runCLI(t, "", "validate", "--forest", dir)
	assert.Equal(t, exitOK, code, "an absent file is no config")
}

// TestBranchFolderIsNoForest: a branch folder of a forest is refused
// before anything opens it, and nothing is written inside the forest.
func TestBranchFolderIsNoForest(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	branch := filepath.Join(dir, "operations")
	require.FileExists(t, filepath.Join(branch, "_index.md"))
	for _, args := range [][]string{
		{"validate", "--forest", branch},
		{"reindex", "--forest", branch},
		{"call", "look", "--forest", branch, `{"id": "operations/_index"}`},
		{"ranger", "--health", "--forest", branch},
		{"prefetch", "--forest", branch},
		{"canopy", "status", "--forest", branch},
		{"snapshot", "create", "--forest", branch},
	} {
		code, out, errOut := runCLI(t, "", args...)
		assert.Equal(t, exitFailure, code, args)
		assert.Contains(t, out, `"code":"E_NOT_FOUND"`, args)
		assert.Contains(t, out, "branch folder", args)
		assert.NotContains(t, out, dir, "no machine path in the envelope")
		assert.Contains(t, errOut, "pass --forest "+dir, args)
	}
	code, _, errOut := runCLI(t, "", "serve", "--forest", branch)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, "branch folder")
	code, _, errOut = runCLI(t, "", "init", "--forest", filepath.Join(branch, "new"), "--title", "Nested")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "a forest cannot hold another")
	assert.NoDirExists(t, filepath.Join(branch, "_derived"), "nothing was opened inside the forest")
	assert.NoDirExists(t, filepath.Join(branch, "new"))
}
