// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// payloadRoot is a forest-shaped tree with the links an attacker would
// like a passport to follow.
func payloadRoot(t testing.TB) (Root, string) {
	t.Helper()
	dir := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"sales/_assets", "sales/deep", "hidden", "_derived", ".git"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, f := range []string{"sales/report.db", "sales/_assets/scan.png", "hidden/secret.db", "_derived/catalog.db", ".git/HEAD"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(outside, "host.db"), []byte("x"), 0o644))
	links := map[string]string{
		"sales/to-hidden.db":  "../hidden/secret.db",
		"sales/to-derived.db": "../_derived/catalog.db",
		"sales/to-host.db":    filepath.Join(outside, "host.db"),
		"sales/to-sibling.db": "report.db",
		"sales/hidden-dir":    "../hidden",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))))
	}
	root, err := NewRoot(dir)
	require.NoError(t, err)
	return root, outside
}

func TestRootPayload(t *testing.T) {
	root, outside := payloadRoot(t)
	tests := []struct {
		id, name string
		rel      string // "" when refused
		linked   bool   // refused only once symlinks are resolved
	}{
		{"sales/q1", "report.db", "sales/report.db", false},
		{"sales/q1", "_assets/scan.png", "sales/_assets/scan.png", false},
		{"sales/q1", "deep/new.db", "sales/deep/new.db", false}, // need not exist
		{"sales/q1", "./report.db", "sales/report.db", false},
		{"sales/q1", "deep/../report.db", "", false},
		{"sales/q1", "to-sibling.db", "sales/report.db", false},
		{"top", "top.db", "top.db", false},
		{"sales/q1", "../hidden/secret.db", "", false},
		{"sales/q1", "../_derived/catalog.db", "", false},
		{"sales/q1", "_derived/catalog.db", "", false},
		{"top", "_derived/catalog.db", "", false},
		{"top", ".git/HEAD", "", false},
		{"top", ".GIT/HEAD", "", false},
		{"top", ".vine.lock", "", false},
		{"sales/q1", "/etc/passwd", "", false},
		{"sales/q1", filepath.Join(outside, "host.db"), "", false},
		{"sales/q1", `..\hidden\secret.db`, "", false},
		{"sales/q1", "", "", false},
		{"sales/q1", "a\x00b.db", "", false},
		{"sales/q1", "to-hidden.db", "", true},
		{"sales/q1", "to-derived.db", "", true},
		{"sales/q1", "to-host.db", "", true},
		{"sales/q1", "hidden-dir/secret.db", "", true},
	}
	for _, tt := range tests {
		pf, err := root.Payload(tt.id, tt.name)
		if tt.rel == "" {
			var pe *PayloadError
			require.True(t, errors.As(err, &pe), "%s %q: want a PayloadError, got %v", tt.id, tt.name, err)
			assert.Equal(t, tt.linked, pe.Linked, "%s %q: %v", tt.id, tt.name, err)
			continue
		}
		require.NoError(t, err, "%s %q", tt.id, tt.name)
		assert.Equal(t, tt.rel, pf.Rel, "%s %q", tt.id, tt.name)
		assert.Equal(t, filepath.Join(root.Dir(), filepath.FromSlash(tt.rel)), pf.Abs)
	}
}

// FuzzPayloadPath: whatever a passport names, an accepted payload lies in
// its node's folder inside the root, never in _derived or .git, also once
// symlinks are resolved.
func FuzzPayloadPath(f *testing.F) {
	for _, s := range []string{"report.db", "../hidden/secret.db", "_assets/x.png", "to-hidden.db", "hidden-dir/secret.db",
		"./a/../b.db", "/etc/passwd", "..", ".", "_derived", "a//b.db", "%2e%2e/x", ".git/config", "deep/./x.db"} {
		f.Add("sales/q1", s)
		f.Add("top", s)
	}
	root, _ := payloadRoot(f)
	f.Fuzz(func(t *testing.T, id, name string) {
		pf, err := root.Payload(id, name)
		if err != nil {
			return
		}
		rel, rerr := filepath.Rel(root.Dir(), pf.Abs)
		if rerr != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			t.Fatalf("%q %q: %s leaves the root", id, name, pf.Abs)
		}
		if filepath.ToSlash(rel) != pf.Rel {
			t.Fatalf("%q %q: Rel %q is not Abs's %q", id, name, pf.Rel, rel)
		}
		dir := filepath.ToSlash(filepath.Dir(strings.Trim(id, "/")))
		if dir != "." && !strings.HasPrefix(pf.Rel, dir+"/") && !symlinkedDir(root, dir) {
			t.Fatalf("%q %q: %s is outside the node's folder", id, name, pf.Rel)
		}
		for _, part := range strings.Split(pf.Rel, "/") {
			if part == DerivedDir || strings.EqualFold(part, GitDir) || part == ".." {
				t.Fatalf("%q %q: %s reaches machinery", id, name, pf.Rel)
			}
		}
		if real, err := filepath.EvalSymlinks(pf.Abs); err == nil && real != pf.Abs {
			t.Fatalf("%q %q: Abs %s is not resolved (%s)", id, name, pf.Abs, real)
		}
	})
}

// symlinkedDir reports whether a node folder is itself reached through a
// link, in which case its resolved folder is the one the rule checks.
func symlinkedDir(root Root, dir string) bool {
	real, err := filepath.EvalSymlinks(filepath.Join(root.Dir(), filepath.FromSlash(dir)))
	return err == nil && real != filepath.Join(root.Dir(), filepath.FromSlash(dir))
}
