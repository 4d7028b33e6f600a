package vine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
)

// The 5,000-node synthetic forest is built once per benchmark process.
var (
	locateSynthOnce sync.Once
	locateSynthDir  string
	locateSynthErr  error
)

// locateSynthetic opens the shared synthetic forest read-only (the first
// read-only open of an empty catalog indexes it).
func locateSynthetic(b *testing.B) *Vine {
	b.Helper()
	ctx := context.Background()
	locateSynthOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vine-locate-synthetic-")
		if err != nil {
			locateSynthErr = err
			return
		}
		locateSynthDir = filepath.Join(dir, "forest")
		if locateSynthErr = fixture.Synthetic(ctx, locateSynthDir, fixture.SyntheticOptions{Nodes: 5000}); locateSynthErr != nil {
			return
		}
		v, err := Open(ctx, locateSynthDir, &Options{ReadOnly: true})
		if err != nil {
			locateSynthErr = err
			return
		}
		locateSynthErr = v.Close()
	})
	if locateSynthErr != nil {
		b.Fatalf("synthetic forest: %v", locateSynthErr)
	}
	v, err := Open(ctx, locateSynthDir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

func locateBenchFixture(b *testing.B) *Vine {
	b.Helper()
	dir, _ := testforest.Fixture(b)
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

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
		{"fixture/question", locateBenchFixture, "Which radio channel do boats check in on at night?", LocateOptions{}},
		{"fixture/one-word", locateBenchFixture, "Tidewatch", LocateOptions{}},
		{"fixture/code", locateBenchFixture, "TW-2", LocateOptions{}},
		{"fixture/outline-notes-window", locateBenchFixture, "Tidewatch buoys",
			LocateOptions{Scope: "notes", Include: []string{"outline"}, Since: "2025-10", Until: "2026-10"}},
		{"fixture/miss", locateBenchFixture, "xylophone zeppelin", LocateOptions{}},
		{"synthetic-5000/question", locateSynthetic, "what did the skipper report about the storm beacon?", LocateOptions{}},
		{"synthetic-5000/code", locateSynthetic, "SY-4217", LocateOptions{}},
		{"synthetic-5000/branches", locateSynthetic, "harbour mooring", LocateOptions{Scope: "branches"}},
		{"synthetic-5000/window", locateSynthetic, "storm beacon", LocateOptions{Since: "2025-06", Until: "2025-06"}},
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
