// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"testing"
)

func BenchmarkSniff(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		open func(*testing.B) *Vine
	}{
		{"fixture", benchFixture},
		{"synthetic2000", func(b *testing.B) *Vine { return benchSynthetic(b, 2000) }},
		{"corpus2000-12MB", benchCorpus},
	} {
		terms := []string{"SY-1217", "Chapter 3"}
		b.Run(tc.name+"/warm", func(b *testing.B) {
			v := tc.open(b)
			if _, err := v.Sniff(ctx, terms, SniffOptions{}); err != nil {
				b.Fatal(err)
			}
			v.background.Wait()
			for b.Loop() {
				if _, err := v.Sniff(ctx, terms, SniffOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/cold", func(b *testing.B) {
			v := tc.open(b)
			for b.Loop() {
				b.StopTimer()
				v.background.Wait()
				clearMemoB(b, v)
				b.StartTimer()
				if _, err := v.Sniff(ctx, terms, SniffOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func clearMemoB(b *testing.B, v *Vine) {
	if err := v.cat.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec("DELETE FROM sniff_memo")
		return err
	}); err != nil {
		b.Fatal(err)
	}
	v.sniffer.DropHot() // and its copy in memory: a cold scan reads bodies
}
