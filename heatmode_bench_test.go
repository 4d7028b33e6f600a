// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/trails"
)

// BenchmarkHeatMode is locate and harvest on the fixture warmed by one
// successful hunt per node title (every node and index hot, each on
// its own topic), read unconditioned and conditioned: issue 34 asks the
// conditioned reading to cost within 10% of the unconditioned one.
func BenchmarkHeatMode(b *testing.B) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(b)
	v, err := Open(ctx, dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	ids, err := v.cat.IDs(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for i, id := range ids {
		rec, err := v.resolver.resolve(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		hunt := WithSession(ctx, fmt.Sprintf("warm-%d", i))
		if _, err := v.Locate(hunt, rec.Title, LocateOptions{K: 1}); err != nil {
			b.Fatal(err)
		}
		if _, err := v.CloseSession(hunt, true, []string{id}); err != nil {
			b.Fatal(err)
		}
	}
	const locateQ, harvestQ = "Which radio channel do boats check in on at night?", "storm alert thresholds for the Tidewatch buoys"
	ops := []struct {
		name string
		call func() error
	}{
		{"locate", func() error { _, err := v.Locate(ctx, locateQ, LocateOptions{}); return err }},
		{"harvest", func() error { _, err := v.Harvest(ctx, harvestQ, HarvestOptions{}); return err }},
	}
	for _, op := range ops {
		for _, mode := range []trails.HeatMode{trails.Unconditioned, trails.Conditioned} {
			b.Run(op.name+"/"+string(mode), func(b *testing.B) {
				if err := v.SetHeatMode(ctx, mode); err != nil {
					b.Fatal(err)
				}
				for range 50 { // the heat copy, the index copies and the memo settle
					if err := op.call(); err != nil {
						b.Fatal(err)
					}
				}
				var laps []time.Duration
				for b.Loop() {
					start := time.Now()
					if err := op.call(); err != nil {
						b.Fatal(err)
					}
					laps = append(laps, time.Since(start))
				}
				// The median: on a loaded machine the mean is the
				// neighbours' load more than this code's.
				slices.Sort(laps)
				b.ReportMetric(float64(laps[len(laps)/2].Nanoseconds()), "p50-ns")
			})
		}
	}
}
