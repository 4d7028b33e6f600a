// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/klauspost/compress/zlib"
)

// How commits store their objects.
//
// A commit writes the objects it adds as one small pack (a commit pack),
// not as loose objects. Two files per commit instead of one per object
// matters more than it seems: on a filesystem that skips recently freed
// inodes when it allocates one (ext4 without a journal, which this
// project's machines run), every file created scans past every file
// deleted in the last minutes, so a write-heavy run that created and
// later deleted five loose objects per commit slowed down as it went.
//
// Every commit also rewrites its parent index whole, and a branch index
// grows with the branch (adopting 2,000 documents into one folder rewrote
// a 450 KB index 2,000 times). So the Repo keeps the objects of the
// current round in memory, each as the entry a pack holds: a version of a
// path whole, later versions as a line delta against the last whole one
// (delta.go; deltaFits says when a version is whole again), compressed
// once. Each commit pack holds its objects as the round does, with the
// bases of its deltas repeated so it reads on its own. Every
// packsPerMerge commit packs, a merge writes their objects again as one
// segment of the round, taking in the segments that carry (maybeMerge),
// and the new pack supersedes what it took in; once the round's
// compressed bytes pass packAfter the round ends, a last merge writes all
// of it as one pack, and that pack stays. Merging is concatenation:
// entries are kept compressed.
//
// Superseded packs are deleted one merge later, not at once, so a reader
// that listed the packs just before the new one appeared still finds
// them. A failed merge leaves the commit packs, which are complete: the
// segments are an optimisation, never the record.

// packAfter is how many compressed bytes a round holds before it ends; it
// bounds the memory the round's entries take and the bytes a merge copies.
var packAfter = 4 << 20

// packsPerMerge is how many commit packs accumulate before a merge: it
// bounds the packs a reader lists. commitPackBytes
// bounds their size the same way, since every commit pack repeats the
// bases of its deltas.
var (
	packsPerMerge   = 32
	commitPackBytes = 8 << 20
)

// newObject is an object a commit adds, before its pack is written.
type newObject struct {
	hash plumbing.Hash
	typ  plumbing.ObjectType
	data []byte
	key  string // the path it is a version of; "" for none
}

// pendingObject is an object of the current round as the round's packs
// hold it: the zlib stream of its whole bytes, or of a delta against the
// last whole version of its path (base).
type pendingObject struct {
	hash plumbing.Hash
	typ  plumbing.ObjectType
	size int // length of the entry's uncompressed body
	base plumbing.Hash
	z    []byte
	// crc is the CRC-32 of the whole entry (header and z) a pack index
	// lists, once a pack held it; only a whole entry's bytes are the same
	// in every pack (a delta's hold the distance to its base).
	crc uint32
}

// pending is the current round.
type pending struct {
	objs  []pendingObject
	at    map[plumbing.Hash]int // where objs holds each object
	bytes int                   // compressed bytes in objs
	bases map[string]deltaRef   // path key -> its last whole version in this round
	// commits are the commit packs written since the last merge, segs the
	// packs merges wrote, which hold objs in order, doomed the packs the
	// last merge superseded (all as paths without extension).
	commits     []string
	commitBytes int
	segs        []segment
	doomed      []string
}

// segment is a pack of the round a merge wrote: it holds objs[from:to],
// after the bases of their deltas that come before from.
type segment struct {
	name     string
	from, to int
	level    int // how many merges of fanIn segments it is the result of
}

// deltaRef is the last whole version of a path in the round: the base
// later versions are deltas against, and where the round holds it
// (objs[at]).
type deltaRef struct {
	hash plumbing.Hash
	base *deltaBase
	at   int
}

// entry is o as the round will hold it: a delta against the base of its
// path when that is small (deltaFits), else its whole bytes; compressed
// at BestSpeed with zw. It changes nothing: add does, once o is in a
// commit pack.
func (p *pending) entry(o newObject, zw *zlib.Writer) (pendingObject, error) {
	po := pendingObject{hash: o.hash, typ: o.typ, size: len(o.data)}
	body := o.data
	// go-git reads no delta of or against nothing.
	if ref, ok := p.bases[o.key]; ok && o.key != "" && len(o.data) > 0 {
		if d := ref.base.delta(o.data); deltaFits(len(d), len(o.data)) {
			po.base, po.size, body = ref.hash, len(d), d
		}
	}
	z, err := deflate(zw, body)
	po.z = z
	return po, err
}

