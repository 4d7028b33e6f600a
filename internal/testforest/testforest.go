// SPDX-License-Identifier: Apache-2.0

// Package testforest gives tests the forests they stand on: the generated
// fixture in a fresh temporary directory, the reference forest from the
// interop data when it is present, and a digest of a whole tree for
// proving that a refused write changed nothing.
package testforest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/interop"
	"github.com/monkeyllm/vine/internal/journal"
)

// Fixture builds the generated fixture forest in a temporary directory.
func Fixture(t testing.TB) (string, *fixture.Manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mare-alta")
	man, err := fixture.Build(context.Background(), dir)
	if err != nil {
		t.Fatalf("build fixture: %v", err)
	}
	return dir, man
}

// Reference unpacks the original implementation's forest into a temporary
// directory and returns the forest root, or skips the test when the
// interop data is absent.
func Reference(t testing.TB) string { return interop.Forest(t) }

// TreeDigest hashes every path, mode and byte under dir, .git included,
// leaving out only the derived layer and the lock card, which a refused
// call may legitimately touch. Equal digests mean an unchanged forest.
func TreeDigest(t testing.TB, dir string) string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == "_derived" {
			return filepath.SkipDir
		}
		if rel != ".vine.lock" && !emptyJournal(p, rel) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		io.WriteString(h, rel+"\x00"+fi.Mode().String()+"\x00")
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Head is the forest's current commit.
func Head(t testing.TB, dir string) string {
	t.Helper()
	r, err := gitops.Open(dir)
	if err != nil {
		t.Fatalf("open repository %s: %v", dir, err)
	}
	h, err := r.Head()
	if err != nil {
		t.Fatalf("head of %s: %v", dir, err)
	}
	return h
}

// Unchanged runs fn and fails the test unless the worktree is
// byte-identical (TreeDigest) and no commit was made: what every refusal
// must leave behind.
func Unchanged(t testing.TB, dir string, fn func()) {
	t.Helper()
	before, commit := TreeDigest(t, dir), Head(t, dir)
	fn()
	if TreeDigest(t, dir) != before {
		t.Errorf("the forest tree changed: a refusal must leave it byte-identical")
	}
	if Head(t, dir) != commit {
		t.Errorf("a commit was made: a refusal makes none")
	}
}

// emptyJournal reports whether p is the writer's intent log with nothing
// in it: the writer keeps the file between writes, and an empty log is
// the same state as none.
func emptyJournal(p, rel string) bool {
	if filepath.ToSlash(rel) != ".git/"+journal.FileName {
		return false
	}
	fi, err := os.Lstat(p)
	return err == nil && fi.Size() == 0
}
