// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"testing"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// writeBenchFixture opens a fresh writable fixture: writes change it, so
// every benchmark gets its own.
func writeBenchFixture(b *testing.B) *Vine {
	b.Helper()
	dir, _ := testforest.Fixture(b)
	v, err := Open(context.Background(), dir, &Options{Now: plantClock})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

func BenchmarkGraftAppendSection(b *testing.B) {
	v := writeBenchFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		patch := GraftPatch{AppendSection: &SectionEdit{Header: fmt.Sprintf("Note %d", i), Body: "Checked."}}
		if _, err := v.Graft(ctx, "operations/ice-supply", patch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGraftSummaryPropagation(b *testing.B) {
	v := writeBenchFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		summary := fmt.Sprintf("Maré Alta cooperative, revision %d: 64 members, 18 boats, founded 2011 in Itapuã.", i)
		patch := GraftPatch{SetFrontmatter: []forest.Field{{Key: "summary", Value: summary}}}
		if _, err := v.Graft(ctx, "organizations/mare-alta", patch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGraftFortifyNoop(b *testing.B) {
	v := writeBenchFixture(b)
	ctx := context.Background()
	patch := GraftPatch{AddLinks: []Link{{Rel: "discovered-shortcut", Target: "concepts/beaufort-scale"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Graft(ctx, "operations/departure-checklist", patch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTransplant(b *testing.B) {
	v := writeBenchFixture(b)
	ctx := context.Background()
	ids := [2]string{"operations/ice-supply", "projects/lighthouse/ice-supply"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := v.Transplant(ctx, ids[i%2], ids[(i+1)%2]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrune(b *testing.B) {
	v := writeBenchFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		id := fmt.Sprintf("operations/probe-%d", i)
		spec := NodeSpec{ID: id, Type: "note", Title: "Probe", Summary: "A probe node planted to be pruned.", Parent: "operations/_index"}
		if _, err := v.Plant(ctx, spec, PlantOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := v.Prune(ctx, id, PruneOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistory(b *testing.B) {
	v := writeBenchFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.History(ctx, "operations/ice-supply", HistoryOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHistoryLong lists 50 of a node's 120 commits, across a move,
// in a repository where other nodes keep changing too.
func BenchmarkHistoryLong(b *testing.B) {
	v := writeBenchFixture(b)
	ctx := context.Background()
	for i := range 120 {
		id := "operations/ice-supply"
		if i >= 60 {
			id = "operations/ice"
		}
		if i == 60 {
			if _, err := v.Transplant(ctx, "operations/ice-supply", id); err != nil {
				b.Fatal(err)
			}
			continue
		}
		for _, target := range []string{id, "operations/crew-rotation"} {
			patch := GraftPatch{AppendSection: &SectionEdit{Header: fmt.Sprintf("Note %d", i), Body: "x"}}
			if _, err := v.Graft(ctx, target, patch); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.History(ctx, "operations/ice", HistoryOptions{Limit: MaxHistoryLimit}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlantIntoFolder plants one node at a time into a folder that
// already holds 200 or 2,000 (each summary about as long as a manual
// page's, so the folder's index is 450 KB at 1,800). The ratio of the two
// is the growth issue 26 measures with the man-page adopt, without the
// corpus and without the rest of the Gardener: what a write into a
// folder costs more as the folder grows.
func BenchmarkPlantIntoFolder(b *testing.B) {
	summary := "A manual page about a command line tool: what it does, its options, " +
		"the files it reads, the environment it honours and the exit status it returns, in short."
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			v := writeBenchFixture(b)
			ctx := context.Background()
			spec := func(i int) NodeSpec {
				id := fmt.Sprintf("operations/bulk/page-%05d", i)
				return NodeSpec{ID: id, Type: "note", Title: id, Summary: summary, Parent: "operations/bulk/_index",
					Body: "Text of the page.", Source: "ingest"}
			}
			branch := NodeSpec{ID: "operations/bulk/_index", Type: "branch", Title: "Bulk",
				Summary: "Pages planted in bulk.", Parent: "operations/_index"}
			if _, err := v.Plant(ctx, branch, PlantOptions{}); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < n; i += MaxBatchPlant {
				var specs []NodeSpec
				for k := i; k < min(n, i+MaxBatchPlant); k++ {
					specs = append(specs, spec(k))
				}
				if _, err := v.PlantBatch(ctx, specs, PlantOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for i := n; b.Loop(); i++ {
				if _, err := v.Plant(ctx, spec(i), PlantOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
