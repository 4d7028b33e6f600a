// SPDX-License-Identifier: Apache-2.0

package bodyindex

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
)

// Index is a loaded index file: the document table and the dictionary in
// memory, the postings left in the file and read per query. No handle is
// held between queries, so a new file can be renamed over it on every
// system; each query opens the file and checks it is still the one loaded.
// An Index is safe for concurrent use.
type Index struct {
	path string
	info os.FileInfo
	ids  []string
	hash [][32]byte
	byID map[string]int32
	segs []segment
}

type segment struct {
	first, n int32
	keys     []uint32
	offs     []int64 // postings of keys[i] are offs[i]:offs[i+1] (end for the last)
	counts   []int32
	end      int64
}

// ErrReplaced means the file changed since it was loaded (a rebuild, here
// or in another process, wrote a new one): load it again.
var ErrReplaced = errors.New("body index: the file was replaced since it was loaded")

var errDamaged = errors.New("body index: damaged file")

// Load reads the document table and dictionary of the index at path. A
// missing file answers an error matching os.ErrNotExist.
func Load(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < int64(len(magic)+footerLen) {
		return nil, errDamaged
	}
	foot := make([]byte, footerLen)
	if _, err := f.ReadAt(foot, size-int64(footerLen)); err != nil {
		return nil, err
	}
	if string(foot[16:]) != magicTail {
		return nil, errDamaged
	}
	docsAt, dictAt := int64(binary.LittleEndian.Uint64(foot)), int64(binary.LittleEndian.Uint64(foot[8:]))
	if docsAt < int64(len(magic)) || dictAt < docsAt || dictAt > size-int64(footerLen) {
		return nil, errDamaged
	}
	meta := make([]byte, size-int64(footerLen)-docsAt)
	if _, err := f.ReadAt(meta, docsAt); err != nil {
		return nil, err
	}
	x := &Index{path: path, info: fi}
	if err := x.parseDocs(meta[:dictAt-docsAt]); err != nil {
		return nil, err
	}
	if err := x.parseDict(meta[dictAt-docsAt:], docsAt); err != nil {
		return nil, err
	}
	return x, nil
}

