package vine

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fold cache, like the memo, may change latency and nothing else:
// present, missing, damaged or stale, sniff answers the same bytes.
func TestFoldCacheIsInvisible(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := context.Background()
	path := foldCachePath(dir)
	require.FileExists(t, path, "the opening reindex wrote the cache")
	args := `{"terms": ["skipper", "navegação"], "scope": "operations", "k": 20}`
	cold := func() string {
		v.background.Wait()
		clearMemo(t, v)
		return sniffJSON(t, v, args)
	}
	want := cold()

	require.NoError(t, os.Remove(path))
	v.folds.forget()
	assert.Equal(t, want, cold(), "no cache")

	require.NoError(t, os.WriteFile(path, []byte("not a cache"), 0o644))
	v.folds.forget()
	assert.Equal(t, want, cold(), "damaged cache")

	require.NoError(t, v.refreshFoldCache(ctx))
	c, release := v.folds.acquire(v.loadFolds)
	require.NotNil(t, c, "refresh rebuilt it")
	assert.Positive(t, len(c.entries))
	release()
	assert.Equal(t, want, cold(), "rebuilt cache")

	// A write makes its node's entry stale: the scan must read the file.
	_, err := v.Graft(ctx, "operations/radio-schedule", GraftPatch{AppendSection: &SectionEdit{
		Header: "Late note", Body: "The skipper logged it."}})
	require.NoError(t, err)
	after := cold()
	assert.NotEqual(t, want, after)
	assert.Contains(t, after, "operations/radio-schedule")
	require.NoError(t, v.refreshFoldCache(ctx))
	assert.Equal(t, after, cold(), "refreshed after the write")
}

func TestFoldCacheRoundTrip(t *testing.T) {
	path := t.TempDir() + "/bodies.fold"
	w, err := newFoldCacheWriter(path)
	require.NoError(t, err)
	w.add("a/b", "Maré ALTA\nsecond line")
	w.add("c", "")
	require.NoError(t, w.commit())
	c, err := loadFoldCache(path)
	require.NoError(t, err)
	defer c.close()
	got, ok := c.fresh("a/b", BodyHash("Maré ALTA\nsecond line"))
	require.True(t, ok)
	assert.Equal(t, "mare alta\nsecond line", string(got))
	_, ok = c.fresh("a/b", BodyHash("other"))
	assert.False(t, ok, "a changed body is stale")
	_, ok = c.fresh("c", BodyHash(""))
	assert.True(t, ok)
	_, ok = c.fresh("missing", BodyHash(""))
	assert.False(t, ok)
}

func FuzzParseFoldCache(f *testing.F) {
	f.Add([]byte(foldCacheMagic))
	f.Add([]byte(foldCacheMagic + "\x03abc"))
	f.Add([]byte(foldCacheMagic + "\x01a" + string(make([]byte, 32)) + "\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseFoldCache(data)
		if err != nil {
			return
		}
		for id, e := range c.entries {
			if len(id) > len(data) || len(e.folded) > len(data) {
				t.Fatalf("entry larger than the file")
			}
		}
	})
}