// deltaFits reports whether a delta of n bytes is worth keeping for a
// version of size bytes: under half of it, and for a large version (a
// folder's index) under a thirty-second of it. Every version of an index
// adds its entry line to the delta against the base, so the deltas of a
// long round grew until compressing them cost more than the version
// whole; a version whose delta no longer fits is stored whole and
// becomes the base of the next ones.
func deltaFits(n, size int) bool {
	return n < min(size/2, max(size/32, 8<<10))
}

// add puts po, the entry of o, into the round; a whole version of a path
// becomes the base of its later versions, on a copy of its bytes: they
// may be the caller's (Options.Written), who may reuse them once Commit
// returns.
func (p *pending) add(o newObject, po pendingObject) {
	if p.at == nil {
		p.at, p.bases = map[plumbing.Hash]int{}, map[string]deltaRef{}
	}
	if o.key != "" && len(o.data) > 0 && po.base.IsZero() {
		p.bases[o.key] = deltaRef{hash: o.hash, base: newDeltaBase(bytes.Clone(o.data)), at: len(p.objs)}
	}
	p.at[o.hash] = len(p.objs)
	p.objs = append(p.objs, po)
	p.bytes += len(po.z)
}

// baseOf is the entry a delta entry of path key is against.
func (p *pending) baseOf(key string) pendingObject { return p.objs[p.bases[key].at] }

// entryOverhead bounds a pack entry's header: type and size, and an
// OFS_DELTA's distance.
const entryOverhead = 20

// deflate is data as a zlib stream, written with zw.
func deflate(zw *zlib.Writer, data []byte) ([]byte, error) {
	var buf bytes.Buffer
	// Growing by doubling dominated large objects, so make room at once:
	// half of data (text compresses better; the round keeps whatever room
	// is left over until it ends).
	buf.Grow(len(data)/2 + 64)
	zw.Reset(&buf)
	_, err := zw.Write(data)
	if err := errors.Join(err, zw.Close()); err != nil {
		return nil, fmt.Errorf("gitops: compress object: %w", err)
	}
	return buf.Bytes(), nil
}

// packDir is where packs live.
func (r *Repo) packDir() string { return filepath.Join(r.dot.Root(), "objects", "pack") }

// writeCommitPack writes the objects a commit adds (r.batch) as one pack
// and adds them to the round. Each goes into the pack as the round will
// hold it, so it is compressed once: a new version of a large index is a
// small delta, and the pack repeats the delta's base (already compressed)
// to stay readable on its own. Callers hold r.mu.
func (r *Repo) writeCommitPack(made *ahead[entriesMade]) error {
	if len(r.batch) == 0 {
		return nil
	}
	if r.zw == nil {
		r.zw, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed)
	}
	ents := make([]pendingObject, len(r.batch))
	var bases []pendingObject
	size := 0
	for i, o := range r.batch {
		e, ok, err := made.wait().entry(o)
		if !ok && err == nil {
			e, err = r.pend.entry(o, r.zw)
		}
		if err != nil {
			return err
		}
		ents[i], size = e, size+len(e.z)
		if e.base.IsZero() || slices.ContainsFunc(bases, func(b pendingObject) bool { return b.hash == e.base }) {
			continue
		}
		b := r.pend.baseOf(o.key)
		bases, size = append(bases, b), size+len(b.z)
	}
	w := newPackWriter(r.packDir(), len(bases)+len(ents), size)
	defer w.release()
	for i := range bases {
		w.add(&bases[i])
	}
	r.resumeSum(w, bases)
	for i := range ents {
		w.add(&ents[i])
	}
	name, err := w.install(r.packDir())
	if err != nil {
		return fmt.Errorf("gitops: write objects: %w", err)
	}
	r.pend.commits = append(r.pend.commits, name)
	r.pend.commitBytes += w.len()
	// The write storage need not index a pack of our own: the round
	// answers for its objects (putObject). Other writers wait for the
	// forest's writer lock, so the directory changed only by us.
	if fi, err := os.Stat(r.packDir()); err == nil {
		r.packs = fi.ModTime()
	}
	for i, o := range r.batch {
		r.pend.add(o, ents[i])
	}
	return nil
}

