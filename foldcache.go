package vine

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/monkeyllm/vine/forest"
)

// The fold cache is the cold sniff's quick reject without opening files:
// one derived file holding every inline body folded (C.6b), each under
// the body hash it was folded from. A cold scan checks a node's terms
// against its cached folded body when the hash still matches the
// catalog's, and opens the node's file only when a term is there (to
// read its lines) or the entry is missing or stale. Opening thousands of
// small files is what a cold scan costs; the cache turns that into one
// mapped file. Like the memo, it is derived: deleting it changes latency
// only, and reindex rewrites it.
//
// Format: the magic line, then per node: uvarint id length, id, the 32
// raw bytes of the body hash, uvarint folded length, folded bytes.

const foldCacheMagic = "vine-fold-cache 1\n"

func foldCachePath(dir string) string {
	return filepath.Join(dir, forest.DerivedDir, "sniff", "bodies.fold")
}

// foldCache is a loaded cache file. Entries point into data.
type foldCache struct {
	data    []byte
	entries map[string]foldEntry
	release func() error
}

type foldEntry struct {
	hash   [32]byte
	folded []byte
}

// fresh returns the folded body of id when the cache holds it for the
// given hex body hash.
func (c *foldCache) fresh(id, hash string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	e, ok := c.entries[id]
	if !ok || len(hash) != 64 {
		return nil, false
	}
	var h [32]byte
	if _, err := hex.Decode(h[:], []byte(hash)); err != nil || h != e.hash {
		return nil, false
	}
	return e.folded, true
}

// loadFoldCache maps and indexes the cache file. A missing, short or
// damaged file is no cache (nil, nil or an error the caller logs).
func loadFoldCache(path string) (*foldCache, error) {
	data, release, err := mapFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	c, err := parseFoldCache(data)
	if err != nil {
		release()
		return nil, err
	}
	c.release = release
	return c, nil
}

func parseFoldCache(data []byte) (*foldCache, error) {
	if !bytes.HasPrefix(data, []byte(foldCacheMagic)) {
		return nil, errors.New("fold cache: bad magic")
	}
	c := &foldCache{data: data, entries: map[string]foldEntry{}}
	rest := data[len(foldCacheMagic):]
	for len(rest) > 0 {
		id, r, ok := cut(rest)
		if !ok || len(r) < 32 {
			return nil, errors.New("fold cache: truncated entry")
		}
		var e foldEntry
		copy(e.hash[:], r[:32])
		folded, r, ok := cut(r[32:])
		if !ok {
			return nil, errors.New("fold cache: truncated body")
		}
		e.folded = folded
		c.entries[string(id)] = e
		rest = r
	}
	return c, nil
}

// cut reads one uvarint-length-prefixed field.
func cut(b []byte) (field, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

func (c *foldCache) close() error {
	if c == nil || c.release == nil {
		return nil
	}
	return c.release()
}

// foldCacheWriter writes a new cache file beside the old one and renames
// it into place, so a reader never maps half a file.
type foldCacheWriter struct {
	path string
	f    *os.File
	w    *bufio.Writer
	buf  []byte
	err  error
}

func newFoldCacheWriter(path string) (*foldCacheWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".bodies-*.tmp")
	if err != nil {
		return nil, err
	}
	w := &foldCacheWriter{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	_, w.err = w.w.WriteString(foldCacheMagic)
	return w, nil
}

// add writes the fold of body under id and body's hash.
func (w *foldCacheWriter) add(id, body string) {
	if w.err != nil {
		return
	}
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(id)))
	w.buf = append(w.buf, id...)
	h, _ := hex.DecodeString(BodyHash(body))
	w.buf = append(w.buf, h...)
	folded := appendFolded(nil, body)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(folded)))
	if _, w.err = w.w.Write(w.buf); w.err == nil {
		_, w.err = w.w.Write(folded)
	}
}

// addFolded copies an entry that is still fresh from the old cache.
func (w *foldCacheWriter) addFolded(id string, e foldEntry) {
	if w.err != nil {
		return
	}
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(id)))
	w.buf = append(w.buf, id...)
	w.buf = append(w.buf, e.hash[:]...)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(e.folded)))
	if _, w.err = w.w.Write(w.buf); w.err == nil {
		_, w.err = w.w.Write(e.folded)
	}
}

func (w *foldCacheWriter) commit() error {
	err := errors.Join(w.err, w.w.Flush(), w.f.Close())
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("fold cache: %w", err)
	}
	return nil
}

func (w *foldCacheWriter) abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}

// foldCacheHolder is the Vine's current cache, swapped whole when a new
// file is written. Readers hold it for the length of one scan.
type foldCacheHolder struct {
	mu      sync.Mutex
	cur     *foldCache
	users   map[*foldCache]int
	retired map[*foldCache]bool
	loaded  bool
	running bool
}

