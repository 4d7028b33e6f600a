// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine/forest"
)

// PayloadCacheDir is the remote-payload cache (G.9), relative to the
// forest root: re-fetchable, hash-checked copies, safe to evict.
const PayloadCacheDir = forest.DerivedDir + "/payloads"

// partSuffix marks a download in flight (G.9 fetches through a .part
// file); evicting it would break the fetch, so it is never a candidate.
const partSuffix = ".part"

// CacheResult is the outcome of EvictPayloadCache: files removed and the
// bytes the cache still holds.
type CacheResult struct {
	Evicted   int   `json:"evicted"`
	KeptBytes int64 `json:"kept_bytes"`
}

type cached struct {
	path  string
	size  int64
	mtime time.Time
}

// EvictPayloadCache trims the remote-payload cache to payload_cache_gb
// (decimal GB; 0 keeps nothing), least recently used first (H.6). A cache
// hit touches a file's mtime, so mtime order is use order. Only regular
// files count; symlinks, dot-files and downloads in flight are left alone.
// A missing cache directory is {0, 0}. It writes _derived only, never a
// commit.
func (r *Ranger) EvictPayloadCache(ctx context.Context) (CacheResult, error) {
	if err := r.writable("payload cache"); err != nil {
		return CacheResult{}, err
	}
	files, err := cacheFiles(filepath.Join(r.v.Dir(), filepath.FromSlash(PayloadCacheDir)))
	if err != nil {
		return CacheResult{}, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	budget := cacheBudget(r.cfg.PayloadCacheGB)
	res := CacheResult{}
	for _, f := range files {
		if total <= budget {
			break
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
		total -= f.size
		res.Evicted++
	}
	res.KeptBytes = total
	return res, nil
}

// cacheBudget is the cap in bytes: max(gb·1e9, 1), and 0 for 0 GB, which
// the specification defines as keeping nothing.
func cacheBudget(gb float64) int64 {
	if gb <= 0 {
		return 0
	}
	if b := gb * 1e9; b < math.MaxInt64 {
		return max(int64(b), 1)
	}
	return math.MaxInt64
}

// cacheFiles lists the eviction candidates oldest first (mtime, then
// path for a stable order).
func cacheFiles(dir string) ([]cached, error) {
	var files []cached
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		name := d.Name()
		if !d.Type().IsRegular() || strings.HasPrefix(name, ".") || strings.HasSuffix(name, partSuffix) {
			return nil
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		files = append(files, cached{path: p, size: fi.Size(), mtime: fi.ModTime()})
		return nil
	})
	slices.SortFunc(files, func(a, b cached) int {
		return cmp.Or(a.mtime.Compare(b.mtime), strings.Compare(a.path, b.path))
	})
	return files, err
}
