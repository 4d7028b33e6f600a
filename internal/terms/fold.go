// SPDX-License-Identifier: Apache-2.0

// Package terms turns a caller's question into search terms (C.1.2 and
// C.6c §2.2) and folds text for comparison (C.6b). locate, harvest and
// sniff share these functions so that two readings of one intent cannot
// drift apart.
package terms

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// foldLimit is the first code point the fold leaves alone (C.6b): below
// it a lookup table holds every answer; at and above it no code point
// changes under the rule for the Unicode version in use, and a table of
// the whole range would be mostly empty.
const foldLimit = 0x30000

var (
	foldOnce  sync.Once
	foldTable []rune // foldTable[r] is FoldRune(r) for r < foldLimit
)

// FoldRune folds one code point: the first code point of its canonical
// decomposition (NFD), lowercased by the simple mapping. So 'Ç' gives 'c',
// a Hangul syllable its leading jamo, and 'ß' stays 'ß'. The table behind
// it is built on first use, never at package init, so a process that
// folds nothing pays nothing.
func FoldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}
	if r < 0 || r >= foldLimit {
		return r
	}
	foldOnce.Do(buildFoldTable)
	return foldTable[r]
}

// Fold folds every code point of s with FoldRune. It preserves length in
// code points, so a position found in Fold(s) indexes the same code point
// of s. Invalid UTF-8 bytes read as U+FFFD, one each.
func Fold(s string) string {
	if isFolded(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(FoldRune(r))
	}
	return b.String()
}

// isFolded reports whether s is ASCII without upper-case letters, the
// common case Fold returns as it is.
func isFolded(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// Warm builds the fold table now, for callers that would rather pay for
// it at startup than on the first query.
func Warm() { foldOnce.Do(buildFoldTable) }

func buildFoldTable() {
	t := make([]rune, foldLimit)
	var buf [utf8.UTFMax]byte
	for r := rune(0); r < foldLimit; r++ {
		t[r] = r
		if r < utf8.RuneSelf || !utf8.ValidRune(r) {
			continue
		}
		t[r] = unicode.ToLower(firstOfNFD(r, buf[:]))
	}
	for r := 'A'; r <= 'Z'; r++ {
		t[r] = r + ('a' - 'A')
	}
	foldTable = t
}

// Hangul syllables decompose algorithmically (Unicode §3.12); the
// normalization tables carry every other decomposition.
const (
	hangulBase  = 0xAC00
	hangulLast  = 0xD7A3
	hangulLBase = 0x1100
	hangulLRun  = 21 * 28 // syllables per leading consonant
)

// firstOfNFD is the first code point of r's canonical decomposition. It
// reads the decomposition from the normalization tables instead of
// normalizing a string per code point, which builds the table about ten
// times faster.
func firstOfNFD(r rune, buf []byte) rune {
	if r >= hangulBase && r <= hangulLast {
		return hangulLBase + (r-hangulBase)/hangulLRun
	}
	n := utf8.EncodeRune(buf, r)
	if d := norm.NFD.Properties(buf[:n]).Decomposition(); len(d) > 0 {
		first, _ := utf8.DecodeRune(d)
		return first
	}
	return r
}
