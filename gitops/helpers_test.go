// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// t0 is the clock of the tests: commits get distinct, ordered times.
var t0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.FixedZone("", 2*3600))

func at(minute int) Options { return Options{When: t0.Add(time.Duration(minute) * time.Minute)} }

// writeFile writes content at the slash-separated rel under dir.
func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

const gitignore = "_derived/\n.vine.lock\n*.db\n*.sqlite\n_assets/\n"

// newForest makes a forest skeleton in a fresh directory and commits it.
func newForest(t testing.TB) (string, *Repo) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "_index.md", "---\nid: _index\ntype: branch\n---\n\n# Test\n")
	writeFile(t, dir, "_meta/schema.md", "---\nid: _meta/schema\n---\n\n# Forest dialect\n")
	writeFile(t, dir, ".gitignore", gitignore)
	r, err := Init(dir)
	require.NoError(t, err)
	_, err = r.CommitInit(context.Background(), "Test", at(0))
	require.NoError(t, err)
	return dir, r
}

// snapshot is what a failed commit must leave unchanged.
type snapshot struct {
	head  string
	index []byte
}

func snap(t testing.TB, dir string, r *Repo) snapshot {
	t.Helper()
	h, err := r.Head()
	require.NoError(t, err)
	idx, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	return snapshot{head: h, index: idx}
}

// gitCmd runs the git binary in dir with no user or system configuration,
// skipping the test when git is not installed.
func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git binary not installed; cross-check skipped")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(dir), "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
