// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/sniff"
)

// Hooks for the scale suite (scale_bench_test.go), which lives in package
// vine_test because it benchmarks harvest, a composite importing vine.

// SettleForTest waits for the derived-layer writes calls started after
// answering (the sniff memo, a fold cache refresh), so a benchmark
// measures a warm or a cold state on purpose.
func SettleForTest(v *Vine) { v.background.Wait() }

// ForgetHotMemoForTest empties the in-memory copy of the sniff memo, so
// a benchmark that drops the memo rows measures a cold scan.
func ForgetHotMemoForTest(v *Vine) { v.sniffer.DropHot() }

// SharedTempDirForTest is the test process's shared temporary directory,
// removed by TestMain.
func SharedTempDirForTest(tb testing.TB) string { return sharedTempDir(tb) }

// scaleTestForest generates a nested synthetic forest of n leaves.
func scaleTestForest(t *testing.T, n int, commit bool) (string, *fixture.SyntheticManifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "forest")
	man, err := fixture.GenerateSynthetic(context.Background(), dir, fixture.SyntheticOptions{
		Nodes: n, Nested: true, Vocabulary: 4000, DatasetRows: 300, Commit: commit})
	require.NoError(t, err)
	return dir, man
}

func TestReindexParsesAheadInWalkOrder(t *testing.T) {
	dir, _ := scaleTestForest(t, 1500, false)
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	require.NoError(t, err)
	defer v.Close()

	var walked []string
	_, err = v.root.Walk(func(id, path string) error { walked = append(walked, id); return nil })
	require.NoError(t, err)
	var ids []string
	rows, err := v.cat.DB().Query("SELECT id FROM nodes ORDER BY rowid")
	require.NoError(t, err)
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, errors.Join(rows.Err(), rows.Close()))
	assert.Equal(t, walked, ids, "rows come in walk order, as a one-goroutine rebuild writes them")

	// The cache written from the parsing goroutines is the cache the
	// writer's own add makes, byte for byte.
	want := filepath.Join(t.TempDir(), "bodies.fold")
	w, err := sniff.CreateFoldWriter(want)
	require.NoError(t, err)
	for _, id := range walked {
		n, err := v.readNode(id)
		require.NoError(t, err)
		w.Add(id, n.Body)
	}
	require.NoError(t, w.Commit())
	wantBytes, err := os.ReadFile(want)
	require.NoError(t, err)
	got, err := os.ReadFile(sniff.FoldCachePath(dir))
	require.NoError(t, err)
	assert.Equal(t, wantBytes, got)
}

func TestReindexCancelledMidwayKeepsTheCatalog(t *testing.T) {
	dir, _ := scaleTestForest(t, 1200, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true, Progress: func(p Progress) {
		if p.Done >= 512 {
			cancel()
		}
	}})
	require.NoError(t, err)
	defer v.Close()
	before, err := v.cat.Stats(context.Background())
	require.NoError(t, err)
	cache, err := os.ReadFile(sniff.FoldCachePath(dir))
	require.NoError(t, err)
	goroutines := runtime.NumGoroutine()

	_, err = v.Reindex(ctx)
	require.ErrorIs(t, err, context.Canceled)

	after, err := v.cat.Stats(context.Background())
	require.NoError(t, err)
	assert.Equal(t, before, after, "the old catalog stands")
	again, err := os.ReadFile(sniff.FoldCachePath(dir))
	require.NoError(t, err)
	assert.Equal(t, cache, again, "the old fold cache stands")
	entries, err := os.ReadDir(filepath.Dir(sniff.FoldCachePath(dir)))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no half-written cache is left behind")
	assert.True(t, settles(goroutines), "the parsing goroutines are gone")
}

// settles waits up to five seconds for the goroutine count to fall back
// to n. It polls on the test's own goroutine: assert.Eventually would
// count its own.
func settles(n int) bool {
	for range 500 {
		if runtime.NumGoroutine() <= n {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestReindexReportsUnparsableFilesInWalkOrder(t *testing.T) {
	dir, man := scaleTestForest(t, 300, false)
	bad := []string{man.Sample[3], man.Sample[40]}
	for _, id := range bad {
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(id)+".md"), []byte("no frontmatter\n"), 0o644))
	}
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true, SkipAutoIndex: true})
	require.NoError(t, err)
	defer v.Close()
	res, err := v.Reindex(context.Background())
	require.NoError(t, err)
	require.Len(t, res.Skipped, 2)
	assert.Equal(t, bad[0]+".md", res.Skipped[0].Path)
	assert.Equal(t, bad[1]+".md", res.Skipped[1].Path)
	assert.Contains(t, res.Skipped[0].Reason, "frontmatter")
	_, ok, err := v.cat.Get(context.Background(), bad[0])
	require.NoError(t, err)
	assert.False(t, ok)
}

// TestNestedSyntheticForestValidates holds the generator to the engine's
// own lint: a benchmark forest with errors or warnings would measure
// refusals, not work.
func TestNestedSyntheticForestValidates(t *testing.T) {
	dir, man := scaleTestForest(t, 900, true)
	v, err := Open(context.Background(), dir, &Options{Now: func() time.Time { return fixture.Now }})
	require.NoError(t, err)
	defer v.Close()
	rep, err := v.Validate(context.Background())
	require.NoError(t, err)
	assert.Empty(t, rep.Findings)
	assert.Equal(t, man.Leaves+man.Branches+2, rep.Nodes, "leaves, branches, the dataset and the schema")

	st, err := v.cat.Stats(context.Background())
	require.NoError(t, err)
	assert.Equal(t, man.Edges, st.Edges)
	assert.Equal(t, man.Branches, st.Branches)

	h, err := v.History(context.Background(), man.Sample[0], HistoryOptions{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1, "one commit holds the generated forest")
	rows, err := v.Query(context.Background(), man.Dataset, "SELECT count(*) AS n FROM readings")
	require.NoError(t, err)
	assert.EqualValues(t, 300, rows.Rows[0][0])
}

// SetLocateRowBudgetForTest sets the row budget of locate's term
// selection (0 turns it off) and returns the function restoring it.
func SetLocateRowBudgetForTest(n int) (restore func()) {
	prev := locateRowBudget
	locateRowBudget = n
	return func() { locateRowBudget = prev }
}
