package vine

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoTerms lists the memoized terms with their row counts.
func memoTerms(t *testing.T, v *Vine) map[string]int {
	t.Helper()
	out := map[string]int{}
	require.NoError(t, v.eachRow(context.Background(), "SELECT term, count(*) FROM sniff_memo GROUP BY term", nil,
		func(rows *sql.Rows) error {
			var term string
			var n int
			err := rows.Scan(&term, &n)
			out[term] = n
			return err
		}))
	return out
}

func TestMemoEvictsTheTermsStoredLeastRecently(t *testing.T) {
	v, _ := writableFixture(t)
	nodes, err := v.stmts.count(context.Background(), "SELECT count(*) FROM nodes")
	require.NoError(t, err)
	defer func(b int64) { memoRowBudget = b }(memoRowBudget)
	memoRowBudget = int64(2*nodes + nodes/2) // room for two whole-forest terms

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
		assert.LessOrEqual(t, int64(total), memoRowBudget, "after %s", term)
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
	memoBacklog.Store(maxMemoBacklog) // a writer far behind
	want := sniffJSON(t, v, `{"terms": ["skipper"]}`)
	v.background.Wait()
	assert.NotContains(t, memoTerms(t, v), "skipper", "a scan past the bound is not stored")
	memoBacklog.Store(0)

	assert.Equal(t, want, sniffJSON(t, v, `{"terms": ["skipper"]}`), "the answer does not depend on the memo")
	v.background.Wait()
	assert.Contains(t, memoTerms(t, v), "skipper", "stored once the writer caught up")
	assert.Zero(t, memoBacklog.Load(), "the backlog is given back after the write")
}

func TestReserveMemoBacklog(t *testing.T) {
	defer memoBacklog.Store(0)
	memoBacklog.Store(0)
	assert.True(t, reserveMemoBacklog(maxMemoBacklog*3), "an empty backlog takes a scan of any size")
	assert.False(t, reserveMemoBacklog(1), "a full one takes nothing")
	memoBacklog.Store(maxMemoBacklog - 10)
	assert.True(t, reserveMemoBacklog(10))
	assert.False(t, reserveMemoBacklog(1))
	assert.Equal(t, int64(maxMemoBacklog), memoBacklog.Load())
}

// foldCacheBytes encodes a cache of the given bodies, in order.
func foldCacheBytes(t *testing.T, ids []string, bodies []string) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(foldCacheMagic)
	for i, id := range ids {
		b.Write(appendFoldEntry(nil, id, BodyHash(bodies[i]), bodies[i]))
	}
	return b.Bytes()
}

func TestFoldRunsReadNeighboursTogether(t *testing.T) {
	var ids, bodies []string
	hashes := map[string]string{}
	for i := range 8 {
		id := fmt.Sprintf("n%d", i)
		body := string(bytes.Repeat([]byte{'a' + byte(i)}, 1000))
		if i == 5 {
			body = string(bytes.Repeat([]byte("x"), maxFoldGap+1)) // a gap too wide to read through
		}
		ids, bodies = append(ids, id), append(bodies, body)
		hashes[id] = BodyHash(body)
	}
	c, err := parseFoldCache(foldCacheBytes(t, ids, bodies))
	require.NoError(t, err)
	bodyOf := map[string]string{}
	for i, id := range ids {
		bodyOf[id] = bodies[i]
	}

	want := []string{"n0", "n1", "n3", "n6", "n7", "stale", "missing"} // n2, n4 are not asked for
	hashes["stale"] = BodyHash("changed")
	runs, direct := foldRuns(c, want, hashes)
	assert.Equal(t, []int{5, 6}, direct, "stale and missing bodies are read from their files")
	require.Len(t, runs, 2, "a small gap is read through, a wide one splits the run")
	var got [][]string
	for _, r := range runs {
		var names []string
		buf := make([]byte, r.size())
		ra, done, err := c.open()
		require.NoError(t, err)
		_, err = ra.ReadAt(buf, r.start)
		require.NoError(t, err)
		require.NoError(t, done())
		for _, e := range r.entries {
			names = append(names, want[e.i])
			folded := buf[e.off-r.start:][:e.n]
			assert.Equal(t, bodyOf[want[e.i]], string(folded))
		}
		got = append(got, names)
	}
	assert.Equal(t, [][]string{{"n0", "n1", "n3"}, {"n6", "n7"}}, got)
}

func TestFoldRunsSplitAtTheRunSize(t *testing.T) {
	var ids, bodies []string
	hashes := map[string]string{}
	for i := range 10 {
		id := fmt.Sprintf("n%d", i)
		body := string(bytes.Repeat([]byte("b"), maxFoldRun/4))
		ids, bodies = append(ids, id), append(bodies, body)
		hashes[id] = BodyHash(body)
	}
	c, err := parseFoldCache(foldCacheBytes(t, ids, bodies))
	require.NoError(t, err)
	runs, direct := foldRuns(c, ids, hashes)
	assert.Empty(t, direct)
	covered := 0
	for _, r := range runs {
		assert.LessOrEqual(t, r.size(), maxFoldRun)
		covered += len(r.entries)
	}
	assert.Equal(t, len(ids), covered)
	assert.Greater(t, len(runs), 2)
}

func TestFoldCacheNoticesAReplacedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bodies.fold")
	write := func(body string) {
		w, err := newFoldCacheWriter(path)
		require.NoError(t, err)
		w.add("a", body)
		require.NoError(t, w.commit())
	}
	write("first")
	c, err := loadFoldCache(path)
	require.NoError(t, err)
	got, ok := c.fresh("a", BodyHash("first"))
	require.True(t, ok)
	assert.Equal(t, "first", string(got))

	write("second, longer") // renamed over the indexed file
	_, _, err = c.open()
	assert.ErrorIs(t, err, errFoldReplaced)
	_, ok = c.fresh("a", BodyHash("first"))
	assert.False(t, ok, "a stale index answers nothing from the new file")

	require.NoError(t, os.Remove(path))
	_, _, err = c.open()
	assert.ErrorIs(t, err, os.ErrNotExist)
	none, err := loadFoldCache(path)
	assert.NoError(t, err)
	assert.Nil(t, none, "a missing file is no cache")
}
