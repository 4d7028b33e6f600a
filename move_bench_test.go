package vine

import (
	"context"
	"testing"
)

func BenchmarkMove(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name string
		open func(*testing.B) *Vine
		id   string
		opt  MoveOptions
	}{
		{"fixture/out", entryBenchFixture, "products/tidewatch-buoy", MoveOptions{}},
		{"fixture/both-hub", entryBenchFixture, "organizations/mare-alta", MoveOptions{Direction: DirectionBoth}},
		{"fixture/children", entryBenchFixture, "projects/_index", MoveOptions{Rel: "children"}},
		{"synthetic5000/both", entrySynthetic, syntheticLeafID, MoveOptions{Direction: DirectionBoth}},
		{"synthetic5000/children", entrySynthetic, "region-00/topic-0000/_index", MoveOptions{Rel: "children"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v := c.open(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Move(ctx, c.id, c.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
