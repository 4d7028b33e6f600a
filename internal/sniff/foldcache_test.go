// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fold cache, like the memo, may change latency and nothing else:
// present, missing, damaged or stale, sniff answers the same bytes.
func TestFoldCacheRoundTrip(t *testing.T) {
	path := t.TempDir() + "/bodies.fold"
	w, err := CreateFoldWriter(path)
	require.NoError(t, err)
	w.Add("a/b", "Maré ALTA\nsecond line")
	w.Add("c", "")
	require.NoError(t, w.Commit())
	c, err := loadFoldCache(path)
	require.NoError(t, err)
	defer c.close()
	got, ok := c.fresh("a/b", bodyHash("Maré ALTA\nsecond line"))
	require.True(t, ok)
	assert.Equal(t, "mare alta\nsecond line", string(got))
	_, ok = c.fresh("a/b", bodyHash("other"))
	assert.False(t, ok, "a changed body is stale")
	_, ok = c.fresh("c", bodyHash(""))
	assert.True(t, ok)
	_, ok = c.fresh("missing", bodyHash(""))
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