// acquire returns the current cache (nil when there is none) and a
// release function; a swapped-out cache is unmapped after its last user.
func (h *foldCacheHolder) acquire(load func() *foldCache) (*foldCache, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded {
		h.cur, h.loaded = load(), true
	}
	c := h.cur
	if c == nil {
		return nil, func() {}
	}
	if h.users == nil {
		h.users = map[*foldCache]int{}
	}
	h.users[c]++
	return c, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.users[c]--
		if h.users[c] == 0 {
			delete(h.users, c)
			if h.retired[c] {
				delete(h.retired, c)
				c.close()
			}
		}
	}
}

// swap installs next as the current cache.
func (h *foldCacheHolder) swap(next *foldCache) {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.cur
	h.cur, h.loaded = next, true
	if old == nil || old == next {
		return
	}
	if h.users[old] > 0 {
		if h.retired == nil {
			h.retired = map[*foldCache]bool{}
		}
		h.retired[old] = true
		return
	}
	old.close()
}

func (h *foldCacheHolder) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cur != nil && h.users[h.cur] == 0 {
		h.cur.close()
	}
	h.cur = nil
}

// refreshFoldCache rewrites the cache from the catalog's body hashes:
// entries still fresh are copied, the rest are read from their files.
// It runs in the background after a cold scan found the cache stale.
func (v *Vine) refreshFoldCache(ctx context.Context) error {
	old, release := v.folds.acquire(v.loadFolds)
	defer release()
	path := foldCachePath(v.root.Dir())
	w, err := newFoldCacheWriter(path)
	if err != nil {
		return err
	}
	err = v.eachRow(ctx, "SELECT id, body_hash FROM nodes ORDER BY id", nil, func(rows *sql.Rows) error {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return err
		}
		if folded, ok := old.fresh(id, hash); ok {
			var e foldEntry
			hex.Decode(e.hash[:], []byte(hash))
			e.folded = folded
			w.addFolded(id, e)
			return nil
		}
		if body, ok := v.inlineFileBody(id); ok {
			w.add(id, body)
		}
		return nil
	})
	if err != nil {
		w.abort()
		return err
	}
	if err := w.commit(); err != nil {
		return err
	}
	next, err := loadFoldCache(path)
	if err != nil {
		return err
	}
	v.folds.swap(next)
	return nil
}

// inlineFileBody is a node's body when the file holds it (content inline);
// cached and reference bodies are scanned directly, never cached here.
func (v *Vine) inlineFileBody(id string) (string, bool) {
	p, err := v.root.TrustedPath(id)
	if err != nil {
		return "", false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	yamlBlock, body, err := forest.Split(id, data)
	if err != nil || bytes.Contains([]byte(yamlBlock), []byte("content:")) {
		return "", false
	}
	return body, true
}

func (v *Vine) loadFolds() *foldCache {
	c, err := loadFoldCache(foldCachePath(v.root.Dir()))
	if err != nil {
		v.log.Warn("fold cache unreadable; cold sniff reads files until reindex rewrites it", "err", err)
		return nil
	}
	return c
}

// foldRefreshMin is the number of stale or missing entries one cold scan
// must meet (and a quarter of what it read) before the cache is
// rewritten: a few fresh writes are cheaper read directly.
const foldRefreshMin = 64

// scheduleFoldRefresh rewrites the cache in the background, once at a
// time, unless the catalog is read-only.
func (v *Vine) scheduleFoldRefresh() {
	if v.cat.ReadOnly() {
		return
	}
	h := &v.folds
	h.mu.Lock()
	if h.running {
		h.mu.Unlock()
		return
	}
	h.running = true
	h.mu.Unlock()
	v.background.Go(func() {
		defer func() {
			h.mu.Lock()
			h.running = false
			h.mu.Unlock()
		}()
		if err := v.refreshFoldCache(context.Background()); err != nil {
			v.log.Warn("fold cache refresh failed; cold sniff reads files", "err", err)
		}
	})
}

// newFoldWriter starts the cache a reindex writes as it reads every body;
// nil when the derived layer cannot be written (nothing is lost: cold
// scans read files).
func (v *Vine) newFoldWriter() *foldCacheWriter {
	if v.cat.ReadOnly() {
		return nil
	}
	w, err := newFoldCacheWriter(foldCachePath(v.root.Dir()))
	if err != nil {
		v.log.Warn("fold cache not written", "err", err)
		return nil
	}
	return w
}

// installFolds commits a reindex's cache and makes it current.
func (v *Vine) installFolds(w *foldCacheWriter) {
	if w == nil {
		return
	}
	if err := w.commit(); err != nil {
		v.log.Warn("fold cache not written", "err", err)
		return
	}
	c, err := loadFoldCache(w.path)
	if err != nil {
		v.log.Warn("fold cache unreadable after write", "err", err)
		return
	}
	v.folds.swap(c)
}

// forget drops the current cache so the next scan loads the file again.
func (h *foldCacheHolder) forget() {
	h.swap(nil)
	h.mu.Lock()
	h.loaded = false
	h.mu.Unlock()
}
