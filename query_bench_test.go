// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/monkeyllm/vine/internal/fixture"
)

var (
	queryBenchOnce sync.Once
	queryBenchDir  string
	queryBenchErr  error
)

// queryBenchForest builds the fixture forest once per benchmark process.
func queryBenchForest(b *testing.B) string {
	b.Helper()
	queryBenchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vine-query-bench-")
		if err != nil {
			queryBenchErr = err
			return
		}
		queryBenchDir = filepath.Join(dir, "mare-alta")
		_, queryBenchErr = fixture.Build(context.Background(), queryBenchDir)
	})
	if queryBenchErr != nil {
		b.Fatal(queryBenchErr)
	}
	return queryBenchDir
}

// BenchmarkQuery runs query on the fixture's ledger (330 rows) through a
// read-only Vine and reports the 95th percentile beside ns/op (target
// p95 < 5 ms).
func BenchmarkQuery(b *testing.B) {
	dir := queryBenchForest(b)
	v, err := Open(context.Background(), dir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	for _, bc := range []struct{ name, sql string }{
		{"aggregate", "SELECT account, SUM(amount) AS total FROM ledger GROUP BY account ORDER BY total DESC"},
		{"point", "SELECT * FROM ledger WHERE rowid = 42"},
		{"filter", "SELECT day, amount FROM ledger WHERE account = 'fuel' AND amount < -400"},
		{"select-star-truncated", "SELECT * FROM ledger"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := v.Query(ctx, ledgerID, bc.sql); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			b.ReportMetric(p95ms(took), "p95-ms")
		})
	}
}

// BenchmarkTend measures one audited write: the statement, the payload
// hash, the passport rewrite and its commit.
func BenchmarkTend(b *testing.B) {
	src := queryBenchForest(b)
	dir := filepath.Join(b.TempDir(), "forest")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	v, err := Open(context.Background(), dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	var took []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		sql := fmt.Sprintf("UPDATE ledger SET memo = 'bench %d' WHERE rowid = %d", i, i%330+1)
		if _, err := v.Tend(ctx, ledgerID, sql); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.ReportMetric(p95ms(took), "p95-ms")
}

func p95ms(took []time.Duration) float64 {
	if len(took) == 0 {
		return 0
	}
	slices.Sort(took)
	return float64(took[(len(took)*95)/100]) / float64(time.Millisecond)
}
