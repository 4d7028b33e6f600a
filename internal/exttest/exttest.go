// SPDX-License-Identifier: Apache-2.0

// Package exttest builds example extensions into installable trees for
// tests: the executable, its manifest and its licence, as an author
// would ship them.
package exttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Hostile is the import path of the extension that misbehaves on
// purpose (testdata/hostile): its converters crash (.txt), raise (.md)
// and hang (.csv); its ranking reverses harvest's order, or hangs or
// floods when the question says so; its tools hang, flood, crash, pick
// an id as the caller and ask the host for a path it was not given.
const Hostile = "github.com/monkeyllm/vine/internal/exttest/testdata/hostile"

var (
	mu    sync.Mutex
	built = map[string]string{} // import path -> built executable
)

// Tree lays out the extension whose main package is pkg (an import
// path, such as "github.com/monkeyllm/vine/examples/ext-org") as an
// installed tree in a fresh directory: main, manifest.json and LICENSE.
// The executable is built once per process; without a Go toolchain the
// test is skipped.
func Tree(tb testing.TB, pkg string) string {
	tb.Helper()
	bin, dir := build(tb, pkg)
	tree := tb.TempDir()
	copyFile(tb, bin, filepath.Join(tree, "main"), 0o755)
	for _, f := range []string{"manifest.json", "LICENSE"} {
		copyFile(tb, filepath.Join(dir, f), filepath.Join(tree, f), 0o644)
	}
	return tree
}

// Cleanup removes the executables Tree built in this process. Call it
// from TestMain once m.Run returns: every test of the process shares
// them, so no single test's cleanup may remove them, and without this
// each test run left one directory per extension in the system's
// temporary directory.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	for pkg, bin := range built {
		os.RemoveAll(filepath.Dir(bin))
		delete(built, pkg)
	}
}

// Main is a TestMain for a package that needs nothing else: it runs the
// tests, removes what Tree built (Cleanup) and exits with their code.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

func build(tb testing.TB, pkg string) (bin, dir string) {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		tb.Skipf("cannot find %s: %v", pkg, err)
	}
	dir = strings.TrimSpace(string(out))
	if bin, ok := built[pkg]; ok {
		return bin, dir
	}
	tmp, err := os.MkdirTemp("", "exttest-")
	if err != nil {
		tb.Fatal(err)
	}
	bin = filepath.Join(tmp, "main")
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		tb.Skipf("cannot build %s: %s", pkg, out)
	}
	built[pkg] = bin
	return bin, dir
}

func copyFile(tb testing.TB, src, dst string, mode os.FileMode) {
	tb.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		tb.Fatal(err)
	}
}
