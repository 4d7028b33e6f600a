// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"testing"
)

func BenchmarkCalendar(b *testing.B) {
	for _, gran := range []string{GranularityMonth, GranularityWeek} {
		b.Run(gran, func(b *testing.B) {
			regionBenchRun(b, func(b *testing.B, v *Vine) {
				ctx := context.Background()
				for b.Loop() {
					if _, err := v.Calendar(ctx, CalendarOptions{Granularity: gran}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
