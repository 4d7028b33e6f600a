// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is this module's path; every package of it starts so.
const module = "github.com/monkeyllm/vine"

// leaves are the contract packages others implement: they import the
// standard library only, so an implementer links nothing of the engine.
var leaves = []string{"model", "embed", "convert", "fetch", "envelope", "ext", "adapters/record"}

// knownDebt lists the edges that break a rule today, each to be removed,
// never added to: the test fails on any edge not listed here.
var knownDebt = map[string]string{}

// TestLayering states and enforces the package layering, in the manner of
// the standard library's go/build deps test: the core never imports an
// adapter, leaves import the standard library alone, examples use the
// public API only, and an adapter that implements contracts imports
// nothing above the leaves.
func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	for _, v := range layeringViolations(t, pkgs) {
		t.Error(v)
	}
	for edge := range knownDebt {
		if !edgeExists(pkgs, edge) {
			t.Errorf("known debt %q is paid: remove it from knownDebt", edge)
		}
	}
}

// edgeExists reports whether the module-relative edge "from -> to" is an
// import of some package.
func edgeExists(pkgs []pkg, edge string) bool {
	from, to, _ := strings.Cut(edge, " -> ")
	for _, p := range pkgs {
		if p.ImportPath == module+"/"+from && slices.Contains(p.Imports, module+"/"+to) {
			return true
		}
	}
	return false
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// layeringViolations returns one line per import that breaks a rule and
// is not known debt.
func layeringViolations(t *testing.T, pkgs []pkg) []string {
	t.Helper()
	var out []string
	for _, p := range pkgs {
		from := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			if why := broken(from, imp); why != "" && !isKnownDebt(from, imp) {
				out = append(out, from+" imports "+imp+": "+why)
			}
		}
	}
	return out
}

// broken names the rule the edge from -> imp breaks, or "".
func broken(from, imp string) string {
	own, ok := strings.CutPrefix(imp, module+"/")
	if !ok {
		if imp == module {
			own = "."
		} else if strings.Contains(strings.Split(imp, "/")[0], ".") {
			if slices.Contains(leaves, from) {
				return "a leaf imports the standard library only"
			}
			return ""
		} else {
			return "" // the standard library
		}
	}
	core := !under(from, "adapters") && !under(from, "examples")
	switch {
	case slices.Contains(leaves, from):
		return "a leaf imports the standard library only"
	case core && under(own, "adapters"):
		return "the core never imports an adapter"
	case under(from, "examples") && (under(own, "internal") || strings.Contains(own, "/internal")):
		return "examples use the public API only"
	case from == "adapters/llamacpp" && !slices.Contains(leaves, own):
		return "a provider implements the leaf contracts and imports nothing above them"
	}
	return ""
}

// under reports whether the module-relative path p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func isKnownDebt(from, imp string) bool {
	own := strings.TrimPrefix(imp, module+"/")
	for edge := range knownDebt {
		f, to, _ := strings.Cut(edge, " -> ")
		if f == from && (to == own || strings.HasSuffix(to, "/...") && under(own, strings.TrimSuffix(to, "/..."))) {
			return true
		}
	}
	return false
}

// TestLayeringCatchesAnAdapterImport proves the rule bites: a core package
// that imported an adapter would be reported.
func TestLayeringCatchesAnAdapterImport(t *testing.T) {
	got := layeringViolations(t, []pkg{
		{ImportPath: module + "/gardener", Imports: []string{module + "/adapters/llamacpp"}},
		{ImportPath: module + "/model", Imports: []string{"context", module + "/forest"}},
		{ImportPath: module + "/examples/agent", Imports: []string{module + "/internal/envelope"}},
		{ImportPath: module + "/adapters/llamacpp", Imports: []string{module + "/gardener", module + "/model"}},
	})
	if len(got) != 4 {
		t.Fatalf("want 4 violations, got %d: %q", len(got), got)
	}
}
