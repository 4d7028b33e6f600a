// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"testing"

	"github.com/monkeyllm/vine/internal/adjacency"
)

func BenchmarkMove(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name string
		open func(*testing.B) *Vine
		id   string
		opt  MoveOptions
	}{
		{"fixture/out", benchFixture, "products/tidewatch-buoy", MoveOptions{}},
		{"fixture/both-hub", benchFixture, "organizations/mare-alta", MoveOptions{Direction: DirectionBoth}},
		{"fixture/children", benchFixture, "projects/_index", MoveOptions{Rel: "children"}},
		{"synthetic5000/both", synthetic5000, syntheticLeafID, MoveOptions{Direction: DirectionBoth}},
		{"synthetic5000/children", synthetic5000, "region-00/topic-0000/_index", MoveOptions{Rel: "children"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v := c.open(b)
			// Warm: the first move of a catalog generation reads the adjacency copy.
			if _, err := v.Move(ctx, c.id, c.opt); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Move(ctx, c.id, c.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMoveCall is move as an agent calls it: through Call, argument
// decoding and the trace event included (issue target: median ≤ 6 µs).
func BenchmarkMoveCall(b *testing.B) {
	ctx := context.Background()
	v := benchFixture(b)
	args := []byte(`{"id": "products/tidewatch-buoy"}`)
	if _, err := v.Call(ctx, "move", args); err != nil { // warm, as above
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Call(ctx, "move", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMoveAdjacencyBuild is what the first move of a catalog
// generation pays once: reading the adjacency copy.
func BenchmarkMoveAdjacencyBuild(b *testing.B) {
	v := synthetic5000(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := adjacency.Build(ctx, v.cat); err != nil {
			b.Fatal(err)
		}
	}
}
