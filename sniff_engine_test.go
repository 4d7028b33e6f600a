// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/sniff"
)

// Whole-forest tests of the sniff engine (internal/sniff), through the
// primitive: the memo, its bookkeeping and the fold cache change latency
// only, never an answer.

func memoTerms(t *testing.T, v *Vine) map[string]int {
	t.Helper()
	out := map[string]int{}
	rows, err := v.cat.DB().Query("SELECT term, count(*) FROM sniff_memo GROUP BY term")
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var term string
		var n int
		require.NoError(t, rows.Scan(&term, &n))
		out[term] = n
	}
	require.NoError(t, rows.Err())
	return out
}

func TestMemoEvictsTheTermsStoredLeastRecently(t *testing.T) {
	v, _ := writableFixture(t)
	nodes, err := v.stmts.count(context.Background(), "SELECT count(*) FROM nodes")
	require.NoError(t, err)
	budget := int64(2*nodes + nodes/2) // room for two whole-forest terms
	defer sniff.SetMemoRowBudgetForTest(budget)()

	terms := []string{"skipper", "buoy", "storm", "ice", "radio"}
	warm := map[string]string{}
	for i, term := range terms {
		args := fmt.Sprintf(`{"terms": [%q], "k": 20}`, term)
		warm[term] = sniffJSON(t, v, args)
		v.background.Wait()
		have := memoTerms(t, v)
		assert.Equal(t, nodes, have[term], "the term just stored is whole")
		total := 0
		for _, n := range have {
			total += n
		}
		assert.LessOrEqual(t, int64(total), budget, "after %s", term)
		if i >= 2 {
			assert.NotContains(t, have, terms[i-2], "the least recently stored term went first")
			assert.Contains(t, have, terms[i-1])
			var covered int
			require.NoError(t, v.cat.DB().QueryRow("SELECT count(*) FROM sniff_cover WHERE term = ?", terms[i-1]).Scan(&covered))
			assert.Equal(t, 1, covered, "evicting %s keeps the marker of %s", terms[i-2], terms[i-1])
		}
	}
	// Eviction changes latency only: every answer is the cold answer.
	for _, term := range terms {
		args := fmt.Sprintf(`{"terms": [%q], "k": 20}`, term)
		assert.Equal(t, warm[term], sniffJSON(t, v, args), term)
		v.background.Wait()
		clearMemo(t, v)
		assert.Equal(t, warm[term], sniffJSON(t, v, args), "%s cold", term)
		v.background.Wait()
	}
}

func TestMemoBookkeepingFollowsReindex(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	sniffJSON(t, v, `{"terms": ["skipper"]}`)
	v.background.Wait()
	var rows int
	require.NoError(t, v.cat.DB().QueryRowContext(ctx, "SELECT rows FROM sniff_terms WHERE term = 'skipper'").Scan(&rows))
	assert.Equal(t, memoTerms(t, v)["skipper"], rows)

	_, err := v.Prune(ctx, "operations/ice-supply", PruneOptions{})
	require.NoError(t, err)
	_, err = v.Reindex(ctx)
	require.NoError(t, err)
	require.NoError(t, v.cat.DB().QueryRowContext(ctx, "SELECT rows FROM sniff_terms WHERE term = 'skipper'").Scan(&rows))
	assert.Equal(t, memoTerms(t, v)["skipper"], rows, "the count follows the rows reindex dropped")
}

func TestMemoBacklogDropsScansPastTheBound(t *testing.T) {
	v, _ := writableFixture(t)
	sniff.SetMemoBacklogForTest(sniff.MaxMemoBacklogForTest) // a writer far behind
	want := sniffJSON(t, v, `{"terms": ["skipper"]}`)
	v.background.Wait()
	assert.NotContains(t, memoTerms(t, v), "skipper", "a scan past the bound is not stored")
	sniff.SetMemoBacklogForTest(0)

	assert.Equal(t, want, sniffJSON(t, v, `{"terms": ["skipper"]}`), "the answer does not depend on the memo")
	v.background.Wait()
	assert.Contains(t, memoTerms(t, v), "skipper", "stored once the writer caught up")
	assert.Zero(t, sniff.MemoBacklogForTest(), "the backlog is given back after the write")
}

func TestFoldCacheIsInvisible(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := context.Background()
	path := sniff.FoldCachePath(dir)
	require.FileExists(t, path, "the opening reindex wrote the cache")
	args := `{"terms": ["skipper", "navegação"], "scope": "operations", "k": 20}`
	cold := func() string {
		v.background.Wait()
		clearMemo(t, v)
		return sniffJSON(t, v, args)
	}
	want := cold()

	require.NoError(t, os.Remove(path))
	v.sniffer.ForgetFolds()
	assert.Equal(t, want, cold(), "no cache")

	require.NoError(t, os.WriteFile(path, []byte("not a cache"), 0o644))
	v.sniffer.ForgetFolds()
	assert.Equal(t, want, cold(), "damaged cache")

	require.NoError(t, v.sniffer.RefreshFolds(ctx))
	assert.Positive(t, v.sniffer.FoldEntries(), "refresh rebuilt it")
	assert.Equal(t, want, cold(), "rebuilt cache")

	// A write makes its node's entry stale: the scan must read the file.
	_, err := v.Graft(ctx, "operations/radio-schedule", GraftPatch{AppendSection: &SectionEdit{
		Header: "Late note", Body: "The skipper logged it."}})
	require.NoError(t, err)
	after := cold()
	assert.NotEqual(t, want, after)
	assert.Contains(t, after, "operations/radio-schedule")
	require.NoError(t, v.sniffer.RefreshFolds(ctx))
	assert.Equal(t, after, cold(), "refreshed after the write")
}

func TestSniffMemoRowsThatCannotBeTrustedAreReadAgain(t *testing.T) {
	for _, tc := range []struct{ name, tamper string }{
		{"rows without line numbers", "UPDATE sniff_memo SET line_nos = ''"},
		{"line numbers that do not parse", "UPDATE sniff_memo SET line_nos = '3,x' WHERE lines != '[]'"},
		{"line numbers out of order", "UPDATE sniff_memo SET line_nos = line_nos || ',1' WHERE lines != '[]'"},
		{"records that do not decode", "UPDATE sniff_memo SET lines = '[[1,' WHERE lines != '[]'"},
		{"records of another body", "UPDATE sniff_memo SET lines = '[[1, null, 0, \"x\"]]' WHERE lines != '[]' AND line_nos != '1'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := writableFixture(t)
			args := `{"terms": ["storm", "alert"], "k": 5}`
			want := sniffJSON(t, v, args)
			v.background.Wait()
			require.Equal(t, want, sniffJSON(t, v, args), "warm equals cold")
			v.background.Wait()
			require.NoError(t, v.cat.Write(context.Background(), func(tx *sql.Tx) error {
				_, err := tx.Exec(tc.tamper)
				return err
			}))
			v.sniffer.DropHot()
			assert.Equal(t, want, sniffJSON(t, v, args))
		})
	}
}
