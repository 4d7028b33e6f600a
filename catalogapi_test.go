// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// rawDBAllowed lists the non-test files outside package catalog that may
// still call .DB(), each with the reason; the test fails on any other call,
// and on an entry no longer needed.
var rawDBAllowed = map[string]string{
	"scan.go":                           "scan reads count, page and rows from one read-only snapshot transaction of its own SQL",
	"stmts.go":                          "the root primitives prepare their own SQL once on the reader pool (the statement cache)",
	"adapters/station/station.go":       "the host registry's file, not a catalog: its sibling packages (audit, webhooks) own tables in it",
	"adapters/station/routes_shares.go": "the host registry's file, not a catalog: the shares store owns its table in it",
}

// TestCatalogSchemaIsNoAPI keeps the catalog's SQLite schema private to
// package catalog: other packages read through its typed methods, never
// through Catalog.DB. Syntax alone cannot tell a catalog's .DB() from
// another store's, so every .DB() call outside catalog is refused; the
// trails store has typed methods too.
func TestCatalogSchemaIsNoAPI(t *testing.T) {
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") ||
				d.Name() == "testdata" || d.Name() == "vendor" || path == "catalog") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, at := range rawDBCalls(t, path, nil) {
			if _, ok := rawDBAllowed[filepath.ToSlash(path)]; ok {
				seen[filepath.ToSlash(path)] = true
				continue
			}
			t.Errorf("%s: .DB() outside package catalog: add a typed catalog method instead", at)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for file := range rawDBAllowed {
		if !seen[file] {
			t.Errorf("%s no longer calls .DB(): remove it from rawDBAllowed", file)
		}
	}
}

// rawDBCalls returns the position of every argument-free .DB() call in the
// file at path (or in src, when not nil).
func rawDBCalls(t *testing.T, path string, src any) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "DB" {
			out = append(out, fset.Position(call.Pos()).String())
		}
		return true
	})
	return out
}

// TestCatalogSchemaRuleBites proves the rule sees a raw catalog read.
func TestCatalogSchemaRuleBites(t *testing.T) {
	src := `package gardener
func f(v interface{ Catalog() interface{ DB() any } }) { _ = v.Catalog().DB() }`
	if got := rawDBCalls(t, "gardener/x.go", src); len(got) != 1 {
		t.Fatalf("want 1 raw .DB() call, got %q", got)
	}
}
