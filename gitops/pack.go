// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// Packing what commits wrote.
//
// Every commit rewrites its parent index whole, and a branch index grows
// with the branch: adopting 2,000 documents into one folder wrote a
// 450 KB index 2,000 times, 140 MiB of loose objects, most of the adopt's
// time spent compressing them. So the Repo keeps, in memory, what it wrote
// since it last packed, and each path's versions after the first as a
// line delta against that first one (delta.go). Once the loose bytes pass
// packAfter, the commit that crossed the line writes them as one pack with
// its index, the way git stores history: the first version whole, the
// others as small deltas. Large objects are then written loose without
// compression at all (they live until the next pack), which takes the
// per-commit cost of a big index down to hashing and copying it.
//
// The loose copies of a pack's objects are deleted one pack later, not at
// once, so a reader that listed the packs just before the new one
// appeared still finds them. A failed pack leaves the loose objects,
// which are complete: packing is an optimisation, never the record.

// packAfter is how many raw bytes of loose objects a Repo writes before it
// packs them; it also bounds the memory the pending objects hold.
var packAfter = 16 << 20

// storeLooseAbove is the size from which an object is written loose
// without compression, since a pack will hold it compressed soon.
const storeLooseAbove = 64 << 10

// pendingObject is an object written loose since the last pack: its full
// bytes, or a delta against the first version of its path (base).
type pendingObject struct {
	hash  plumbing.Hash
	typ   plumbing.ObjectType
	data  []byte
	base  plumbing.Hash
	delta []byte
}

// pending is what the Repo wrote since it last packed.
type pending struct {
	objs  []pendingObject
	bytes int
	bases map[string]deltaRef // path key -> first version in this round
	// packed are the loose objects the last pack holds, deleted when the
	// next pack is written.
	packed []plumbing.Hash
}

type deltaRef struct {
	hash plumbing.Hash
	base *deltaBase
}

// note records an object just written loose. key names the path the
// object is a version of ("" when it is no version of anything).
func (p *pending) note(h plumbing.Hash, t plumbing.ObjectType, data []byte, key string) {
	p.bytes += len(data)
	o := pendingObject{hash: h, typ: t}
	if p.bases == nil {
		p.bases = map[string]deltaRef{}
	}
	ref, ok := p.bases[key]
	switch {
	case key == "" || len(data) == 0: // go-git reads no delta of or against nothing
		o.data = data
	case !ok:
		o.data = data
		p.bases[key] = deltaRef{hash: h, base: newDeltaBase(data)}
	default:
		if d := ref.base.delta(data); len(d) < len(data)/2 {
			o.base, o.delta = ref.hash, d
		} else {
			o.data = data
		}
	}
	p.objs = append(p.objs, o)
}

// maybePack packs the pending objects once they pass packAfter. Callers
// hold r.mu.
func (r *Repo) maybePack() {
	p := &r.pend
	if p.bytes < packAfter {
		return
	}
	objs := p.objs
	old := p.packed
	p.objs, p.bytes, p.bases, p.packed = nil, 0, nil, nil
	if err := writePack(filepath.Join(r.dot.Root(), "objects", "pack"), objs); err != nil {
		return // the loose objects stay; they are complete
	}
	r.refreshPacks()
	r.removeLoose(old)
	for _, o := range objs {
		p.packed = append(p.packed, o.hash)
	}
}

// removeLoose deletes loose objects a pack holds.
func (r *Repo) removeLoose(hashes []plumbing.Hash) {
	objects := filepath.Join(r.dot.Root(), "objects")
	for _, h := range hashes {
		hex := h.String()
		os.Remove(filepath.Join(objects, hex[:2], hex[2:]))
	}
}

// writePack writes objs (every delta after its base) as a pack and its
// index into dir, named as git names them, the index last: a pack is
// visible once its index is.
func writePack(dir string, objs []pendingObject) error {
	var buf bytes.Buffer
	buf.WriteString("PACK")
	buf.Write(binary.BigEndian.AppendUint32(nil, 2))
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(objs))))
	idx := &idxfile.Writer{}
	if err := idx.OnHeader(uint32(len(objs))); err != nil {
		return err
	}
	offsets := make(map[plumbing.Hash]int, len(objs))
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	for _, o := range objs {
		start := buf.Len()
		offsets[o.hash] = start
		if err := appendEntry(&buf, zw, o, offsets); err != nil {
			return err
		}
		idx.Add(o.hash, uint64(start), crc32.ChecksumIEEE(buf.Bytes()[start:]))
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	if err := idx.OnFooter(plumbing.Hash(sum)); err != nil {
		return err
	}
	mi, err := idx.Index()
	if err != nil {
		return err
	}
	var ib bytes.Buffer
	if _, err := idxfile.NewEncoder(&ib).Encode(mi); err != nil {
		return err
	}
	name := filepath.Join(dir, "pack-"+plumbing.Hash(sum).String())
	if err := installFile(dir, name+".pack", buf.Bytes()); err != nil {
		return err
	}
	return installFile(dir, name+".idx", ib.Bytes())
}

// appendEntry writes one pack entry: the type and size header, for a
// delta the distance back to its base, then the zlib stream.
func appendEntry(buf *bytes.Buffer, zw *zlib.Writer, o pendingObject, offsets map[plumbing.Hash]int) error {
	typ, body := o.typ, o.data
	var back int
	if !o.base.IsZero() {
		base, ok := offsets[o.base]
		if !ok {
			return fmt.Errorf("gitops: pack: delta base %s not before %s", o.base, o.hash)
		}
		typ, body, back = plumbing.OFSDeltaObject, o.delta, buf.Len()-base
	}
	buf.Write(entryHeader(typ, len(body)))
	if typ == plumbing.OFSDeltaObject {
		buf.Write(ofsDistance(back))
	}
	zw.Reset(buf)
	_, err := zw.Write(body)
	return errors.Join(err, zw.Close())
}

// entryHeader is the pack entry header: type and size, 4 bits of size in
// the first byte, 7 in each next.
func entryHeader(t plumbing.ObjectType, size int) []byte {
	b := []byte{byte(t)<<4 | byte(size&0x0f)}
	size >>= 4
	for size > 0 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
		size >>= 7
	}
	return b
}

// ofsDistance encodes an OFS_DELTA's distance to its base: big-endian
// 7-bit groups, each but the last adding one (git's offset encoding).
func ofsDistance(d int) []byte {
	b := []byte{byte(d & 0x7f)}
	for d >>= 7; d > 0; d >>= 7 {
		d--
		b = append([]byte{0x80 | byte(d&0x7f)}, b...)
	}
	return b
}

// installFile writes data to a temporary file in dir and renames it to
// name, read-only as git keeps packs.
func installFile(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close(), os.Chmod(f.Name(), 0o444)); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), name); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
