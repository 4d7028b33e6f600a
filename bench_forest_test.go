// SPDX-License-Identifier: Apache-2.0

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
	benchForests   = map[string]string{}
)

// benchCorpusOptions is the sniff corpus of the targets: 2,000 documents
// of about 6 KB (about 12 MB) in four sections each, over a 20,000-word
// Zipf vocabulary, so a rare term is rare.
var benchCorpusOptions = fixture.SyntheticOptions{Nodes: 2000, Vocabulary: 20000, BodySentences: 44, Sections: 4}

// benchCorpus opens the 2,000-document corpus read-only.
func benchCorpus(b *testing.B) *Vine { return benchOpen(b, "corpus-2000", benchCorpusOptions) }

// benchSynthetic opens (read-only, catalog built) the synthetic forest of
// the given number of leaves.
func benchSynthetic(b *testing.B, nodes int) *Vine {
	return benchOpen(b, fmt.Sprintf("synthetic-%d", nodes), fixture.SyntheticOptions{Nodes: nodes})
}

// benchOpen generates (once per process) and opens a synthetic forest.
func benchOpen(b *testing.B, name string, opt fixture.SyntheticOptions) *Vine {
	b.Helper()
	benchForestsMu.Lock()
	dir, ok := benchForests[name]
	if !ok {
		dir = filepath.Join(sharedTempDir(b), name)
		if err := fixture.Synthetic(context.Background(), dir, opt); err != nil {
			benchForestsMu.Unlock()
			b.Fatal(err)
		}
		benchForests[name] = dir
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
