// SPDX-License-Identifier: Apache-2.0

// Package interop finds and unpacks the forests written by the original
// implementation, kept beside the repository as compatibility data
// (shared/interop/). Tests that need them skip with a message when the
// data is absent, so the module tests anywhere.
package interop

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// ArchiveRel is the reference forest's archive, relative to the folder
// that holds both the repository and shared/.
const ArchiveRel = "shared/interop/forest-fixture.tar.gz"

// Archive looks for the reference archive in the working directory and
// each of its parents.
func Archive() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		candidate := filepath.Join(dir, filepath.FromSlash(ArchiveRel))
		if _, err := os.Stat(candidate); err == nil {
			return candidate, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Forest unpacks the reference forest into a fresh temporary directory and
// returns its root, or skips the test when the archive is absent.
func Forest(tb testing.TB) string {
	tb.Helper()
	archive, ok := Archive()
	if !ok {
		tb.Skipf("interop data %s not found beside the repository; skipping the reference-forest test", ArchiveRel)
	}
	dst := tb.TempDir()
	if err := Unpack(archive, dst); err != nil {
		tb.Fatalf("unpack reference forest: %v", err)
	}
	return filepath.Join(dst, "forest-fixture")
}

// Unpack extracts a .tar.gz into dst, skipping members that would land
// outside it (test data only, but nothing is ever written elsewhere).
func Unpack(archive, dst string) error {
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
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(h.Name) {
			continue
		}
		target := filepath.Join(dst, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeMember(target, tr, os.FileMode(h.Mode)&0o777|0o600)
		}
		if err != nil {
			return err
		}
	}
}

func writeMember(target string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	_, cerr := io.Copy(out, r)
	return errors.Join(cerr, out.Close())
}
