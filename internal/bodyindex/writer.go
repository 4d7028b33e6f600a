// SPDX-License-Identifier: Apache-2.0

package bodyindex

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
)

// maxSegmentPairs bounds the (gram, document) pairs a Writer holds before
// it writes a segment: 4 M pairs is 32 MB while building, whatever the
// forest's size (a 100,000-node forest holds about 120 M pairs).
var maxSegmentPairs = 4 << 20

// Writer writes a new index file beside the old one and renames it into
// place on Commit, so a reader never sees half a file. It is not safe for
// concurrent use.
type Writer struct {
	path  string
	f     *os.File
	w     *bufio.Writer
	off   int64
	ids   []string
	hash  [][32]byte
	table gramTable // the postings of the segment being built
	pairs int       // how many they are
	first int       // first document of that segment
	segs  []segMeta
	buf   []byte
	err   error
}

// segMeta is one written segment's dictionary.
type segMeta struct {
	first, n int
	keys     []uint32
	offs     []int64
	counts   []int32
}

// Create starts an index file to be renamed to path on Commit.
func Create(path string) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".bodies-grams-*.tmp")
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	w.write([]byte(magic))
	return w, nil
}

// Path is the file the writer commits to.
func (w *Writer) Path() string { return w.path }

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	var n int
	n, w.err = w.w.Write(b)
	w.off += int64(n)
}

// Add indexes the folded body of id, read from the body whose hash is
// hash. Documents are numbered in the order they are added. Beside each
// (gram, document) pair it counts the lines of the document that hold
// the gram, splitting at every byte a line break can start with: never
// coarser than the lines sniff scans, so the count bounds theirs.
func (w *Writer) Add(id string, hash [32]byte, folded []byte) {
	doc := int32(len(w.ids))
	w.ids = append(w.ids, id)
	w.hash = append(w.hash, hash)
	line := int32(0)
	add := func(g uint32) {
		j := w.table.entry(g)
		l := &w.table.lists[j]
		if n := len(*l); n == 0 || (*l)[n-1] != doc { // documents come in order: a repeat is the last
			*l = append(*l, doc)
			w.table.lines[j] = append(w.table.lines[j], 1)
			w.table.last[j] = line
			w.pairs++
		} else if w.table.last[j] != line {
			w.table.lines[j][n-1]++
			w.table.last[j] = line
		}
	}
	for i := 0; i+3 <= len(folded); i++ {
		add(gramKey(folded[i], folded[i+1], folded[i+2]))
		if lineBreak[folded[i]] {
			line++
		}
	}
	if n := len(folded); n >= 2 {
		add(endKey(folded[n-2], folded[n-1]))
	}
	if w.pairs >= maxSegmentPairs {
		w.flushSegment()
	}
}

// lineBreak marks the bytes a line break can start with (sniff splits
// lines as Python's str.splitlines does); counting a break at each of
// them splits more often than the scan, never less.
var lineBreak = func() (t [256]bool) {
	for _, c := range []byte{'\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0xC2, 0xE2} {
		t[c] = true
	}
	return t
}()

// flushSegment writes the postings of the documents added since the last
// segment.
func (w *Writer) flushSegment() {
	n := len(w.ids) - w.first
	if n == 0 {
		return
	}
	seg := segMeta{first: w.first, n: n}
	order := make([]int32, len(w.table.keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(w.table.keys[a], w.table.keys[b]) })
	for _, j := range order {
		seg.keys = append(seg.keys, w.table.keys[j])
		seg.offs = append(seg.offs, w.off)
		prev := int32(w.first)
		w.buf = w.buf[:0]
		for i, doc := range w.table.lists[j] {
			w.buf = appendPosting(w.buf, doc-prev, w.table.lines[j][i])
			prev = doc
		}
		seg.counts = append(seg.counts, int32(len(w.table.lists[j])))
		w.write(w.buf)
	}
	w.segs = append(w.segs, seg)
	w.table.reset()
	w.pairs = 0
	w.first = len(w.ids)
}

