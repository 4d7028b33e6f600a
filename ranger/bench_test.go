// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/ranger"
	"github.com/monkeyllm/vine/trails"
)

const benchNodes = 2000

// benchForest writes a synthetic forest whose every link is a 0.3
// proposal, gives it a repository, and opens it writable. Every source
// is warmed a little, so a sweep keeps every link (nothing to commit) and
// each iteration measures the same work.
func benchForest(b *testing.B) (*vine.Vine, *ranger.Ranger) {
	b.Helper()
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "synthetic")
	if err := fixture.Synthetic(ctx, dir, fixture.SyntheticOptions{Nodes: benchNodes}); err != nil {
		b.Fatal(err)
	}
	root, err := forest.NewRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	var sources []string
	if _, err := root.Walk(func(id, p string) error {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n, err := forest.Parse(id, data)
		if err != nil {
			return err
		}
		v, _ := n.Front.Get("links")
		items, _ := v.([]any)
		for _, it := range items {
			it.(*forest.Frontmatter).Set("confidence", 0.3)
		}
		if len(items) > 0 {
			sources = append(sources, id)
		}
		return os.WriteFile(p, n.Bytes(), 0o644)
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := gitops.Init(dir); err != nil {
		b.Fatal(err)
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Now: clock})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	if err := v.Trails().Deposit(ctx, "", sources, 0.05, now); err != nil {
		b.Fatal(err)
	}
	r, err := ranger.New(v, ranger.WithClock(clock), ranger.WithoutGC())
	if err != nil {
		b.Fatal(err)
	}
	return v, r
}

func BenchmarkTendLinksSweep(b *testing.B) {
	_, r := benchForest(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		res, err := r.TendLinks(ctx)
		if err != nil || len(res.Pruned)+len(res.Promoted) > 0 {
			b.Fatalf("the sweep should keep every link: %+v %v", res, err)
		}
	}
	b.ReportMetric(float64(benchNodes), "nodes")
}

func BenchmarkHealth(b *testing.B) {
	_, r := benchForest(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Health(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvaporate(b *testing.B) {
	for _, rows := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			s, err := trails.Open(ctx, filepath.Join(b.TempDir(), "trails.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ids := make([]string, rows)
			for i := range ids {
				ids[i] = fmt.Sprintf("n/%06d", i)
			}
			at := now
			if err := s.Deposit(ctx, "", ids, 1, at); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				at = at.Add(time.Minute) // every row decays a little each pass
				if _, err := s.Evaporate(ctx, at, 30*24*time.Hour, 24*time.Hour); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
