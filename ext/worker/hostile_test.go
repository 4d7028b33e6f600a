// SPDX-License-Identifier: Apache-2.0

package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/exttest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// hostileWorker runs the hostile extension (exttest.Hostile) with a
// short worker clock and a 1 MiB message cap, on an engine-only host.
func hostileWorker(t *testing.T) *worker.Worker {
	t.Helper()
	tree := exttest.Tree(t, exttest.Hostile)
	data, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	m, err := ext.ParseManifest(data)
	require.NoError(t, err)
	w := worker.New(tree, m, worker.Options{Timeout: time.Second, MaxMessage: 1 << 20,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	t.Cleanup(func() { w.Close() })
	return w
}

// TestHostileWithoutAStation: the isolation is the engine's (spec 11
// L.12): with no Station, the hostile ranking costs harvest at most the
// seam's deadline and names nothing when it hangs or floods, and its
// crashing, raising and hanging converters hand every file of an adopt
// to the built-ins, each failure named in the report (F.183).
func TestHostileWithoutAStation(t *testing.T) {
	w := hostileWorker(t)
	dir, _ := testforest.Fixture(t)
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	v.SetRanker(w.Ranker())
	for _, q := range []string{"harbour tide map hang", "harbour tide map flood"} {
		start := time.Now()
		res, err := v.Harvest(ctx, q, vine.HarvestOptions{K: 4})
		took := time.Since(start)
		require.NoError(t, err, q)
		assert.NotEmpty(t, res.Results, q)
		assert.Empty(t, res.Extensions, "a failed contribution is not named: %s", q)
		assert.Less(t, took, 4*time.Second, "the ranking deadline is 2 s: %s", q)
	}
	require.Eventually(t, func() bool { // the restart pause after the kill
		res, err := v.Harvest(ctx, "harbour tide map", vine.HarvestOptions{K: 4})
		return err == nil && len(res.Extensions) == 1
	}, 30*time.Second, 20*time.Millisecond, "once restarted, its ranking serves again")

	src := t.TempDir()
	for name, body := range map[string]string{"crane-log.txt": "Crane three was serviced.\n",
		"berth-notes.md": "# Berth notes\n\nBerth four is dredged.\n", "moorings.csv": "berth,depth\n4,12\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(src, name), []byte(body), 0o644))
	}
	var convs []gardener.Converter
	for _, c := range w.Converters() {
		convs = append(convs, gardener.ExtensionConverter(w.ID(), c))
	}
	start := time.Now()
	rep, err := gardener.New(v, &gardener.Options{Converters: convs}).Adopt(ctx, src, "operations")
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second, "one hang costs one worker clock")
	assert.Len(t, rep.Planted, 3, "the built-ins took every file: %v", rep.Errors)
	errs := strings.Join(rep.Errors, "\n")
	for _, name := range []string{"crane-log.txt", "berth-notes.md", "moorings.csv"} {
		assert.Contains(t, errs, name)
	}
	assert.Contains(t, errs, "ext:hostile")
}
