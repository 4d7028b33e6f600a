// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"encoding/json"
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

// jsonKeys lists the keys of a JSON object in wire order, for tests that
// pin the specification's key order.
func jsonKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
