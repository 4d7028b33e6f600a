// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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

// FoldCachePath is the fold cache file of the forest rooted at dir.
func FoldCachePath(dir string) string {
	return filepath.Join(dir, forest.DerivedDir, "sniff", "bodies.fold")
}

// foldCache is a loaded cache file: an index of its entries in memory,
// the folded bodies left in the file and read on demand (see open). The
// file is read, not mapped: a cold scan touches every body, and mapped
// pages count in the process's resident set, 230 MB at 100,000 nodes,
// which put a serving process over its 500 MB ceiling. Read through
// buffers, the bodies stay in the page cache, shared and reclaimable.
//
// No handle is held between scans, so a new cache can be renamed over the
// file on every system; each scan opens the file and checks it is still
// the one indexed.
type foldCache struct {
	path    string
	info    os.FileInfo // the file indexed; nil when parsed from memory
	data    []byte
	entries map[string]foldEntry
}

// foldEntry locates one folded body: n bytes at offset off of the file.
// folded holds the bytes themselves only for a cache parsed from memory.
type foldEntry struct {
	hash   [32]byte
	off    int64
	n      int
	folded []byte
}

// errFoldReplaced: the file changed since it was indexed (a reindex or a
// refresh, here or in another process, wrote a new one).
var errFoldReplaced = errors.New("fold cache: the file was replaced since it was indexed")

// lookup returns the entry of id when the cache holds it for the given
// hex body hash.
func (c *foldCache) lookup(id, hash string) (foldEntry, bool) {
	if c == nil {
		return foldEntry{}, false
	}
	e, ok := c.entries[id]
	if !ok || len(hash) != 64 {
		return foldEntry{}, false
	}
	var h [32]byte
	if _, err := hex.Decode(h[:], []byte(hash)); err != nil || h != e.hash {
		return foldEntry{}, false
	}
	return e, true
}

