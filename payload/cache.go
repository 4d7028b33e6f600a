// SPDX-License-Identifier: Apache-2.0

package payload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"
)

// Cache keeps verified local copies of remote payloads in one directory,
// the forest's _derived/payloads. Entries are named by [CacheName]; a hit
// touches the file's mtime, which is what the Ranger's LRU eviction (H.6)
// orders by. Every entry is re-fetchable and hash-checked, so evicting or
// deleting any of them is always safe.
//
// A Cache is a plain value: copies share the directory, and concurrent
// Gets of one entry, from any number of Caches in the process, fetch it
// once.
type Cache struct {
	// Dir is the cache directory; it is created on the first fetch.
	Dir string
	// Fetcher brings the bytes of a miss.
	Fetcher Fetcher
	// Now is the clock that stamps a hit; nil means time.Now.
	Now func() time.Time
}

// CacheName is the file name of a URI's cache entry (G.9):
// <sha256(uri)[:16]>-<basename>. The hash keeps two payloads with one
// basename apart; the basename keeps the directory readable.
func CacheName(uri string) string {
	sum := sha256.Sum256([]byte(uri))
	return hex.EncodeToString(sum[:])[:16] + "-" + path.Base(uri)
}

// Path is where the entry of uri lives, fetched or not.
func (c Cache) Path(uri string) string { return filepath.Join(c.Dir, CacheName(uri)) }

// Get returns the local file holding uri's bytes, and whether this call
// fetched them. want is the sha256 hex the bytes must have (the passport's
// payload_hash); "" accepts any bytes, since there is nothing to check
// them against.
//
// A cached copy with the wrong hash is deleted and fetched again. Fetched
// bytes go to a scratch file beside the entry and are renamed into place
// only once their hash matches: a mismatch answers *HashError and leaves no
// entry behind.
func (c Cache) Get(ctx context.Context, uri, want string) (file string, fetched bool, err error) {
	p := c.Path(uri)
	unlock := lockEntry(p)
	defer unlock()
	ok, err := c.hit(p, want)
	if err != nil || ok {
		return p, false, err
	}
	if err := c.fetch(ctx, uri, p, want); err != nil {
		return "", false, err
	}
	return p, true, nil
}

// Cached reports whether uri has an entry that passes its hash, without
// fetching; a failing entry is deleted.
func (c Cache) Cached(uri, want string) (bool, error) {
	p := c.Path(uri)
	unlock := lockEntry(p)
	defer unlock()
	return c.hit(p, want)
}

// hit checks an existing entry: a match is touched, a mismatch deleted.
func (c Cache) hit(p, want string) (bool, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("payload: cache entry: %w", err)
	}
	if !fi.Mode().IsRegular() || (want != "" && !verified(p, fi, want)) {
		if err := os.RemoveAll(p); err != nil {
			return false, fmt.Errorf("payload: drop stale cache entry: %w", err)
		}
		return false, nil
	}
	return true, c.touch(p, want)
}

// fetch brings uri into a scratch file and renames it to p once its hash
// matches want.
func (c Cache) fetch(ctx context.Context, uri, p, want string) (err error) {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("payload: cache dir: %w", err)
	}
	tmp, err := os.CreateTemp(c.Dir, filepath.Base(p)+".*.part")
	if err != nil {
		return fmt.Errorf("payload: cache scratch file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	if err := c.Fetcher.Fetch(ctx, uri, io.MultiWriter(tmp, h)); err != nil {
		return err
	}
	got := hex.EncodeToString(h.Sum(nil))
	if want != "" && got != want {
		return &HashError{URI: uri, Want: want, Got: got}
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("payload: cache scratch file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("payload: cache scratch file: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("payload: cache entry: %w", err)
	}
	return c.touch(p, got)
}

// touch stamps an entry as just used and remembers that it is verified.
func (c Cache) touch(p, sum string) error {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	t := now()
	if err := os.Chtimes(p, t, t); err != nil {
		return fmt.Errorf("payload: touch cache entry: %w", err)
	}
	if fi, err := os.Lstat(p); err == nil && sum != "" {
		proofs.Store(p, proof{size: fi.Size(), mtime: fi.ModTime(), sum: sum})
	}
	return nil
}

// proof records that an entry, as it stood at one size and mtime, had a
// given sha256. A hit whose stat still matches skips rehashing: a
// multi-gigabyte dataset is not read twice per query. Anything that
// rewrites the file changes its stat and forces a fresh hash.
type proof struct {
	size  int64
	mtime time.Time
	sum   string
}

var proofs sync.Map // entry path -> proof

// verified reports whether the entry at p has sha256 want.
func verified(p string, fi fs.FileInfo, want string) bool {
	if v, ok := proofs.Load(p); ok {
		pr := v.(proof)
		if pr.size == fi.Size() && pr.mtime.Equal(fi.ModTime()) && pr.sum == want {
			return true
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == want
}

// entryLocks serializes work on one entry within the process, so two
// readers missing the same payload fetch it once.
var entryLocks = struct {
	sync.Mutex
	m map[string]*entryLock
}{m: map[string]*entryLock{}}

type entryLock struct {
	mu   sync.Mutex
	refs int
}

func lockEntry(p string) (unlock func()) {
	entryLocks.Lock()
	l := entryLocks.m[p]
	if l == nil {
		l = &entryLock{}
		entryLocks.m[p] = l
	}
	l.refs++
	entryLocks.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		entryLocks.Lock()
		if l.refs--; l.refs == 0 {
			delete(entryLocks.m, p)
		}
		entryLocks.Unlock()
	}
}