// reader decodes uvarints from a byte slice, remembering the first error.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint(limit uint64) uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > limit {
		r.bad = true
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n int) []byte {
	if n > len(r.b) {
		r.bad = true
		r.b = nil
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (x *Index) parseDocs(b []byte) error {
	r := reader{b: b}
	n := int(r.uvarint(uint64(len(b))))
	x.ids, x.hash, x.byID = make([]string, 0, n), make([][32]byte, 0, n), make(map[string]int32, n)
	for range n {
		id := string(r.bytes(int(r.uvarint(1 << 16))))
		var h [32]byte
		copy(h[:], r.bytes(32))
		if r.bad {
			return errDamaged
		}
		x.byID[id] = int32(len(x.ids))
		x.ids = append(x.ids, id)
		x.hash = append(x.hash, h)
	}
	if r.bad || len(r.b) != 0 {
		return errDamaged
	}
	return nil
}

func (x *Index) parseDict(b []byte, postingsEnd int64) error {
	r := reader{b: b}
	nSegs := int(r.uvarint(uint64(len(b))))
	limit := uint64(len(x.ids))
	x.segs = make([]segment, 0, nSegs)
	for range nSegs {
		s := segment{first: int32(r.uvarint(limit)), n: int32(r.uvarint(limit))}
		nGrams := int(r.uvarint(uint64(len(r.b))))
		if r.bad || uint64(s.first)+uint64(s.n) > limit {
			return errDamaged
		}
		s.keys, s.offs, s.counts = make([]uint32, nGrams), make([]int64, nGrams), make([]int32, nGrams)
		var key uint64
		var off int64
		for i := range nGrams {
			key += r.uvarint(endMark << 1)
			off += int64(r.uvarint(uint64(postingsEnd)))
			s.keys[i], s.offs[i], s.counts[i] = uint32(key), off, int32(r.uvarint(uint64(s.n)))
			if r.bad || off > postingsEnd || (i > 0 && s.keys[i] <= s.keys[i-1]) {
				return errDamaged
			}
		}
		x.segs = append(x.segs, s)
	}
	if r.bad || len(r.b) != 0 {
		return errDamaged
	}
	for i := range x.segs {
		x.segs[i].end = postingsEnd
		if i+1 < len(x.segs) && len(x.segs[i+1].offs) > 0 {
			x.segs[i].end = x.segs[i+1].offs[0]
		}
	}
	return nil
}

// Len is the number of documents indexed.
func (x *Index) Len() int { return len(x.ids) }

// Doc is the id and body hash document d was indexed under.
func (x *Index) Doc(d int32) (id string, hash [32]byte) { return x.ids[d], x.hash[d] }

// Lookup is the document number of id.
func (x *Index) Lookup(id string) (int32, bool) {
	d, ok := x.byID[id]
	return d, ok
}

// Set is a set of document numbers.
type Set []uint64

// NewSet is an empty set over n documents.
func NewSet(n int) Set { return make(Set, (n+63)/64) }

// Add puts d in the set.
func (s Set) Add(d int32) { s[d>>6] |= 1 << (d & 63) }

// AddAll puts every document of o, a set over as many documents, in s.
func (s Set) AddAll(o Set) {
	for i := range s {
		s[i] |= o[i]
	}
}

// Del takes d out of the set.
func (s Set) Del(d int32) { s[d>>6] &^= 1 << (d & 63) }

// Has reports whether d is in the set.
func (s Set) Has(d int32) bool { return s[d>>6]&(1<<(d&63)) != 0 }

// Each calls fn with every document of the set, in order.
func (s Set) Each(fn func(d int32)) {
	for i, w := range s {
		for w != 0 {
			fn(int32(i*64 + bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
}

// Candidates is the set of documents that may contain at least one of the
// needles (folded bytes) as a substring: every document that does is in
// it. A needle shorter than two bytes matches every document.
func (x *Index) Candidates(needles [][]byte) (Set, error) {
	out := NewSet(len(x.ids))
	f, err := x.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	q := query{f: f, out: out}
	for _, n := range needles {
		if len(n) < 2 {
			for d := range int32(len(x.ids)) {
				out.Add(d)
			}
			return out, nil
		}
		for i := range x.segs {
			if err := q.needle(&x.segs[i], n); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Unbounded is the line bound of a document the index can say nothing
// more of than that it may hold the needle.
const Unbounded = math.MaxInt32

// Bounds are the documents that may hold a needle, in order, each with
// the most lines of it that can hold the needle.
type Bounds struct {
	Docs  []int32
	Lines []int32
}

// LineBounds is Candidates of one needle with a bound on each candidate's
// matching lines: a line holding the needle holds each of its grams, so
// no more lines hold it than hold its rarest gram. A needle too short for
// a gram gets Unbounded.
func (x *Index) LineBounds(needle []byte) (Bounds, error) {
	if len(needle) < 3 {
		set, err := x.Candidates([][]byte{needle})
		if err != nil {
			return Bounds{}, err
		}
		var b Bounds
		set.Each(func(d int32) {
			b.Docs = append(b.Docs, d)
			b.Lines = append(b.Lines, Unbounded)
		})
		return b, nil
	}
	f, err := x.open()
	if err != nil {
		return Bounds{}, err
	}
	defer f.Close()
	q := query{f: f}
	var b Bounds
	for i := range x.segs {
		if err := q.bounded(&x.segs[i], needle, &b); err != nil {
			return Bounds{}, err
		}
	}
	return b, nil
}

// bounded appends to b the documents of one segment that hold every gram
// of n, each with the fewest lines holding one of them.
func (q *query) bounded(s *segment, n []byte, b *Bounds) error {
	grams := needleGrams(n)
	at := make([]int, len(grams))
	for i, g := range grams {
		j, ok := slices.BinarySearch(s.keys, g)
		if !ok {
			return nil
		}
		at[i] = j
	}
	slices.SortFunc(at, func(a, b int) int { return int(s.counts[a] - s.counts[b]) })
	var docs, lines, tmp, tmpLines []int32
	var err error
	if docs, err = q.postings(s, at[0], nil, &lines); err != nil {
		return err
	}
	for _, j := range at[1:] {
		if len(docs) == 0 {
			return nil
		}
		if worthless(s, j, len(docs)) {
			break
		}
		tmpLines = tmpLines[:0]
		if tmp, err = q.postings(s, j, tmp[:0], &tmpLines); err != nil {
			return err
		}
		docs, lines = intersectMin(docs, lines, tmp, tmpLines)
	}
	b.Docs = append(b.Docs, docs...)
	b.Lines = append(b.Lines, lines...)
	return nil
}

// narrowing is how much longer than the candidates left a gram's
// postings may be for reading them to pay: past it, verifying the
// candidates the gram would rule out costs less than reading its list.
const narrowing = 32

// worthless reports whether gram j of segment s, and so every gram after
// it (they come rarest first), is not worth intersecting with n
// candidates. Stopping early leaves a superset, and bounds no tighter
// than they were: both still hold.
func worthless(s *segment, j, n int) bool { return int(s.counts[j]) > narrowing*n }

// intersectMin keeps in a the documents also in b, each with the smaller
// of its two line counts; both are sorted.
func intersectMin(a, aLines, b, bLines []int32) ([]int32, []int32) {
	out, outLines := a[:0], aLines[:0]
	eachCommon(a, b, func(i, j int) {
		out = append(out, a[i])
		outLines = append(outLines, min(aLines[i], bLines[j]))
	})
	return out, outLines
}

// open opens the file for one query and checks it is the one loaded.
func (x *Index) open() (*os.File, error) {
	f, err := os.Open(x.path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!os.SameFile(fi, x.info) || fi.Size() != x.info.Size() || !fi.ModTime().Equal(x.info.ModTime())) {
		err = ErrReplaced
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// query is one Candidates call's reading state.
type query struct {
	f    io.ReaderAt
	out  Set
	buf  []byte
	list []int32
	tmp  []int32
}

// needle adds the documents of one segment that hold every gram of n.
func (q *query) needle(s *segment, n []byte) error {
	if len(n) == 2 {
		return q.shortNeedle(s, n)
	}
	grams := needleGrams(n)
	at := make([]int, len(grams))
	for i, g := range grams {
		j, ok := slices.BinarySearch(s.keys, g)
		if !ok {
			return nil // a gram no document of the segment holds
		}
		at[i] = j
	}
	slices.SortFunc(at, func(a, b int) int { return int(s.counts[a] - s.counts[b]) })
	var err error
	if q.list, err = q.postings(s, at[0], q.list[:0], nil); err != nil {
		return err
	}
	for _, j := range at[1:] {
		if len(q.list) == 0 {
			return nil
		}
		if worthless(s, j, len(q.list)) {
			break
		}
		if q.tmp, err = q.postings(s, j, q.tmp[:0], nil); err != nil {
			return err
		}
		q.list = intersect(q.list, q.tmp)
	}
	for _, d := range q.list {
		q.out.Add(d)
	}
	return nil
}

// shortNeedle adds the documents holding a two-byte needle: those with a
// gram that starts with it, or that end with it.
func (q *query) shortNeedle(s *segment, n []byte) error {
	lo := gramKey(n[0], n[1], 0)
	j, _ := slices.BinarySearch(s.keys, lo)
	for ; j < len(s.keys) && s.keys[j] <= lo|0xff; j++ {
		if err := q.addPostings(s, j); err != nil {
			return err
		}
	}
	if j, ok := slices.BinarySearch(s.keys, endKey(n[0], n[1])); ok {
		return q.addPostings(s, j)
	}
	return nil
}

func (q *query) addPostings(s *segment, j int) error {
	var err error
	if q.tmp, err = q.postings(s, j, q.tmp[:0], nil); err != nil {
		return err
	}
	for _, d := range q.tmp {
		q.out.Add(d)
	}
	return nil
}

// postings appends the documents of gram j of segment s to dst, and
// when lines is not nil, the lines of each holding the gram to *lines.
func (q *query) postings(s *segment, j int, dst []int32, lines *[]int32) ([]int32, error) {
	end := s.end
	if j+1 < len(s.offs) {
		end = s.offs[j+1]
	}
	size := int(end - s.offs[j])
	if size < 0 {
		return nil, errDamaged
	}
	q.buf = slices.Grow(q.buf[:0], size)[:size]
	if _, err := q.f.ReadAt(q.buf, s.offs[j]); err != nil {
		return nil, err
	}
	b := q.buf
	doc, last := int64(s.first), int64(s.first)+int64(s.n)
	for range s.counts[j] {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errDamaged
		}
		b = b[k:]
		n := uint64(1)
		if v&1 != 0 {
			if n, k = binary.Uvarint(b); k <= 0 || n < 2 || n > math.MaxInt32 {
				return nil, errDamaged
			}
			b = b[k:]
		}
		if v>>1 >= uint64(last-doc) {
			return nil, errDamaged
		}
		doc += int64(v >> 1)
		dst = append(dst, int32(doc))
		if lines != nil {
			*lines = append(*lines, int32(n))
		}
	}
	return dst, nil
}

// intersect keeps in a the documents also in b; both are sorted.
func intersect(a, b []int32) []int32 {
	out := a[:0]
	eachCommon(a, b, func(i, _ int) { out = append(out, a[i]) })
	return out
}

// eachCommon calls fn with the positions in a and in b of each document
// both hold, in order; both are sorted. fn may overwrite a[:i].
func eachCommon(a, b []int32, fn func(i, j int)) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			fn(i, j)
			i++
			j++
		}
	}
}
