// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"math/rand/v2"
	"testing"
)

func benchNearest(b *testing.B, n, dim, k int) {
	ix := randomIndex(b, n, dim, 11)
	r := rand.New(rand.NewPCG(5, 6))
	q := make([]float32, dim)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	Normalize(q)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if len(ix.Nearest(q, k)) != k {
			b.Fatal("short answer")
		}
	}
}

// Target: the exact scan of 2,000 × 1,024 under 3 ms (the pool of a
// hybrid locate, k = 25).
func BenchmarkNearest2000x1024(b *testing.B) { benchNearest(b, 2000, 1024, 25) }

// Target: 100,000 × 384, top 10, under 50 ms.
func BenchmarkNearest100000x384(b *testing.B) { benchNearest(b, 100_000, 384, 10) }

func BenchmarkDot1024(b *testing.B) {
	x, y := make([]float32, 1024), make([]float32, 1024)
	for i := range x {
		x[i], y[i] = float32(i), float32(1024-i)
	}
	var s float32
	for b.Loop() {
		s += Dot(x, y)
	}
	_ = s
}
