package vine

import (
	"slices"
	"unicode/utf8"

	"github.com/monkeyllm/vine/internal/terms"
)

// Fold is the one fold of the engine (C.6b): each code point becomes the
// first code point of its NFD decomposition, lowercased. It preserves the
// length in code points, so rune positions in folded text index the
// original. Hangul syllables fold to their leading jamo; ß and ligatures
// stay as they are. sniff matches through it, query terms are compared
// through it, and so is the Curator's alias-in-body guard.
func Fold(s string) string { return terms.Fold(s) }

// buildFold builds the fold table now (Warm), never at package init.
func buildFold() { terms.Warm() }

// appendFolded appends the UTF-8 of s folded rune by rune to dst. ASCII
// takes a table-free fast path; an invalid byte folds to U+FFFD, as a
// rune conversion does, so a byte search on the result agrees with a rune
// search on the folded runes of s: UTF-8 is self-synchronising.
func appendFolded(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, asciiLower[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, terms.FoldRune(r))
		i += size
	}
	return dst
}

// asciiLower maps each ASCII byte to its lower case.
var asciiLower = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()
