// Package testforest gives tests the forests they stand on: the generated
// fixture in a fresh temporary directory, the reference forest from the
// interop data when it is present, and a digest of a whole tree for
// proving that a refused write changed nothing.
package testforest

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/monkeyllm/vine/internal/fixture"
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
func Reference(t testing.TB) string {
	t.Helper()
	archive := findUp("shared/interop/forest-fixture.tar.gz")
	if archive == "" {
		t.Skip("interop data shared/interop/forest-fixture.tar.gz not found beside the repository; skipping the reference-forest test")
	}
	dst := t.TempDir()
	if err := untar(archive, dst); err != nil {
		t.Fatalf("unpack reference forest: %v", err)
	}
	return filepath.Join(dst, "forest-fixture")
}

// findUp looks for rel in the working directory and each of its parents,
// and in their parents' siblings' view (../rel), the layout CI uses.
func findUp(rel string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		for _, cand := range []string{filepath.Join(dir, rel), filepath.Join(dir, "..", rel)} {
			if _, err := os.Stat(cand); err == nil {
				return cand
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func untar(archive, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue // test data only, but never write outside dst
		}
		p := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(h.Mode)&0o777|0o600)
			if err != nil {
				return err
			}
			_, cerr := io.Copy(out, tr)
			if err := out.Close(); cerr != nil || err != nil {
				return cerr
			}
		}
	}
}

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
		if rel != ".vine.lock" {
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