// maybeMerge merges the commit packs into a pack of the round once
// enough of them or their bytes accumulated, then deletes what the
// previous merge superseded. Callers hold r.mu.
//
// Merges go by levels, as a binary counter carries: the commit packs
// become a segment of level 0, and fanIn segments of one level become one
// of the next, so every object is copied once per level, not once per
// merge: rewriting the whole round on every merge copied 140 MB to adopt
// 2,000 man pages, and more per document the longer the round. When the
// round ends, one last merge writes all of it as one pack, which stays.
func (r *Repo) maybeMerge() {
	p := &r.pend
	switch {
	case len(p.commits) == 0:
		return
	case len(p.commits) < packsPerMerge && p.commitBytes < commitPackBytes && p.bytes < packAfter:
		return
	}
	ends := p.bytes >= packAfter
	keep, level := p.mergeFrom(ends)
	from := 0
	if keep > 0 {
		from = p.segs[keep-1].to
	}
	name, err := p.writeSegment(r.packDir(), from)
	if err != nil {
		return // the commit packs stay; they are complete
	}
	for _, old := range p.doomed {
		removePack(old)
	}
	p.doomed = p.commits
	for _, sg := range p.segs[keep:] {
		p.doomed = append(p.doomed, sg.name)
	}
	p.segs = append(p.segs[:keep], segment{name: name, from: from, to: len(p.objs), level: level})
	p.commits, p.commitBytes = nil, 0
	if !ends {
		// The round goes on and answers for its objects (putObject), so
		// the write storage need not index its new pack: reindexing every
		// pack on every merge cost more than the merge itself. What the
		// storage still lists of the doomed packs, the segment holds too;
		// a read through a pack gone since is retried after a reindex
		// (refuseUnchanged).
		if fi, err := os.Stat(r.packDir()); err == nil {
			r.packs = fi.ModTime()
		}
		return
	}
	// The round ends and its pack stays: from now on the write storage
	// answers for the round's objects, so it indexes the packs again.
	p.objs, p.at, p.bases, p.bytes, p.segs = nil, nil, nil, 0, nil
	r.prefix = packPrefix{} // its bases are the round's entries
	r.packs = time.Time{}
}

// fanIn is how many segments of one level a merge makes one of.
const fanIn = 4

// mergeFrom says which segments the next merge takes in with the commit
// packs (segs[keep:]) and the level of the segment it writes: the ones
// that carry, or all of them when the round ends.
func (p *pending) mergeFrom(ends bool) (keep, level int) {
	if ends {
		return 0, 0
	}
	keep = len(p.segs)
	for {
		j := keep
		for j > 0 && p.segs[j-1].level == level {
			j--
		}
		if keep-j < fanIn-1 {
			return keep, level
		}
		keep, level = j, level+1
	}
}

// writeSegment writes objs[from:] as one pack into dir, after the bases of
// their deltas that come before from, and returns its path without
// extension.
func (p *pending) writeSegment(dir string, from int) (string, error) {
	var outside []int // the bases before from, in order
	for i := from; i < len(p.objs); i++ {
		b := p.objs[i].base
		if at, ok := p.at[b]; ok && !b.IsZero() && at < from && !slices.Contains(outside, at) {
			outside = append(outside, at)
		}
	}
	slices.Sort(outside)
	size := 0
	for _, at := range outside {
		size += len(p.objs[at].z)
	}
	for i := from; i < len(p.objs); i++ {
		size += len(p.objs[i].z)
	}
	w := newPackWriter(dir, len(outside)+len(p.objs)-from, size)
	defer w.release()
	for _, at := range outside {
		w.add(&p.objs[at])
	}
	for i := from; i < len(p.objs); i++ {
		w.add(&p.objs[i])
	}
	return w.install(dir)
}

// removePack deletes a pack and its index, the pack first (see install).
func removePack(name string) {
	os.Remove(name + ".pack")
	os.Remove(name + ".idx")
}

