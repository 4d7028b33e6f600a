// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

// sourceTree writes a small document tree and returns its directory.
func sourceTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "source")
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// newCLIForest initialises an empty forest through the CLI.
func newCLIForest(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kb")
	code, out, _ := runCLI(t, "", "init", "--forest", dir, "--title", "Ingest test")
	require.Equal(t, exitOK, code, out)
	return dir
}

type cliReport struct {
	Planted      []string `json:"planted"`
	Branches     []string `json:"branches"`
	Updated      []string `json:"updated"`
	Unchanged    []string `json:"unchanged"`
	Stale        []string `json:"stale"`
	Unsupported  []string `json:"unsupported"`
	Errors       []string `json:"errors"`
	Consumed     []string `json:"consumed"`
	Drafts       []struct{ ID string }
	Mode         string  `json:"mode"`
	CommitBefore string  `json:"commit_before"`
	Commit       *string `json:"commit"`
	Preview      bool    `json:"preview"`
	Curation     map[string]any
}

func decodeReport(t *testing.T, out string) cliReport {
	t.Helper()
	var rep cliReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	return rep
}

func TestAdoptCommand(t *testing.T) {
	forestDir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"ops/a.md": "# A\n\nAbout anchors.", "ops/b.txt": "About buoys.", "x.xyz": "?"})
	digest := testforest.TreeDigest(t, forestDir)

	code, out, errOut := runCLI(t, "", "adopt", src, "--forest", forestDir, "--dry-run", "--json")
	assert.Equal(t, exitOK, code, errOut)
	rep := decodeReport(t, out)
	assert.True(t, rep.Preview)
	assert.Nil(t, rep.Commit, "a preview has no commit")
	assert.Len(t, rep.Drafts, 2)
	assert.Equal(t, digest, testforest.TreeDigest(t, forestDir), "a dry run writes nothing")

	code, out, errOut = runCLI(t, "", "adopt", "--forest", forestDir, src, "--dest", "inbox", "--json")
	assert.Equal(t, exitOK, code, errOut)
	rep = decodeReport(t, out)
	assert.Equal(t, "adopt", rep.Mode)
	assert.Equal(t, []string{"inbox/ops/a", "inbox/ops/b"}, rep.Planted)
	assert.Equal(t, []string{"inbox/_index", "inbox/ops/_index"}, rep.Branches)
	assert.Equal(t, []string{"x.xyz"}, rep.Unsupported)
	require.NotNil(t, rep.Commit)
	assert.NotEqual(t, rep.CommitBefore, *rep.Commit)
	assert.Contains(t, errOut, "adopt: 3/3", "the progress bar draws on stderr")

	code, out, _ = runCLI(t, "", "validate", "--forest", forestDir)
	assert.Equal(t, exitOK, code, out)

	// The human summary, and a refusal as an envelope.
	code, out, _ = runCLI(t, "", "adopt", src, "--forest", forestDir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "adopt: 0 planted, 0 branches, 0 updated, 2 unchanged")
	assert.Contains(t, out, "unsupported x.xyz")
	code, out, _ = runCLI(t, "", "adopt", src, "--forest", forestDir, "--dest", "a/b/c")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"code":"E_SCHEMA"`)
}

func TestAdoptUsage(t *testing.T) {
	for _, args := range [][]string{{"adopt"}, {"adopt", "--forest", "x"}, {"adopt", "a", "b", "--forest", "x"}, {"adopt", "src"}} {
		code, _, _ := runCLI(t, "", args...)
		assert.Equal(t, exitUsage, code, args)
	}
}
