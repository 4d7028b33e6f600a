// SPDX-License-Identifier: Apache-2.0

package sqlitefile

import (
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"
)

// A query per call to ask "has anything changed?" costs several
// microseconds in this SQLite build (a read transaction takes and drops
// shared-memory locks through fcntl), which was most of a move. SQLite
// itself answers that question from the WAL-index header at the start of
// the file's -shm (sqlite.org/walformat.html, "WAL-Index Format"): every
// commit rewrites it (the last frame, the frame count, the checksums),
// and a reader that finds it unchanged knows no writer has committed. A
// [Watch] reads those bytes with one pread.
//
// The header is written twice: the second copy first, then the first.
// A reader reads the first copy, then the second, and trusts them only
// when both match and the checksum holds; any other state is a writer
// at work, read as "changed" so the caller asks SQLite. The wal-index of
// a file whose connections have all closed is deleted by the last one
// (a later opener makes a new one): a watch checks, after reading, that
// the file it holds is still linked, and reopens it when not.
//
// The watch presumes what this package's doc says of shared files: every
// writer runs in WAL mode with shared memory, so no commit bypasses the
// header. A file without a readable -shm is simply never vouched for.

// markSize is the WAL-index header: iVersion, unused, iChange, isInit,
// bigEndCksum, szPage, mxFrame, nPage, aFrameCksum[2], aSalt[2], aCksum[2].
const markSize = 48

// walIndexVersion is the iVersion of every WAL-index this format covers.
const walIndexVersion = 3007000

// Mark is the WAL-index header of a shared file as a [Watch] read it: equal
// marks mean no transaction committed between the two reads.
type Mark [markSize]byte

// Watch reads the [Mark] of one shared file. It is safe for concurrent use.
type Watch struct {
	path   string // the -shm file
	mu     sync.Mutex
	f      atomic.Pointer[os.File] // nil until opened, or after Close
	closed bool
}

// NewWatch watches the file at path (the database, not its -shm). It
// opens nothing yet: the wal-index appears with the first connection.
func NewWatch(path string) *Watch { return &Watch{path: path + "-shm"} }

// Mark reads the file's mark; ok is false when the watch cannot vouch
// for the file now (no wal-index, a writer between its two copies, a
// closed watch), and the caller must ask SQLite.
func (w *Watch) Mark() (m Mark, ok bool) {
	f := w.f.Load()
	if f == nil {
		if f = w.open(); f == nil {
			return m, false
		}
	}
	var buf [2 * markSize]byte
	if n, _ := f.ReadAt(buf[:], 0); n < len(buf) { // short, truncated or closed
		return m, false
	}
	// Read first, check the link after: a file still linked after the
	// read was the live wal-index when it was read.
	if !linked(f) {
		w.drop(f)
		return m, false
	}
	if !validHeader(buf[:markSize], buf[markSize:]) {
		return m, false
	}
	copy(m[:], buf[:markSize])
	return m, true
}

// open opens the -shm file read-only, or answers nil while it is absent.
func (w *Watch) open() *os.File {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	if f := w.f.Load(); f != nil {
		return f
	}
	f, err := os.Open(w.path)
	if err != nil {
		return nil
	}
	w.f.Store(f)
	return f
}

// drop forgets f (an unlinked wal-index) so the next Mark reopens the
// path. A reader still holding f gets a read error and asks SQLite.
func (w *Watch) drop(f *os.File) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f.CompareAndSwap(f, nil) {
		f.Close()
	}
}

// Close releases the -shm file; later marks are never ok.
func (w *Watch) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if f := w.f.Swap(nil); f != nil {
		return f.Close()
	}
	return nil
}

// validHeader reports whether the two copies match and describe an
// initialised wal-index whose checksum holds.
func validHeader(first, second []byte) bool {
	if string(first) != string(second) {
		return false
	}
	if binary.NativeEndian.Uint32(first[0:]) != walIndexVersion || first[12] != 1 {
		return false
	}
	s1, s2 := headerChecksum(first[:40])
	return s1 == binary.NativeEndian.Uint32(first[40:]) && s2 == binary.NativeEndian.Uint32(first[44:])
}

// headerChecksum is walChecksumBytes of the header in native byte order,
// as SQLite computes aCksum over the header's first 40 bytes.
func headerChecksum(b []byte) (s1, s2 uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s1 += binary.NativeEndian.Uint32(b[i:]) + s2
		s2 += binary.NativeEndian.Uint32(b[i+4:]) + s1
	}
	return s1, s2
}

// Memo keeps one value derived from a watched file while the file's mark
// stands. The zero Memo holds nothing. It is safe for concurrent use.
type Memo[T any] struct {
	held atomic.Pointer[memoEntry[T]]
}

type memoEntry[T any] struct {
	mark Mark
	val  T
}

// Get answers the value kept at mark, if any.
func (m *Memo[T]) Get(mark Mark) (v T, ok bool) {
	if e := m.held.Load(); e != nil && e.mark == mark {
		return e.val, true
	}
	return v, false
}

// Put keeps v as the value at mark. The caller read mark before it read
// v, so v is at least as new as mark: a later Get at the same mark means
// no commit came between, and v still holds.
func (m *Memo[T]) Put(mark Mark, v T) { m.held.Store(&memoEntry[T]{mark: mark, val: v}) }

// Clear forgets the value (for a writer that knows better than the mark).
func (m *Memo[T]) Clear() { m.held.Store(nil) }
