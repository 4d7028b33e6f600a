// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestValidateNamesEveryInconsistency: each way the worktree, HEAD, the
// branch indexes and the catalog can disagree is an error naming it.
func TestValidateNamesEveryInconsistency(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir string)
		id    string
		want  string
	}{
		{"node file gone", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "concepts", "tide.md")))
		}, "concepts/tide", "its file is missing"},
		{"listed but absent", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "concepts", "tide.md")))
		}, "concepts/_index", "lists concepts/tide, which does not exist"},
		{"catalog ahead of the files", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "concepts", "tide.md")))
		}, "concepts/tide", "run reindex"},
		{"file no commit holds", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "concepts", "stray.md"), "---\nid: concepts/stray\ntype: concept\ntitle: S\nsummary: A stray file.\n---\n\n# S\n")
		}, "concepts/stray", "no commit holds"},
		{"uncommitted edit", func(t *testing.T, dir string) {
			appendFile(t, filepath.Join(dir, "concepts", "tide.md"), "\nAn edit.\n")
		}, "concepts/tide", "changed since the last commit"},
		{"present twice", func(t *testing.T, dir string) {
			data, err := os.ReadFile(filepath.Join(dir, "concepts", "tide.md"))
			require.NoError(t, err)
			text := strings.Replace(string(data), "id: concepts/tide", "id: operations/tide\nmoved_from: concepts/tide", 1)
			writeFile(t, filepath.Join(dir, "operations", "tide.md"), text)
		}, "operations/tide", "present twice"},
		{"listed twice", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "operations", "_index.md")
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			body := forest.SetEntry(string(data), forest.SectionDirect, "concepts/tide", forest.EntryLine("concepts/tide", "Listed twice."))
			writeFile(t, p, body)
		}, "concepts/tide", "listed by both"},
		{"FIFO named like a node", func(t *testing.T, dir string) {
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "concepts", "pipe.md"), 0o644))
		}, "concepts/pipe", "not a regular file"},
		{"directory named like a node", func(t *testing.T, dir string) {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "concepts", "folder.md"), 0o755))
		}, "concepts/folder", "directory named like a node"},
		{"symlink out of the forest", func(t *testing.T, dir string) {
			out := filepath.Join(t.TempDir(), "x.md")
			writeFile(t, out, "---\ntype: note\ntitle: X\nsummary: Outside.\n---\n")
			require.NoError(t, os.Symlink(out, filepath.Join(dir, "concepts", "out.md")))
		}, "concepts/out", "symlink escapes forest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := testforest.Fixture(t)
			v := openT(t, dir, &Options{ReadOnly: true})
			rep, err := v.Validate(context.Background())
			require.NoError(t, err)
			require.Zero(t, rep.Errors, "the fixture is consistent: %+v", rep.Findings)
			tt.spoil(t, dir)
			rep, err = v.Validate(context.Background())
			require.NoError(t, err)
			assert.True(t, slices.ContainsFunc(rep.Findings, func(f Finding) bool {
				return f.NodeID == tt.id && f.Level == "error" && strings.Contains(f.Message, tt.want)
			}), "want an error on %s saying %q, got %+v", tt.id, tt.want, rep.Findings)
		})
	}
}

// TestReadsNeverOpenAFIFO: a node file swapped for a FIFO answers at
// once instead of blocking the reader for ever.
func TestReadsNeverOpenAFIFO(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	p := filepath.Join(dir, "concepts", "tide.md")
	require.NoError(t, os.Remove(p))
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	for _, c := range []struct{ name, args string }{
		{"look", `{"id": "concepts/tide"}`},
		{"pick", `{"id": "concepts/tide"}`},
		{"sniff", `{"terms": ["tide"]}`},
		{"graft", `{"id": "concepts/tide", "patch": {"append_section": {"header": "H", "body": "B"}}}`},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := v.Call(context.Background(), c.name, []byte(c.args))
			done <- err
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s blocked on a FIFO", c.name)
		}
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

func appendFile(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
