// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"slices"
	"testing"
	"time"
)

// The 5,000-node synthetic forest is built once per benchmark process.

// BenchmarkLocate measures warm locate calls and reports the median
// (p50-ns) beside the mean ns/op; the target is a median under 0.3 ms on
// the fixture.
func BenchmarkLocate(b *testing.B) {
	cases := []struct {
		name  string
		open  func(*testing.B) *Vine
		query string
		opt   LocateOptions
	}{
		{"fixture/question", benchFixture, "Which radio channel do boats check in on at night?", LocateOptions{}},
		{"fixture/one-word", benchFixture, "Tidewatch", LocateOptions{}},
		{"fixture/code", benchFixture, "TW-2", LocateOptions{}},
		{"fixture/outline-notes-window", benchFixture, "Tidewatch buoys",
			LocateOptions{Scope: "notes", Include: []string{"outline"}, Since: "2025-10", Until: "2026-10"}},
		{"fixture/miss", benchFixture, "xylophone zeppelin", LocateOptions{}},
		{"synthetic-5000/question", synthetic5000, "what did the skipper report about the storm beacon?", LocateOptions{}},
		{"synthetic-5000/code", synthetic5000, "SY-4217", LocateOptions{}},
		{"synthetic-5000/branches", synthetic5000, "harbour mooring", LocateOptions{Scope: "branches"}},
		{"synthetic-5000/window", synthetic5000, "storm beacon", LocateOptions{Since: "2025-06", Until: "2025-06"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v := c.open(b)
			ctx := context.Background()
			if _, err := v.Locate(ctx, c.query, c.opt); err != nil { // warm statements and the fold table
				b.Fatal(err)
			}
			var laps []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := v.Locate(ctx, c.query, c.opt); err != nil {
					b.Fatal(err)
				}
				laps = append(laps, time.Since(start))
			}
			slices.Sort(laps)
			b.ReportMetric(float64(laps[len(laps)/2].Nanoseconds()), "p50-ns")
		})
	}
}
