// SPDX-License-Identifier: Apache-2.0

// Package bodyindex is the persistent trigram index over folded node
// bodies that lets a first-time sniff (C.6b, memo empty) read candidate
// bodies instead of every body. It answers one question: which documents
// may hold a folded needle as a byte substring. The answer is a superset,
// never a subset: every document whose folded bytes contain the needle is
// a candidate, and the caller verifies each candidate by the literal scan,
// so results are those of the scan.
//
// Grams are taken over the folded UTF-8 bytes, the bytes sniff's quick
// reject searches: every three consecutive bytes, plus one end gram for
// the last two bytes of a document, so a two-byte needle (the shortest
// term sniff takes) is found at the very end of a body too.
//
// The index is derived: the file lives under _derived/, is rebuilt from
// the fold cache, and deleting it changes latency only. Each document is
// stored with the body hash it was indexed from; the caller trusts the
// index for a node only while the catalog's hash is that one.
//
// Format (little-endian where fixed-width): the magic line, then postings
// grouped in segments of documents, then the document table (uvarint
// count; per document uvarint id length, id, 32 raw bytes of hash), then
// the dictionary (uvarint segment count; per segment uvarint first
// document, document count and gram count; per gram uvarint key delta,
// posting offset delta and count), then a footer: the document table's
// and the dictionary's offsets (8 bytes each) and the magic tail.
// A posting is one uvarint: the gap from the previous document number
// (the first counted from the segment's first document) shifted left by
// one, its low bit set when a second uvarint follows with the number of
// lines of the document holding the gram (absent: one line). Version 1
// had no line counts; a file of it is rebuilt like a damaged one.
package bodyindex

import (
	"encoding/binary"
	"slices"
)

const (
	magic     = "vine-body-grams 2\n"
	magicTail = "vbgrams2"
	footerLen = 16 + len(magicTail)
)

// endMark sets an end gram apart from every three-byte gram.
const endMark = 1 << 24

// appendPosting encodes one posting: the document gap and the lines of
// the document holding the gram.
func appendPosting(dst []byte, gap, lines int32) []byte {
	if lines <= 1 {
		return binary.AppendUvarint(dst, uint64(gap)<<1)
	}
	dst = binary.AppendUvarint(dst, uint64(gap)<<1|1)
	return binary.AppendUvarint(dst, uint64(lines))
}

func gramKey(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

func endKey(a, b byte) uint32 { return endMark | uint32(a)<<16 | uint32(b)<<8 }

// needleGrams are the distinct three-byte grams of a needle of at least
// three bytes, sorted.
func needleGrams(needle []byte) []uint32 {
	var out []uint32
	for i := 0; i+3 <= len(needle); i++ {
		out = append(out, gramKey(needle[i], needle[i+1], needle[i+2]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
