// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/dataset"
)

// testClock is the forest clock of every test, so dates are stable.
var testClock = func() time.Time { return time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC) }

// newForest initialises an empty forest and opens it writable.
func newForest(t testing.TB) *vine.Vine {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "forest")
	_, err := vine.Init(context.Background(), dir, "Test forest", &vine.InitOptions{Now: testClock})
	require.NoError(t, err)
	return openForest(t, dir)
}

func openForest(t testing.TB, dir string) *vine.Vine {
	t.Helper()
	v, err := vine.Open(context.Background(), dir, &vine.Options{Now: testClock})
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

// writeTree writes files (relative path → content) under a new source
// directory beside the test's forests and returns it.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "source")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for rel, text := range files {
		writeFile(t, dir, rel, []byte(text))
	}
	return dir
}

func writeFile(t testing.TB, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, data, 0o644))
}

// head is the forest's HEAD commit.
func head(t testing.TB, v *vine.Vine) string {
	t.Helper()
	repo, err := gitops.Open(v.Dir())
	require.NoError(t, err)
	sha, err := repo.Head()
	require.NoError(t, err)
	return sha
}

// subjects lists the subjects of the commits reachable from HEAD, newest
// first.
func subjects(t testing.TB, v *vine.Vine) []string {
	t.Helper()
	repo, err := git.PlainOpen(v.Dir())
	require.NoError(t, err)
	iter, err := repo.Log(&git.LogOptions{})
	require.NoError(t, err)
	var out []string
	require.NoError(t, iter.ForEach(func(c *object.Commit) error {
		subject, _, _ := strings.Cut(c.Message, "\n")
		out = append(out, subject)
		return nil
	}))
	return out
}

// node reads a node file.
func node(t testing.TB, v *vine.Vine, id string) *forest.Node {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(v.Dir(), filepath.FromSlash(id)+forest.NodeExt))
	require.NoError(t, err, id)
	n, err := forest.Parse(id, data)
	require.NoError(t, err)
	return n
}

// validate asserts the forest lints with no error.
func validate(t testing.TB, v *vine.Vine) {
	t.Helper()
	rep, err := v.Validate(context.Background())
	require.NoError(t, err)
	for _, f := range rep.Findings {
		if f.Level == "error" {
			t.Errorf("validate: %s: %s", f.NodeID, f.Message)
		}
	}
	require.Zero(t, rep.Errors)
}

func removeFile(p string) error { return os.Remove(p) }

// createDB writes a SQLite file with tables items(id, name) holding rows
// and notes(text), empty.
func createDB(p string, rows [][]any) error {
	return dataset.Create(context.Background(), p, []dataset.Table{
		{Name: "items", Columns: []dataset.Column{{Name: "id", Type: "INTEGER"}, {Name: "name", Type: "TEXT"}}},
		{Name: "notes", Columns: []dataset.Column{{Name: "text", Type: "TEXT"}}},
	}, map[string][][]any{"items": rows})
}
