// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkHeatRead is the heat read of a locate's pool (25 ids) from a
// store of 2,000 warm nodes, each laid on a five-term topic, read per
// node and conditioned on a five-term question: the cost issue 34 adds
// to every ranked read.
func BenchmarkHeatRead(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "trails.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Unix(1_700_000_000, 0)
	var ids []string
	for i := range 2000 {
		id := fmt.Sprintf("n%04d", i)
		ids = append(ids, id)
		topic := TopicOf([]string{fmt.Sprint("t", i%97), fmt.Sprint("u", i%89), fmt.Sprint("v", i%83), "w", "x"})
		if err := s.DepositTopic(ctx, []string{id}, topic, 0.1, now); err != nil {
			b.Fatal(err)
		}
	}
	pool := ids[100:125]
	question := TopicOf([]string{"t3", "u5", "v7", "w", "y"})
	for _, mode := range []HeatMode{Unconditioned, Conditioned} {
		b.Run(string(mode), func(b *testing.B) {
			if err := s.SetMode(ctx, mode); err != nil {
				b.Fatal(err)
			}
			for range 100 { // the copy is built once the reads pay for it
				if _, err := s.HeatFor(ctx, pool, "", question); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, err := s.HeatFor(ctx, pool, "", question); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
