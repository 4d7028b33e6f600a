// SPDX-License-Identifier: Apache-2.0

package bodyindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
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
	pairs []uint64 // gram<<32 | document, of the segment being built
	first int      // first document of that segment
	segs  []segMeta
	grams []uint32
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
// hash. Documents are numbered in the order they are added.
func (w *Writer) Add(id string, hash [32]byte, folded []byte) {
	doc := len(w.ids)
	w.ids = append(w.ids, id)
	w.hash = append(w.hash, hash)
	w.grams = appendDocGrams(w.grams[:0], folded)
	for _, g := range w.grams {
		w.pairs = append(w.pairs, uint64(g)<<32|uint64(doc))
	}
	if len(w.pairs) >= maxSegmentPairs {
		w.flushSegment()
	}
}

// flushSegment writes the postings of the documents added since the last
// segment.
func (w *Writer) flushSegment() {
	n := len(w.ids) - w.first
	if n == 0 {
		return
	}
	slices.Sort(w.pairs)
	seg := segMeta{first: w.first, n: n}
	for i := 0; i < len(w.pairs); {
		g := uint32(w.pairs[i] >> 32)
		seg.keys = append(seg.keys, g)
		seg.offs = append(seg.offs, w.off)
		prev := w.first
		w.buf = w.buf[:0]
		j := i
		for ; j < len(w.pairs) && uint32(w.pairs[j]>>32) == g; j++ {
			doc := int(uint32(w.pairs[j]))
			w.buf = binary.AppendUvarint(w.buf, uint64(doc-prev))
			prev = doc
		}
		seg.counts = append(seg.counts, int32(j-i))
		w.write(w.buf)
		i = j
	}
	w.segs = append(w.segs, seg)
	w.pairs = w.pairs[:0]
	w.first = len(w.ids)
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
