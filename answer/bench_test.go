// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"testing"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// BenchmarkSweep measures a sweep around an instant model: retrieval,
// prompt, store and settle, the composite's own cost.
func BenchmarkSweep(b *testing.B) {
	for _, c := range []struct {
		name string
		opt  StoreOptions
		p    Params
	}{
		{"miss-no-store", StoreOptions{Disabled: true}, Params{}},
		{"hit", StoreOptions{}, Params{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			v := benchForest(b)
			a := New(says(alertA), &Options{Store: c.opt})
			defer a.Close()
			if _, err := a.Sweep(ctx, v, alertQ, c.p); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := a.Sweep(ctx, v, alertQ, c.p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWalk measures a three-turn walk around an instant model.
func BenchmarkWalk(b *testing.B) {
	ctx := context.Background()
	v := benchForest(b)
	for b.Loop() {
		a := New(turns(sniffThresholds, pickThresholds, answerThresh), &Options{Store: StoreOptions{Disabled: true}})
		if _, err := a.Walk(ctx, v, alertQ, Params{Hops: 3}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchForest(b *testing.B) *vine.Vine {
	b.Helper()
	dir, _ := testforest.Fixture(b)
	v, err := vine.Open(context.Background(), dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}