// open returns the cache's bytes for one scan and the function that
// releases them. Reads are runs of neighbouring entries, one ReadAt each.
func (c *foldCache) open() (io.ReaderAt, func() error, error) {
	if c.info == nil {
		return bytes.NewReader(c.data), func() error { return nil }, nil
	}
	f, err := os.Open(c.path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!os.SameFile(fi, c.info) || fi.Size() != c.info.Size() || !fi.ModTime().Equal(c.info.ModTime())) {
		err = errFoldReplaced
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, f.Close, nil
}

// fresh returns the folded body of id when the cache holds it for the
// given hex body hash.
func (c *foldCache) fresh(id, hash string) ([]byte, bool) {
	e, ok := c.lookup(id, hash)
	if !ok {
		return nil, false
	}
	if e.folded != nil {
		return e.folded, true
	}
	r, done, err := c.open()
	if err != nil {
		return nil, false
	}
	defer done()
	return readFolded(r, e)
}

// readFolded reads one entry's folded body.
func readFolded(r io.ReaderAt, e foldEntry) ([]byte, bool) {
	buf := make([]byte, e.n)
	if _, err := r.ReadAt(buf, e.off); err != nil {
		return nil, false
	}
	return buf, true
}

// loadFoldCache indexes the cache file in one sequential read. A missing
// file is no cache (nil, nil); a short or damaged one is an error the
// caller logs.
func loadFoldCache(path string) (*foldCache, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c := &foldCache{path: path, info: fi, entries: map[string]foldEntry{}}
	if err := c.index(bufio.NewReaderSize(f, 1<<20)); err != nil {
		return nil, err
	}
	return c, nil
}

// parseFoldCache indexes a cache held in memory.
func parseFoldCache(data []byte) (*foldCache, error) {
	c := &foldCache{data: data, entries: map[string]foldEntry{}}
	if err := c.index(bufio.NewReader(bytes.NewReader(data))); err != nil {
		return nil, err
	}
	for id, e := range c.entries {
		e.folded = data[e.off : e.off+int64(e.n) : e.off+int64(e.n)]
		c.entries[id] = e
	}
	return c, nil
}

// index reads the entries' ids, hashes and places, skipping their bodies.
func (c *foldCache) index(r *bufio.Reader) error {
	magic := make([]byte, len(foldCacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != foldCacheMagic {
		return errors.New("fold cache: bad magic")
	}
	off := int64(len(foldCacheMagic))
	for {
		idLen, k, err := readUvarint(r)
		if errors.Is(err, io.EOF) && k == 0 {
			return nil
		}
		if err != nil || idLen > maxFoldID {
			return errors.New("fold cache: truncated entry")
		}
		off += int64(k)
		rec := make([]byte, idLen+32)
		if _, err := io.ReadFull(r, rec); err != nil {
			return errors.New("fold cache: truncated entry")
		}
		off += int64(len(rec))
		var e foldEntry
		copy(e.hash[:], rec[idLen:])
		n, k, err := readUvarint(r)
		if err != nil || n > maxFoldBody {
			return errors.New("fold cache: truncated body")
		}
		off += int64(k)
		if skipped, err := r.Discard(int(n)); err != nil || uint64(skipped) != n {
			return errors.New("fold cache: truncated body")
		}
		e.off, e.n = off, int(n)
		off += int64(n)
		c.entries[string(rec[:idLen])] = e
	}
}

// Bounds a damaged length prefix must not pass: an id is a path, and a
// body past 1 GiB is no note.
const (
	maxFoldID   = 1 << 16
	maxFoldBody = 1 << 30
)

// readUvarint reads a uvarint and reports how many bytes it took.
func readUvarint(r *bufio.Reader) (uint64, int, error) {
	var x uint64
	var s uint
	for i := range binary.MaxVarintLen64 {
		b, err := r.ReadByte()
		if err != nil {
			if i > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, i, err
		}
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, i + 1, errors.New("fold cache: varint overflows")
			}
			return x | uint64(b)<<s, i + 1, nil
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
	return 0, binary.MaxVarintLen64, errors.New("fold cache: varint overflows")
}

// close releases the cache. It holds no file between scans (see
// foldCache), so there is nothing to release; the holder calls it when a
// cache is retired.
func (c *foldCache) close() error { return nil }

// FoldWriter writes a new cache file beside the old one and renames
// it into place, so a reader never maps half a file. It is not safe for
// concurrent use.
type FoldWriter struct {
	path string
	f    *os.File
	w    *bufio.Writer
	buf  []byte
	err  error
}

// CreateFoldWriter starts a cache file to be renamed to path on Commit.
func CreateFoldWriter(path string) (*FoldWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".bodies-*.tmp")
	if err != nil {
		return nil, err
	}
	w := &FoldWriter{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	_, w.err = w.w.WriteString(foldCacheMagic)
	return w, nil
}

// Add writes the fold of body under id and body's hash.
func (w *FoldWriter) Add(id, body string) {
	w.buf = AppendFoldEntry(w.buf[:0], id, bodyHash(body), body)
	w.AddEntry(w.buf)
}

// AddEntry writes an entry AppendFoldEntry encoded, which reindex does on
// its parsing goroutines so the writer only copies bytes.
func (w *FoldWriter) AddEntry(entry []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.w.Write(entry)
}

// AppendFoldEntry appends the cache entry of a body to dst: its id, the
// raw bytes of hash (the body's hex hash, computed once by the caller) and
// the folded body.
func AppendFoldEntry(dst []byte, id, hash, body string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(id)))
	dst = append(dst, id...)
	dst, _ = hex.AppendDecode(dst, []byte(hash))
	folded := appendFolded(make([]byte, 0, len(body)), body)
	dst = binary.AppendUvarint(dst, uint64(len(folded)))
	return append(dst, folded...)
}

// addFolded copies an entry that is still fresh from the old cache.
func (w *FoldWriter) addFolded(id string, e foldEntry) {
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

// Commit renames the written cache into place; on an error nothing is
// left behind.
func (w *FoldWriter) Commit() error {
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

// Abort removes the half-written cache.
func (w *FoldWriter) Abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}

// foldCacheHolder is the engine's current cache, swapped whole when a new
// file is written. Readers hold it for the length of one scan.
type foldCacheHolder struct {
	mu      sync.Mutex
	cur     *foldCache
	users   map[*foldCache]int
	retired map[*foldCache]bool
	loaded  bool
	refresh soloJob // the background rewrite of the file
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

// RefreshFolds rewrites the cache from the catalog's body hashes:
// entries still fresh are copied, the rest are read from their files.
// The engine runs it in the background after a cold scan found the cache
// stale; it is safe to call at any time.
func (e *Engine) RefreshFolds(ctx context.Context) error {
	old, release := e.folds.acquire(e.loadFolds)
	defer release()
	path := FoldCachePath(e.root.Dir())
	w, err := CreateFoldWriter(path)
	if err != nil {
		return err
	}
	var oldBytes io.ReaderAt
	if old != nil {
		r, done, err := old.open()
		if err == nil {
			defer done()
			oldBytes = r
		}
	}
	err = e.eachRow(ctx, "SELECT id, body_hash FROM nodes ORDER BY id", nil, func(rows *sql.Rows) error {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return err
		}
		if fe, ok := old.lookup(id, hash); ok && oldBytes != nil {
			if fe.folded, ok = readFolded(oldBytes, fe); ok {
				w.addFolded(id, fe)
				return nil
			}
		}
		if body, ok := e.inlineFileBody(id); ok {
			w.Add(id, body)
		}
		return nil
	})
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Commit(); err != nil {
		return err
	}
	next, err := loadFoldCache(path)
	if err != nil {
		return err
	}
	e.folds.swap(next)
	return e.BuildBodyIndex(ctx) // the index is built from the cache
}

// inlineFileBody is a node's body when the file holds it (content inline);
// cached and reference bodies are scanned directly, never cached here.
func (e *Engine) inlineFileBody(id string) (string, bool) {
	p, err := e.root.TrustedPath(id)
	if err != nil {
		return "", false
	}
	data, err := forest.ReadFile(p)
	if err != nil {
		return "", false
	}
	yamlBlock, body, err := forest.Split(id, data)
	if err != nil || bytes.Contains([]byte(yamlBlock), []byte("content:")) {
		return "", false
	}
	return body, true
}

func (e *Engine) loadFolds() *foldCache {
	c, err := loadFoldCache(FoldCachePath(e.root.Dir()))
	if err != nil {
		e.log.Warn("fold cache unreadable; cold sniff reads files until reindex rewrites it", "err", err)
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
func (e *Engine) scheduleFoldRefresh() {
	if e.cat.ReadOnly() {
		return
	}
	e.folds.refresh.start(e.background, func() {
		if err := e.RefreshFolds(context.Background()); err != nil {
			e.log.Warn("fold cache refresh failed; cold sniff reads files", "err", err)
		}
	})
}

// NewFoldWriter starts the cache a reindex writes as it reads every body;
// nil when the derived layer cannot be written (nothing is lost: cold
// scans read files).
func (e *Engine) NewFoldWriter() *FoldWriter {
	if e.cat.ReadOnly() {
		return nil
	}
	w, err := CreateFoldWriter(FoldCachePath(e.root.Dir()))
	if err != nil {
		e.log.Warn("fold cache not written", "err", err)
		return nil
	}
	return w
}

// InstallFolds commits a reindex's cache and makes it current; a nil
// writer (NewFoldWriter declined) is nothing to install.
func (e *Engine) InstallFolds(w *FoldWriter) {
	if w == nil {
		return
	}
	if err := w.Commit(); err != nil {
		e.log.Warn("fold cache not written", "err", err)
		return
	}
	c, err := loadFoldCache(w.path)
	if err != nil {
		e.log.Warn("fold cache unreadable after write", "err", err)
		return
	}
	e.folds.swap(c)
	e.scheduleGrams() // the index is built from the new cache
}

// forget drops the current cache so the next scan loads the file again.
func (h *foldCacheHolder) forget() {
	h.swap(nil)
	h.mu.Lock()
	h.loaded = false
	h.mu.Unlock()
}

// ForgetFolds drops the loaded fold cache, so the next scan loads the
// file again (after it was replaced or removed behind the engine's back).
func (e *Engine) ForgetFolds() { e.folds.forget() }

// FoldEntries is the number of bodies the current fold cache holds,
// loading it if no scan has yet; 0 without a cache.
func (e *Engine) FoldEntries() int {
	c, release := e.folds.acquire(e.loadFolds)
	defer release()
	if c == nil {
		return 0
	}
	return len(c.entries)
}
