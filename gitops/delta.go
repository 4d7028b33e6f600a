// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
)

// A deltaBase is an object that later versions of the same path are
// expressed against in a pack (git's delta format): its bytes and where
// each of its lines first starts.
//
// The deltas are line based on purpose. What changes between two commits
// of an engine-written file is whole lines — an index gains an entry line
// and its coverage line — so a line lookup plus a byte-wise extension of
// every match finds the same copies git's block index would, in one pass
// over the new version and without a window search.
//
// Lines are found by a hash of their bytes, not by the bytes as map keys:
// a base lives as long as the round of packs it belongs to, and a map of
// thousands of strings was as many allocations to build and as many
// pointers for the collector to trace on every cycle. A line whose hash
// names another line is no loss of correctness: every match is measured
// against the bytes (matchLen), so it only yields a shorter copy or none.
type deltaBase struct {
	data  []byte
	lines map[uint64]int32 // hash of a line (with its newline) -> first offset in data
}

// lineSeed keys the line hashes of every deltaBase.
var lineSeed = maphash.MakeSeed()

func newDeltaBase(data []byte) *deltaBase {
	b := &deltaBase{data: data, lines: make(map[uint64]int32, bytes.Count(data, []byte{'\n'})+1)}
	if len(data) > math.MaxInt32 {
		return b // offsets would not fit; such a version is stored whole
	}
	for i := 0; i < len(data); {
		j := lineEnd(data, i)
		h := maphash.Bytes(lineSeed, data[i:j])
		if _, ok := b.lines[h]; !ok {
			b.lines[h] = int32(i)
		}
		i = j
	}
	return b
}

// lineEnd is the offset just past the line starting at i.
func lineEnd(data []byte, i int) int {
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(data)
}

// minCopy is the shortest match worth a copy instruction (at most 8 bytes)
// instead of an insert of the same bytes.
const minCopy = 16

// delta encodes target as a git delta against b: copies of base ranges
// and inserts of new bytes (Documentation/gitformat-pack.txt, "Deltified
// representation").
func (b *deltaBase) delta(target []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(len(b.data)))
	out = binary.AppendUvarint(out, uint64(len(target)))
	suffix := commonSuffix(b.data, target)
	end := len(target) - suffix
	ins := 0 // start of the bytes not yet encoded
	for i := 0; i < end; {
		off, n := b.match(target[:end], i)
		if n < minCopy {
			i = lineEnd(target[:end], i)
			continue
		}
		out = appendInsert(out, target[ins:i])
		out = appendCopy(out, off, n)
		i += n
		ins = i
	}
	out = appendInsert(out, target[ins:end])
	return appendCopy(out, len(b.data)-suffix, suffix)
}

// match finds where target[i:] continues base: at the same offset first
// (a common prefix), else where the line at i first occurs in base; it
// returns the base offset and the length of the match.
func (b *deltaBase) match(target []byte, i int) (off, n int) {
	if i == 0 {
		if n := matchLen(b.data, target); n > 0 {
			return 0, n
		}
	}
	at, ok := b.lines[maphash.Bytes(lineSeed, target[i:lineEnd(target, i)])]
	if !ok {
		return 0, 0
	}
	off = int(at)
	return off, matchLen(b.data[off:], target[i:])
}

// matchLen is the length of the common prefix of a and b: an index's
// versions share hundreds of kilobytes, so whole blocks are compared
// first (bytes.Equal uses vector instructions), then eight bytes at a
// time within the block that differs.
func matchLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+matchBlock <= n && bytes.Equal(a[i:i+matchBlock], b[i:i+matchBlock]) {
		i += matchBlock
	}
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// matchBlock is how many bytes matchLen and commonSuffix compare at once
// before they look for the first difference word by word.
const matchBlock = 512

// commonSuffix is the length of the common suffix of a and b, found as
// matchLen finds a prefix.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+matchBlock <= n && bytes.Equal(a[len(a)-i-matchBlock:len(a)-i], b[len(b)-i-matchBlock:len(b)-i]) {
		i += matchBlock
	}
	for ; i+8 <= n; i += 8 {
		x := binary.BigEndian.Uint64(a[len(a)-i-8:]) ^ binary.BigEndian.Uint64(b[len(b)-i-8:])
		if x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n; i++ {
		if a[len(a)-1-i] != b[len(b)-1-i] {
			return i
		}
	}
	return n
}

// appendInsert adds insert instructions for lit (at most 127 bytes each).
func appendInsert(out, lit []byte) []byte {
	for len(lit) > 0 {
		n := min(len(lit), 127)
		out = append(out, byte(n))
		out = append(out, lit[:n]...)
		lit = lit[n:]
	}
	return out
}

// maxCopy is the longest copy one instruction carries, as git writes them.
const maxCopy = 0x10000

// appendCopy adds copy instructions for base[off:off+n].
func appendCopy(out []byte, off, n int) []byte {
	for n > 0 {
		size := min(n, maxCopy)
		cmd := len(out)
		out = append(out, 0x80)
		for k := range 4 {
			if v := byte(off >> (8 * k)); v != 0 {
				out[cmd] |= 1 << k
				out = append(out, v)
			}
		}
		if size != maxCopy { // a size of 0 means 0x10000
			for k := range 3 {
				if v := byte(size >> (8 * k)); v != 0 {
					out[cmd] |= 0x10 << k
					out = append(out, v)
				}
			}
		}
		off += size
		n -= size
	}
	return out
}
