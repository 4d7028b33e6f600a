// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"testing"
)

func BenchmarkPick(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name string
		open func(*testing.B) *Vine
		id   string
		opt  PickOptions
	}{
		{"fixture/whole", benchFixture, "concepts/tide", PickOptions{}},
		{"fixture/section", benchFixture, "library/harbour-handbook", PickOptions{Section: "Chapter 12"}},
		{"fixture/first-page", benchFixture, "library/harbour-handbook", PickOptions{}},
		{"fixture/page-after", benchFixture, "library/harbour-handbook", PickOptions{After: "b40"}},
		{"synthetic5000/whole", synthetic5000, syntheticLeafID, PickOptions{}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v := c.open(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Pick(ctx, c.id, c.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
