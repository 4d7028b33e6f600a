// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

// TestScaleLocateQuality measures entry search on the generated forests
// with and without locate's term selection (locateterms.go), on questions
// whose answer is known by construction: each sampled leaf, asked for by
// its title words in three phrasings. Selection must not cost recall.
//
//	VINE_QUALITY=1 VINE_BENCH_SIZES=100000 go test -run TestScaleLocateQuality -v .
func TestScaleLocateQuality(t *testing.T) {
	if os.Getenv("VINE_QUALITY") == "" {
		t.Skip("set VINE_QUALITY=1 (and VINE_BENCH_SIZES, VINE_BENCH_DIR) to measure")
	}
	ctx := context.Background()
	for _, n := range scaleSizes(t) {
		f := scaleForestOf(t, n)
		v := f.open(t)
		type question struct{ q, want string }
		var qs []question
		for _, leaf := range f.Manifest.Sample {
			rec, err := v.Record(ctx, leaf)
			require.NoError(t, err)
			title := strings.TrimSuffix(rec.Title, " "+codeOf(rec.Title))
			qs = append(qs,
				question{"which notes report readings about the " + title + "?", leaf},
				question{title, leaf},
				question{"what do the notes say about the " + title + " readings?", leaf})
		}
		measureQuality := func(label string) (r1, r5, mrr float64) {
			for _, q := range qs {
				res, err := v.Locate(ctx, q.q, vine.LocateOptions{K: 10})
				require.NoError(t, err)
				rank := slices.IndexFunc(res.Results, func(h vine.LocateHit) bool { return h.ID == q.want })
				if rank == 0 {
					r1++
				}
				if rank >= 0 && rank < 5 {
					r5++
				}
				if rank >= 0 {
					mrr += 1 / float64(rank+1)
				}
			}
			k := float64(len(qs))
			t.Logf("n=%d %-18s %d questions: recall@1 %.3f recall@5 %.3f MRR %.3f", n, label, len(qs), r1/k, r5/k, mrr/k)
			return r1 / k, r5 / k, mrr / k
		}
		restore := vine.SetLocateRowBudgetForTest(0)
		_, allR5, allMRR := measureQuality("every term")
		restore()
		_, selR5, selMRR := measureQuality("selected terms")
		assert.GreaterOrEqual(t, selR5, allR5, "recall@5")
		assert.GreaterOrEqual(t, selMRR, allMRR-0.01, "MRR")
	}
}
