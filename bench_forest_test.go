package vine

import (
	"context"
	"fmt"
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
		dir = filepath.Join(sharedTempDir(b), fmt.Sprintf("synthetic-%d", nodes))
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

// synthetic5000 is the 5,000-node forest the entry benchmarks share.
func synthetic5000(b *testing.B) *Vine { return benchSynthetic(b, 5000) }
