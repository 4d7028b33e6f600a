// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoTerms lists the memoized terms with their row counts.
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
		b.Write(AppendFoldEntry(nil, id, bodyHash(bodies[i]), bodies[i]))
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
		hashes[id] = bodyHash(body)
	}
	c, err := parseFoldCache(foldCacheBytes(t, ids, bodies))
	require.NoError(t, err)
	bodyOf := map[string]string{}
	for i, id := range ids {
		bodyOf[id] = bodies[i]
	}

	want := []string{"n0", "n1", "n3", "n6", "n7", "stale", "missing"} // n2, n4 are not asked for
	hashes["stale"] = bodyHash("changed")
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
		hashes[id] = bodyHash(body)
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
		w, err := CreateFoldWriter(path)
		require.NoError(t, err)
		w.Add("a", body)
		require.NoError(t, w.Commit())
	}
	write("first")
	c, err := loadFoldCache(path)
	require.NoError(t, err)
	got, ok := c.fresh("a", bodyHash("first"))
	require.True(t, ok)
	assert.Equal(t, "first", string(got))

	write("second, longer") // renamed over the indexed file
	_, _, err = c.open()
	assert.ErrorIs(t, err, errFoldReplaced)
	_, ok = c.fresh("a", bodyHash("first"))
	assert.False(t, ok, "a stale index answers nothing from the new file")

	require.NoError(t, os.Remove(path))
	_, _, err = c.open()
	assert.ErrorIs(t, err, os.ErrNotExist)
	none, err := loadFoldCache(path)
	assert.NoError(t, err)
	assert.Nil(t, none, "a missing file is no cache")
}
