package vine

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
)

// The 5,000-node synthetic forest is built once per benchmark process:
// b.TempDir per benchmark would rebuild it each time.
var (
	entrySyntheticOnce sync.Once
	entrySyntheticDir  string
	entrySyntheticErr  error
)

// entrySynthetic opens the shared synthetic forest read-only.
func entrySynthetic(b *testing.B) *Vine {
	b.Helper()
	entrySyntheticOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vine-entry-synthetic-")
		if err != nil {
			entrySyntheticErr = err
			return
		}
		entrySyntheticDir = filepath.Join(dir, "forest")
		ctx := context.Background()
		if err := fixture.Synthetic(ctx, entrySyntheticDir, fixture.SyntheticOptions{Nodes: 5000}); err != nil {
			entrySyntheticErr = err
			return
		}
		// The first open builds the catalog once for every benchmark.
		v, err := Open(ctx, entrySyntheticDir, &Options{ReadOnly: true})
		if err != nil {
			entrySyntheticErr = err
			return
		}
		entrySyntheticErr = v.Close()
	})
	if entrySyntheticErr != nil {
		b.Fatalf("synthetic forest: %v", entrySyntheticErr)
	}
	v, err := Open(context.Background(), entrySyntheticDir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

// entryBenchFixture opens the generated fixture forest.
func entryBenchFixture(b *testing.B) *Vine {
	b.Helper()
	dir, _ := testforest.Fixture(b)
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

// syntheticLeafID is a leaf of the synthetic forest (branch 0, item 0).
const syntheticLeafID = "region-00/topic-0000/item-0000-00"

func BenchmarkLook(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name string
		open func(*testing.B) *Vine
		id   string
	}{
		{"fixture/leaf-hub", entryBenchFixture, "organizations/mare-alta"},
		{"fixture/branch", entryBenchFixture, "projects/_index"},
		{"fixture/dataset", entryBenchFixture, "finance/ledger-2026"},
		{"synthetic5000/leaf", entrySynthetic, syntheticLeafID},
		{"synthetic5000/branch", entrySynthetic, "region-00/topic-0000/_index"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v := c.open(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Look(ctx, c.id, LookOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