// gramTable maps grams to their posting lists: open addressing over the
// gram keys, the lists' storage reused from segment to segment.
type gramTable struct {
	slots []int32 // index+1 into keys and lists; 0 is empty
	keys  []uint32
	lists [][]int32
	lines [][]int32    // beside each posting, the lines holding the gram
	last  []int32      // the line the gram was last counted on
	spare [][2][]int32 // emptied lists of the last segment
	shift uint         // 32 - log2(len(slots))
}

// slot is g's first slot: the top bits of a multiplicative hash.
func (t *gramTable) slot(g uint32) uint32 { return (g * 0x9E3779B1) >> t.shift }

// entry is the index of gram g's posting list, created empty if new.
func (t *gramTable) entry(g uint32) int {
	if len(t.keys)*2 >= len(t.slots) {
		t.grow()
	}
	mask := uint32(len(t.slots) - 1)
	for h := t.slot(g); ; h = (h + 1) & mask {
		s := t.slots[h]
		if s == 0 {
			t.keys = append(t.keys, g)
			var l [2][]int32
			if n := len(t.spare); n > 0 {
				l, t.spare = t.spare[n-1], t.spare[:n-1]
			}
			t.lists = append(t.lists, l[0][:0])
			t.lines = append(t.lines, l[1][:0])
			t.last = append(t.last, 0)
			t.slots[h] = int32(len(t.keys))
			return len(t.keys) - 1
		}
		if t.keys[s-1] == g {
			return int(s - 1)
		}
	}
}

func (t *gramTable) grow() {
	n := max(1<<12, 2*len(t.slots))
	t.slots = make([]int32, n)
	t.shift = uint(32 - bits.TrailingZeros(uint(n)))
	mask := uint32(n - 1)
	for i, g := range t.keys {
		h := t.slot(g)
		for t.slots[h] != 0 {
			h = (h + 1) & mask
		}
		t.slots[h] = int32(i + 1)
	}
}

// reset empties the table, keeping its storage.
func (t *gramTable) reset() {
	clear(t.slots)
	t.keys = t.keys[:0]
	for i, l := range t.lists {
		t.spare = append(t.spare, [2][]int32{l[:0], t.lines[i][:0]})
	}
	t.lists, t.lines, t.last = t.lists[:0], t.lines[:0], t.last[:0]
}

// Commit writes the document table and the dictionary and renames the
// file into place; on an error nothing is left behind.
func (w *Writer) Commit() error {
	w.flushSegment()
	docsAt := w.off
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(w.ids)))
	w.write(w.buf)
	for i, id := range w.ids {
		w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(id)))
		w.buf = append(w.buf, id...)
		w.buf = append(w.buf, w.hash[i][:]...)
		w.write(w.buf)
	}
	dictAt := w.off
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(w.segs)))
	w.write(w.buf)
	for _, s := range w.segs {
		w.buf = binary.AppendUvarint(w.buf[:0], uint64(s.first))
		w.buf = binary.AppendUvarint(w.buf, uint64(s.n))
		w.buf = binary.AppendUvarint(w.buf, uint64(len(s.keys)))
		var key uint32
		var off int64
		for i := range s.keys {
			w.buf = binary.AppendUvarint(w.buf, uint64(s.keys[i]-key))
			w.buf = binary.AppendUvarint(w.buf, uint64(s.offs[i]-off))
			w.buf = binary.AppendUvarint(w.buf, uint64(s.counts[i]))
			key, off = s.keys[i], s.offs[i]
		}
		w.write(w.buf)
	}
	w.buf = binary.LittleEndian.AppendUint64(w.buf[:0], uint64(docsAt))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(dictAt))
	w.buf = append(w.buf, magicTail...)
	w.write(w.buf)
	err := errors.Join(w.err, w.w.Flush(), w.f.Close())
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("body index: %w", err)
	}
	return nil
}

// Abort removes the half-written file.
func (w *Writer) Abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}