// packWriter assembles a pack and its index. A commit pack is kept in
// memory until install; a pack expected to pass spillAbove (a merge)
// spills to a temporary file in its directory in chunks of spillChunk, so
// its bytes are copied once, into the file, and never sit in one large
// buffer: a fresh buffer of a few MiB for each merge cost its
// allocation, its zeroing and its page faults, more than the copy itself.
type packWriter struct {
	buf     *bytes.Buffer
	idx     idxfile.Writer
	offsets map[plumbing.Hash]int
	n       int // entries the header announces
	err     error
	// sum is the pack's SHA-1 over what file holds and buf[:summed];
	// install sums the rest.
	sum    hash.Cloner
	summed int
	// file is the temporary file the pack spills to, nil while it is
	// kept in memory; flushed is how many of the pack's bytes it holds.
	file    *os.File
	flushed int
}

// spillAbove is the expected size above which a pack spills to its file
// as it is assembled; spillChunk is how much it buffers between writes.
var (
	spillAbove = 1 << 20
	spillChunk = 256 << 10
)

// packPrefix is the start of the last commit pack: how many entries its
// header announced, the bases it repeated after the header, and the
// SHA-1 state over those bytes. Consecutive commits into one folder
// repeat the same base (the folder's index: 130 KB compressed once 1,800
// documents share the folder), and the pack's checksum resumes after it.
type packPrefix struct {
	n     int
	bases []plumbing.Hash
	sum   hash.Cloner
}

// resumeSum starts w's checksum from the last commit pack's prefix when
// w begins as it did (same entry count, same bases), and otherwise sums
// w's prefix and keeps it for the next commit pack.
func (r *Repo) resumeSum(w *packWriter, bases []pendingObject) {
	p := &r.prefix
	same := p.sum != nil && p.n == w.n && len(p.bases) == len(bases)
	for i := 0; same && i < len(bases); i++ {
		same = p.bases[i] == bases[i].hash
	}
	if !same {
		w.sum.Write(w.buf.Bytes()[w.summed:])
		p.n, p.bases, p.sum = w.n, p.bases[:0], nil
		for _, b := range bases {
			p.bases = append(p.bases, b.hash)
		}
		if c, err := w.sum.Clone(); err == nil {
			p.sum = c
		}
		w.summed = w.buf.Len()
		return
	}
	if c, err := p.sum.Clone(); err == nil {
		w.sum, w.summed = c, w.buf.Len()
	}
}

// packBufs keeps the buffers packs are assembled in between packs. A
// commit pack repeats the base of every delta it holds (a folder's index,
// 450 KB once 1,800 documents share the folder, about a third of that
// compressed), and a fresh buffer for each commit cost its allocation, its
// zeroing and the collector's time to free it.
var packBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledPack is the largest buffer packBufs keeps: a merged pack of a
// few MiB is kept, an unusually large one left to the collector.
const maxPooledPack = 16 << 20

// newPackWriter starts a pack of n entries whose compressed bodies total
// about size bytes, to be installed in dir: growing the buffer by doubling
// cost more than writing. Its buffer comes from packBufs; release gives it
// back.
func newPackWriter(dir string, n, size int) *packWriter {
	w := &packWriter{buf: packBufs.Get().(*bytes.Buffer), offsets: make(map[plumbing.Hash]int, n), n: n,
		sum: sha1.New().(hash.Cloner)}
	w.buf.Reset()
	room := 12 + size + n*entryOverhead + sha1.Size
	if room > spillAbove {
		w.file, w.err = createTemp(dir)
		room = spillChunk
	}
	w.buf.Grow(room)
	w.buf.WriteString("PACK")
	w.buf.Write(binary.BigEndian.AppendUint32(nil, 2))
	w.buf.Write(binary.BigEndian.AppendUint32(nil, uint32(n)))
	w.err = errors.Join(w.err, w.idx.OnHeader(uint32(n)))
	return w
}

// len is the pack's length so far.
func (w *packWriter) len() int { return w.flushed + w.buf.Len() }

