// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkLook is one REST look end to end (routing, timing, scope,
// engine, encoding), in parallel, on a pool of four readers and on the
// single lane.
func BenchmarkLook(b *testing.B) {
	for _, k := range []int{0, 4} {
		b.Run(fmt.Sprintf("readers=%d", k), func(b *testing.B) {
			s, _ := pooled(b, k)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if code, out := call(s, "look", `{"id":"concepts/tide"}`); code != http.StatusOK {
						b.Fatal(out)
					}
				}
			})
		})
	}
}
