// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"slices"
	"unicode/utf8"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/terms"
)

// appendFolded appends the UTF-8 of s folded rune by rune to dst (the
// fold of C.6b, vine.Fold). ASCII takes a table-free fast path; an invalid
// byte folds to U+FFFD, as a rune conversion does, so a byte search on the
// result agrees with a rune search on the folded runes of s: UTF-8 is
// self-synchronising.
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

// bodyHash is the catalog's body hash (C.6.1 §2.2): the fold cache keeps
// each folded body under the hash of the body it read.
func bodyHash(body string) string { return catalog.BodyHash(body) }
