// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreBoundsEntriesByLastServed(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	s, err := openStore(ctx, t.TempDir(), StoreOptions{MaxEntries: 2}, now)
	require.NoError(t, err)
	defer s.close()
	for _, k := range []string{"a", "b"} {
		require.NoError(t, s.put(ctx, &entry{key: k, question: k, response: []byte(`{}`), trail: []byte(`[]`)}))
	}
	a, ok, err := s.get(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.served(ctx, a)) // a is now the most recently served
	require.NoError(t, s.put(ctx, &entry{key: "c", question: "c", response: []byte(`{}`), trail: []byte(`[]`)}))
	for k, want := range map[string]bool{"a": true, "b": false, "c": true} {
		_, ok, err := s.get(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, want, ok, "entry %s", k)
	}
	st, err := s.stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, StoreStats{Held: 2, Hits: 1}, st)
}

func TestStoreTTLDeletesOnSight(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := openStore(ctx, t.TempDir(), StoreOptions{TTL: time.Hour}, func() time.Time { return clock })
	require.NoError(t, err)
	defer s.close()
	require.NoError(t, s.put(ctx, &entry{key: "k", question: "q", response: []byte(`{}`), trail: []byte(`[]`)}))
	clock = clock.Add(59 * time.Minute)
	_, ok, err := s.get(ctx, "k")
	require.NoError(t, err)
	assert.True(t, ok)
	clock = clock.Add(2 * time.Minute)
	_, ok, err = s.get(ctx, "k")
	require.NoError(t, err)
	assert.False(t, ok)
	st, err := s.stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Held, "expired entries are deleted, not hidden")
}

func TestStorePricedHitsAndClear(t *testing.T) {
	ctx := context.Background()
	s, err := openStore(ctx, t.TempDir(), StoreOptions{}, time.Now)
	require.NoError(t, err)
	defer s.close()
	require.NoError(t, s.put(ctx, &entry{key: "p", question: "q", response: []byte(`{}`), trail: []byte(`[]`),
		priced: true, usd: 0.25}))
	e, _, err := s.get(ctx, "p")
	require.NoError(t, err)
	require.True(t, e.priced)
	require.NoError(t, s.served(ctx, e))
	require.NoError(t, s.served(ctx, e))
	require.NoError(t, s.missed(ctx))
	require.NoError(t, s.clear(ctx))
	st, err := s.stats(ctx)
	require.NoError(t, err)
	require.NotNil(t, st.AvoidedUSD)
	assert.InDelta(t, 0.5, *st.AvoidedUSD, 1e-9)
	st.AvoidedUSD = nil
	assert.Equal(t, StoreStats{Held: 0, Hits: 2, Misses: 1}, st, "clear keeps the tallies")
}

func TestStoreRecreatesAnOldLayout(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.FromSlash(StorePath))
	s, err := openStore(ctx, dir, StoreOptions{}, time.Now) // makes the directory
	require.NoError(t, err)
	require.NoError(t, s.close())
	db, err := driver.Open("file:" + filepath.ToSlash(path))
	require.NoError(t, err)
	_, err = db.Exec(`DROP TABLE entries; CREATE TABLE entries(key TEXT PRIMARY KEY, question TEXT, response TEXT);
		INSERT INTO entries VALUES ('old', 'q', '{}')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err = openStore(ctx, dir, StoreOptions{}, time.Now)
	require.NoError(t, err)
	defer s.close()
	_, ok, err := s.get(ctx, "old")
	require.NoError(t, err)
	assert.False(t, ok, "a file without fingerprint is recreated, not migrated")
	require.NoError(t, s.put(ctx, &entry{key: "new", question: "q", response: []byte(`{}`), trail: []byte(`[]`),
		fingerprint: "f"}))
	e, ok, err := s.get(ctx, "new")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "f", e.fingerprint)
}

func TestNormalizeAndKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  What   IS\tthe Maré?  ", "what is the maré?"},
		{"Mare\u0301 ALTA", "maré alta"}, // NFD input, NFC key
		{"STRASSE", "strasse"},
	} {
		assert.Equal(t, c.want, normalize(c.in), "%q", c.in)
	}
	a := New(says("x"), &Options{Binding: Binding{Provider: "p", Model: "m"}})
	q1, err := validate("Storm  thresholds?", Params{})
	require.NoError(t, err)
	q2, err := validate("storm thresholds?", Params{})
	require.NoError(t, err)
	assert.Equal(t, a.sweepKey(q1, []string{"Storm"}, 3, Unrestricted), a.sweepKey(q2, []string{"storm"}, 3, Unrestricted))
	assert.NotEqual(t, a.sweepKey(q1, nil, 3, Unrestricted), a.walkKey(q1, nil, Unrestricted, "", ""),
		"a sweep and a walk never share a key")
	w1 := a.walkKey(q1, nil, Unrestricted, "h1", "2031-04-05")
	assert.NotEqual(t, w1, a.walkKey(q1, nil, Unrestricted, "h2", "2031-04-05"))
	assert.NotEqual(t, w1, a.walkKey(q1, nil, Unrestricted, "h1", "2031-04-06"))
	assert.Len(t, w1, 64)
}
