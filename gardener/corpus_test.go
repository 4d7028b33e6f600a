// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
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

// BenchmarkAdoptMan measures adoption of real text: the manual pages
// VINE_BENCH_MAN names (built by build_man_corpus.sh), first the first 200
// of them in walk order, then all. Issue 26 asks for ≥ 200 docs/s on the
// whole corpus and a rate on all within 20% of the rate on 200: a
// per-document cost that grows with the forest shows as the gap.
//
//	VINE_BENCH_MAN=DIR go test -run '^$' -bench AdoptMan -benchtime 1x ./gardener
func BenchmarkAdoptMan(b *testing.B) {
	src := os.Getenv("VINE_BENCH_MAN")
	if src == "" {
		b.Skip("set VINE_BENCH_MAN to a corpus built by build_man_corpus.sh")
	}
	files := sourceFiles(b, src)
	first := filepath.Join(b.TempDir(), "first")
	for _, rel := range files[:min(200, len(files))] {
		copyFile(b, filepath.Join(src, rel), filepath.Join(first, rel))
	}
	b.Run("n=200", func(b *testing.B) { benchAdoptDir(b, first, min(200, len(files))) })
	b.Run("n=all", func(b *testing.B) { benchAdoptDir(b, src, len(files)) })
}

// benchAdoptDir adopts src (n documents) into a new forest per iteration
// and reports documents per second (of wall time, and of the process's
// CPU time, steadier on a shared machine) and the size of the forest's git
// objects.
func benchAdoptDir(b *testing.B, src string, n int) {
	var total, cpu time.Duration
	var steps stepClock
	var loose int64
	for b.Loop() {
		b.StopTimer()
		v := newForest(b)
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		rep, err := New(v, &Options{Progress: steps.tick}).Adopt(context.Background(), src, "")
		total += time.Since(start)
		cpu += cpuTime() - cpu0
		if err != nil || len(rep.Planted) != n {
			b.Fatalf("adopt: %v (%d planted of %d, errors %v)", err, len(rep.Planted), n, rep.Errors)
		}
		b.StopTimer()
		loose = dirSize(b, filepath.Join(v.Dir(), ".git", "objects"))
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "docs/s")
	if cpu > 0 {
		b.ReportMetric(float64(n*b.N)/cpu.Seconds(), "docs/cpu-s")
	}
	b.ReportMetric(float64(loose)/(1<<20), "git-MiB")
	if r200, rall, ok := steps.rates(n); ok {
		b.ReportMetric(r200, "steps-200/s")
		b.ReportMetric(rall/r200, "in-run-ratio")
	}
}

// stepClock times an adopt's steps. The first 200 steps of a run over
// the whole corpus are the n=200 benchmark's work (the same files into
// an empty forest), so the rate over them against the rate over every
// step measures how the per-document cost grows, within one process:
// between processes this machine's speed drifts by a fifth, which
// swamps the two separate runs' ratio. Both rates start at the first
// step's end, so neither holds the walk before it or the finish after.
type stepClock struct {
	first      time.Time
	d200, dall time.Duration // summed over runs
	runs       int
}

func (c *stepClock) tick(p vine.Progress) {
	if p.Op != "adopt" {
		return
	}
	now := time.Now()
	if p.Done == 1 {
		c.first = now
	}
	if p.Done == 200 {
		c.d200 += now.Sub(c.first)
	}
	if p.Done == p.Total {
		c.dall += now.Sub(c.first)
		c.runs++
	}
}

// rates returns the documents per second over steps 2-200 and over steps
// 2-n, for runs of more than 200 documents.
func (c *stepClock) rates(n int) (r200, rall float64, ok bool) {
	if n <= 200 || c.runs == 0 || c.d200 <= 0 || c.dall <= 0 {
		return 0, 0, false
	}
	return float64(199*c.runs) / c.d200.Seconds(), float64((n-1)*c.runs) / c.dall.Seconds(), true
}

// sourceFiles lists the regular files under dir, relative and sorted as
// the Gardener's walk sorts them.
func sourceFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// dirSize is the bytes of the regular files under dir.
func dirSize(tb testing.TB, dir string) int64 {
	tb.Helper()
	var size int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		size += fi.Size()
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return size
}
