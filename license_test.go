// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spdx is the licence line every source file of the module carries.
const spdx = "SPDX-License-Identifier: Apache-2.0"

// TestSPDXLines keeps the licence line on every Go file of the module, so
// a file vendored alone still says under what terms it may be used.
func TestSPDXLines(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		if !hasSPDX(t, path) {
			t.Errorf("%s: no %q line in its first lines", path, spdx)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hasSPDX reports whether the line sits among the first five of path.
func hasSPDX(t *testing.T, path string) bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; i < 5 && sc.Scan(); i++ {
		if strings.Contains(sc.Text(), spdx) {
			return true
		}
	}
	return false
}
