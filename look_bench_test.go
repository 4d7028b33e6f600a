// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"testing"
)

// syntheticLeafID is a leaf of the synthetic forest (branch 0, item 0).
const syntheticLeafID = "region-00/topic-0000/item-0000-00"

func BenchmarkLook(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name string
		open func(*testing.B) *Vine
		id   string
	}{
		{"fixture/leaf-hub", benchFixture, "organizations/mare-alta"},
		{"fixture/branch", benchFixture, "projects/_index"},
		{"fixture/dataset", benchFixture, "finance/ledger-2026"},
		{"synthetic5000/leaf", synthetic5000, syntheticLeafID},
		{"synthetic5000/branch", synthetic5000, "region-00/topic-0000/_index"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v := c.open(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Look(ctx, c.id, LookOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
