package vine

import (
	"os"
	"sync"
	"testing"
)

// sharedTemp is one temporary directory per test process for artefacts
// built once and reused (fixture templates, benchmark forests); TestMain
// removes it, so runs leave nothing behind.
var sharedTemp = struct {
	once sync.Once
	dir  string
	err  error
}{}

func sharedTempDir(tb testing.TB) string {
	tb.Helper()
	sharedTemp.once.Do(func() { sharedTemp.dir, sharedTemp.err = os.MkdirTemp("", "vine-test-") })
	if sharedTemp.err != nil {
		tb.Fatalf("shared temp dir: %v", sharedTemp.err)
	}
	return sharedTemp.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedTemp.dir != "" {
		os.RemoveAll(sharedTemp.dir)
	}
	os.Exit(code)
}
