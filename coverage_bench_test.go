// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"testing"
)

func BenchmarkCoverage(b *testing.B) {
	regionBenchRun(b, func(b *testing.B, v *Vine) {
		ctx := context.Background()
		for b.Loop() {
			if _, err := v.Coverage(ctx, CoverageOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
