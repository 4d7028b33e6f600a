// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/monkeyllm/vine/internal/fixture"
)

// regionBench holds the forests the region benchmarks stand on, built
// once per benchmark process in the shared temporary directory (removed by
// TestMain): the fixture (about a hundred nodes) and a 5,000-node
// synthetic forest.
var regionBench struct {
	once    sync.Once
	forests map[string]string
	err     error
}

// regionBenchVines opens each benchmark forest read-only.
func regionBenchVines(b *testing.B) map[string]*Vine {
	b.Helper()
	ctx := context.Background()
	regionBench.once.Do(func() {
		root := filepath.Join(sharedTempDir(b), "region-bench")
		fx, syn := filepath.Join(root, "fixture"), filepath.Join(root, "synthetic")
		if _, err := fixture.Build(ctx, fx); err != nil {
			regionBench.err = err
			return
		}
		if err := fixture.Synthetic(ctx, syn, fixture.SyntheticOptions{Nodes: 5000}); err != nil {
			regionBench.err = err
			return
		}
		regionBench.forests = map[string]string{"fixture": fx, "synthetic-5000": syn}
	})
	if regionBench.err != nil {
		b.Fatal(regionBench.err)
	}
	out := map[string]*Vine{}
	for name, dir := range regionBench.forests {
		v, err := Open(ctx, dir, &Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { v.Close() })
		out[name] = v
	}
	return out
}

// regionBenchRun runs fn as a sub-benchmark per forest, fixture first.
func regionBenchRun(b *testing.B, fn func(b *testing.B, v *Vine)) {
	vines := regionBenchVines(b)
	for _, name := range []string{"fixture", "synthetic-5000"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			fn(b, vines[name])
		})
	}
}

func BenchmarkScanRecursiveRoot(b *testing.B) {
	regionBenchRun(b, func(b *testing.B, v *Vine) {
		ctx := context.Background()
		for b.Loop() {
			if _, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScanCursorPage(b *testing.B) {
	regionBenchRun(b, func(b *testing.B, v *Vine) {
		ctx := context.Background()
		after := ""
		for b.Loop() {
			if _, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, After: &after}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScanFiltered(b *testing.B) {
	regionBenchRun(b, func(b *testing.B, v *Vine) {
		ctx := context.Background()
		opt := ScanOptions{Recursive: true, Filter: ScanFilter{"type": "note", "source": "agent"}, Since: "2025"}
		for b.Loop() {
			if _, err := v.Scan(ctx, "_index", opt); err != nil {
				b.Fatal(err)
			}
		}
	})
}
