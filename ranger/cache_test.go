// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/ranger"
)

// cacheFile writes a cache entry of size bytes last used age ago.
func cacheFile(t *testing.T, dir, name string, size int, age time.Duration) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(ranger.PayloadCacheDir), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, make([]byte, size), 0o644))
	when := time.Now().Add(-age)
	require.NoError(t, os.Chtimes(p, when, when))
	return p
}

func TestEvictPayloadCache(t *testing.T) {
	tests := []struct {
		name    string
		gb      float64
		want    ranger.CacheResult
		evicted []string
	}{
		{"under the cap keeps everything", 5, ranger.CacheResult{Evicted: 0, KeptBytes: 3500}, nil},
		{"least recently used go first", 2e-6, ranger.CacheResult{Evicted: 2, KeptBytes: 1000},
			[]string{"aaaa-old.db", "bbbb-older.pdf"}},
		{"exactly at the cap stays", 3.5e-6, ranger.CacheResult{Evicted: 0, KeptBytes: 3500}, nil},
		{"zero keeps nothing", 0, ranger.CacheResult{Evicted: 3, KeptBytes: 0},
			[]string{"aaaa-old.db", "bbbb-older.pdf", "cccc-fresh.png"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, dir, _ := openFixture(t, nil)
			cacheFile(t, dir, "bbbb-older.pdf", 500, 3*time.Hour)
			cacheFile(t, dir, "aaaa-old.db", 2000, 2*time.Hour)
			cacheFile(t, dir, "cccc-fresh.png", 1000, time.Minute)
			part := cacheFile(t, dir, "dddd-fetching.db.part", 4000, 5*time.Hour)
			hidden := cacheFile(t, dir, ".vine-tmp", 4000, 5*time.Hour)
			tree := testforest.TreeDigest(t, dir)

			cfg := ranger.DefaultConfig()
			cfg.PayloadCacheGB = tc.gb
			got, err := newRanger(t, v, ranger.WithConfig(cfg)).EvictPayloadCache(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			for _, name := range []string{"aaaa-old.db", "bbbb-older.pdf", "cccc-fresh.png"} {
				_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ranger.PayloadCacheDir), name))
				assert.Equal(t, slices.Contains(tc.evicted, name), os.IsNotExist(err), name)
			}
			assert.FileExists(t, part, "a download in flight is never evicted")
			assert.FileExists(t, hidden)
			assert.Equal(t, tree, testforest.TreeDigest(t, dir), "eviction touches _derived only")
		})
	}
}

func TestEvictPayloadCacheWithoutACache(t *testing.T) {
	v, _, _ := openFixture(t, nil)
	got, err := newRanger(t, v).EvictPayloadCache(context.Background())
	require.NoError(t, err)
	assert.Equal(t, ranger.CacheResult{}, got)
}
