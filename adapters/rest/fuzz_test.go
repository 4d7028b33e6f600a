// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/url"
	"strings"
	"testing"

	"github.com/monkeyllm/vine"
)

// FuzzRecursiveParam: export accepts recursive alone, spelled true, 1,
// false or 0 in any case; everything else is a schema refusal.
func FuzzRecursiveParam(f *testing.F) {
	for _, q := range []string{"", "recursive=true", "recursive=0", "recursive=TRUE&recursive=1", "format=zip", "recursive", "%zz"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		got, err := recursiveParam(q)
		if err != nil {
			if vine.CodeOf(err) != vine.ESchema {
				t.Fatalf("refusal %v is not E_SCHEMA", err)
			}
			return
		}
		if len(q) > 1 || (len(q) == 1 && len(q["recursive"]) != 1) {
			t.Fatalf("%q accepted", raw)
		}
		if got && !strings.EqualFold(q.Get("recursive"), "true") && q.Get("recursive") != "1" {
			t.Fatalf("%q read as recursive", raw)
		}
	})
}

// FuzzCleanPath: a path that passes has no "." or ".." segment and no
// empty one.
func FuzzCleanPath(f *testing.F) {
	for _, p := range []string{"/v1/forests/a/look", "/v1/../x", "/v1//x", "/v1/./x", "/v1/x/..y"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !cleanPath(p) {
			return
		}
		for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("%q passed with segment %q", p, seg)
			}
		}
		if strings.Contains(p, "//") {
			t.Fatalf("%q passed with an empty segment", p)
		}
	})
}
