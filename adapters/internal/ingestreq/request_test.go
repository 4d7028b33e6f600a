// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/monkeyllm/vine"
)

// TestWaitDefault: REST answers at once by default, MCP waits; an
// explicit wait wins on both.
func TestWaitDefault(t *testing.T) {
	body := []byte(`{"files":[{"name":"a.md","text":"# A"}]}`)
	for _, def := range []bool{false, true} {
		req, err := Decode(Signature(def, false), body)
		if err != nil || req.Wait != def {
			t.Fatalf("default %v: wait %v, err %v", def, req.Wait, err)
		}
		req, err = Decode(Signature(def, false), []byte(`{"files":[{"name":"a.md","text":"# A"}],"wait":`+map[bool]string{true: "false", false: "true"}[def]+`}`))
		if err != nil || req.Wait == def {
			t.Fatalf("explicit against default %v: wait %v, err %v", def, req.Wait, err)
		}
	}
}

// TestRootsAllow: no root refuses every path naming the setting; a path
// inside a root passes, one beside it does not.
func TestRootsAllow(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, d := range []string{in, out, filepath.Join(in, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := Roots(nil).Allow(in); vine.CodeOf(err) != vine.EForbidden {
		t.Fatalf("no roots: %v", err)
	}
	rs := ResolveRoots([]string{in, filepath.Join(dir, "missing")})
	if len(rs) != 1 {
		t.Fatalf("roots %v: a missing root is dropped", rs)
	}
	if err := rs.Allow(filepath.Join(in, "sub")); err != nil {
		t.Fatalf("inside: %v", err)
	}
	if err := rs.Allow(out); vine.CodeOf(err) != vine.EForbidden {
		t.Fatalf("beside: %v", err)
	}
}
