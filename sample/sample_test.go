// SPDX-License-Identifier: Apache-2.0

package sample_test

import (
	"context"
	"slices"
	"testing"

	"github.com/monkeyllm/vine/sample"
)

// TestBuildNamesNodesItWrote: every id the description aims a caller at
// is a node of the forest, and the branches are among the nodes.
func TestBuildNamesNodesItWrote(t *testing.T) {
	dir := t.TempDir()
	f, err := sample.Build(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dir != dir {
		t.Errorf("Dir = %q, want %q", f.Dir, dir)
	}
	if !slices.IsSorted(f.Nodes) || !slices.IsSorted(f.Branches) {
		t.Error("Nodes and Branches must be sorted")
	}
	for _, id := range append([]string{f.Dataset, f.Media, f.Large, f.Accented}, f.Branches...) {
		if _, ok := slices.BinarySearch(f.Nodes, id); !ok {
			t.Errorf("%q is not a node of the sample forest", id)
		}
	}
	if f.Links == 0 {
		t.Error("no declared links")
	}
}
