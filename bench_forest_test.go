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

// Benchmarks share one generated forest per size per process: building a
// 5,000-node forest per benchmark would dwarf what is measured.
var (
	benchForestsMu sync.Mutex
	benchForests   = map[int]string{}
)

// benchSynthetic opens (read-only, catalog built) the synthetic forest of
// the given number of leaves.
func benchSynthetic(b *testing.B, nodes int) *Vine {
	b.Helper()
	benchForestsMu.Lock()
	dir, ok := benchForests[nodes]
	if !ok {
		tmp, err := os.MkdirTemp("", "vine-bench-")
		if err != nil {
			benchForestsMu.Unlock()
			b.Fatal(err)
		}
		dir = filepath.Join(tmp, "forest")
		if err := fixture.Synthetic(context.Background(), dir, fixture.SyntheticOptions{Nodes: nodes}); err != nil {
			benchForestsMu.Unlock()
			b.Fatal(err)
		}
		benchForests[nodes] = dir
	}
	benchForestsMu.Unlock()
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

// benchFixture opens a fresh copy of the generated fixture forest.
func benchFixture(b *testing.B) *Vine {
	b.Helper()
	dir, _ := testforest.Fixture(b)
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}