// add appends one entry: its type and size header, for a delta the
// distance back to its base (which w holds already), then the zlib
// stream of its body. A whole entry keeps its CRC-32 for the next pack
// that repeats it.
func (w *packWriter) add(o *pendingObject) {
	start := w.buf.Len()
	at := w.flushed + start
	w.offsets[o.hash] = at
	if !o.base.IsZero() {
		w.buf.Write(appendOfsDistance(appendEntryHeader(w.buf.AvailableBuffer(), plumbing.OFSDeltaObject, o.size), at-w.offsets[o.base]))
		w.buf.Write(o.z)
		w.idx.Add(o.hash, uint64(at), crc32.ChecksumIEEE(w.buf.Bytes()[start:]))
	} else {
		w.buf.Write(appendEntryHeader(w.buf.AvailableBuffer(), o.typ, o.size))
		w.buf.Write(o.z)
		if o.crc == 0 {
			o.crc = crc32.ChecksumIEEE(w.buf.Bytes()[start:])
		}
		w.idx.Add(o.hash, uint64(at), o.crc)
	}
	if w.file != nil && w.buf.Len() >= spillChunk {
		w.flush()
	}
}

// flush sums what buf holds and moves it to the file.
func (w *packWriter) flush() {
	w.sum.Write(w.buf.Bytes()[w.summed:])
	if w.err == nil {
		_, w.err = w.file.Write(w.buf.Bytes())
	}
	w.flushed += w.buf.Len()
	w.buf.Reset()
	w.summed = 0
}

// release gives the writer's buffer back to packBufs once the pack is
// installed (or abandoned), and removes its file if it was not installed;
// the writer is not used again.
func (w *packWriter) release() {
	if w.buf.Cap() <= maxPooledPack {
		packBufs.Put(w.buf)
	}
	w.buf = nil
	if w.file != nil {
		w.file.Close()
		os.Remove(w.file.Name())
	}
}

// install writes the pack and its index into dir, named as git names
// them, the index first. It returns the pack's path without extension.
//
// The order matters to a writer killed in between: git skips an index
// whose pack is missing, but go-git lists packs by their .pack files and
// refuses to read anything once one has no index.
func (w *packWriter) install(dir string) (string, error) {
	if w.err != nil {
		return "", w.err
	}
	w.sum.Write(w.buf.Bytes()[w.summed:])
	sum := [sha1.Size]byte(w.sum.Sum(nil))
	w.buf.Write(sum[:])
	if err := w.idx.OnFooter(plumbing.Hash(sum)); err != nil {
		return "", err
	}
	mi, err := w.idx.Index()
	if err != nil {
		return "", err
	}
	var ib bytes.Buffer
	if _, err := idxfile.NewEncoder(&ib).Encode(mi); err != nil {
		return "", err
	}
	name := filepath.Join(dir, "pack-"+plumbing.Hash(sum).String())
	if err := installFile(dir, name+".idx", ib.Bytes()); err != nil {
		return "", err
	}
	if w.file == nil {
		err = installFile(dir, name+".pack", w.buf.Bytes())
	} else {
		f := w.file
		w.file = nil
		_, err = f.Write(w.buf.Bytes())
		err = finishFile(f, name+".pack", err)
	}
	if err != nil {
		os.Remove(name + ".idx")
		return "", err
	}
	return name, nil
}

// appendEntryHeader appends the pack entry header: type and size, 4 bits
// of size in the first byte, 7 in each next.
func appendEntryHeader(b []byte, t plumbing.ObjectType, size int) []byte {
	c := byte(t)<<4 | byte(size&0x0f)
	for size >>= 4; size > 0; size >>= 7 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
	}
	return append(b, c)
}

// appendOfsDistance appends an OFS_DELTA's distance to its base:
// big-endian 7-bit groups, each but the last adding one (git's offset
// encoding).
func appendOfsDistance(b []byte, d int) []byte {
	var groups [10]byte
	i := len(groups) - 1
	groups[i] = byte(d & 0x7f)
	for d >>= 7; d > 0; d >>= 7 {
		d--
		i--
		groups[i] = 0x80 | byte(d&0x7f)
	}
	return append(b, groups[i:]...)
}

// installFile writes data to a temporary file in dir and renames it to
// name, read-only as git keeps packs.
func installFile(dir, name string, data []byte) error {
	f, err := createTemp(dir)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return finishFile(f, name, err)
}

// createTemp creates a temporary pack file in dir, creating dir first.
func createTemp(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.CreateTemp(dir, "tmp_pack_")
}

// finishFile makes the temporary file f read-only, closes it and renames
// it to name; werr is the error of writing it, if any. On failure f is
// removed.
func finishFile(f *os.File, name string, werr error) error {
	if err := errors.Join(werr, f.Chmod(0o444), f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), name); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
