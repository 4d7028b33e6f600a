// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/gardener/internal/corpus"
)

// TestAdoptGeneratedCorpus adopts 2,000 generated documents: every one
// lands as its own commit, the forest validates, a second sync changes
// nothing, and a changed and a deleted file are seen.
func TestAdoptGeneratedCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("adopts a generated corpus")
	}
	n := 200
	if os.Getenv("VINE_TEST_LONG") == "1" && !raceDetector {
		n = 2000 // the full corpus: VINE_TEST_LONG=1, without -race (.ci/run)
	}
	ctx := context.Background()
	v := newForest(t)
	src := filepath.Join(t.TempDir(), "corpus")
	files, err := corpus.Generate(src, corpus.Options{Files: n, Seed: 7})
	require.NoError(t, err)

	start := time.Now()
	rep, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	elapsed := time.Since(start)
	t.Logf("adopted %d documents and %d branches in %v (%.0f documents/s)",
		len(rep.Planted), len(rep.Branches), elapsed, float64(len(rep.Planted))/elapsed.Seconds())

	require.Empty(t, rep.Errors)
	require.Len(t, rep.Planted, len(files))
	assert.Len(t, subjects(t, v), 1+len(rep.Planted)+len(rep.Branches), "one commit per document and branch")
	validate(t, v)

	before := head(t, v)
	rep, err = New(v, nil).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Len(t, rep.Unchanged, len(files))
	assert.Empty(t, rep.Updated)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, before, head(t, v), "an unchanged tree makes no commit")

	changed, deleted := files[10], files[20]
	writeFile(t, src, changed, []byte("# Rewritten\n\nThe whole document was rewritten for the test.\n"))
	require.NoError(t, os.Remove(filepath.Join(src, filepath.FromSlash(deleted))))
	rep, err = New(v, nil).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Len(t, rep.Updated, 1)
	assert.Len(t, rep.Stale, 1)
	assert.Len(t, rep.Unchanged, len(files)-2)
}

// BenchmarkAdopt measures adoption throughput of plain-text documents
// without a model, one commit each (target: 100 documents/s).
func BenchmarkAdopt(b *testing.B) {
	const n = 200
	src := filepath.Join(b.TempDir(), "corpus")
	if _, err := corpus.Generate(src, corpus.Options{Files: n, Seed: 3}); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		v := newForest(b)
		b.StartTimer()
		start := time.Now()
		rep, err := New(v, nil).Adopt(context.Background(), src, "")
		total += time.Since(start)
		if err != nil || len(rep.Planted) != n {
			b.Fatalf("adopt: %v (%d planted)", err, len(rep.Planted))
		}
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "docs/s")
}
