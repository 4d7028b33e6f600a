// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/monkeyllm/vine/canopy"
)

// BenchmarkCanopy measures what the vector layer adds to a read once the
// query or goal is memoised (the embedding itself is the embedder's cost):
// hybrid locate beside plain locate, and look, move and scan ranked by the
// Gauntlet beside the same calls opted out. Medians are reported as
// p50-ns.
func BenchmarkCanopy(b *testing.B) {
	off := false
	for _, forest := range []struct {
		name string
		open func(*testing.B) *Vine
		leaf string
	}{
		{"fixture", benchFixture, "concepts/tide"},
		{"synthetic-5000", synthetic5000, syntheticLeafID},
	} {
		b.Run(forest.name, func(b *testing.B) {
			v := forest.open(b)
			v.SetEmbedder(canopy.NewHash("hash", 384))
			if _, err := v.CanopyBuild(context.Background()); err != nil {
				b.Fatal(err)
			}
			ctx := WithSession(context.Background(), "bench")
			const q = "what did the skipper report about the storm beacon?"
			cases := []struct {
				name string
				run  func() error
			}{
				{"locate/plain", func() error { _, err := v.Locate(ctx, q, LocateOptions{}); return err }},
				{"locate/hybrid", func() error { _, err := v.Locate(ctx, q, LocateOptions{Hybrid: true}); return err }},
				{"look/opted-out", func() error { _, err := v.Look(ctx, forest.leaf, LookOptions{Gauntlet: &off}); return err }},
				{"look/gauntlet", func() error { _, err := v.Look(ctx, forest.leaf, LookOptions{}); return err }},
				{"move/gauntlet", func() error {
					_, err := v.Move(ctx, forest.leaf, MoveOptions{Direction: DirectionBoth})
					return err
				}},
				{"scan-root/opted-out", func() error {
					_, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Gauntlet: &off})
					return err
				}},
				{"scan-root/gauntlet", func() error { _, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true}); return err }},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					if err := c.run(); err != nil { // warm: statements, memo, goal
						b.Fatal(err)
					}
					var laps []time.Duration
					for b.Loop() {
						start := time.Now()
						if err := c.run(); err != nil {
							b.Fatal(err)
						}
						laps = append(laps, time.Since(start))
					}
					slices.Sort(laps)
					b.ReportMetric(float64(laps[len(laps)/2].Nanoseconds()), "p50-ns")
				})
			}
		})
	}
}
