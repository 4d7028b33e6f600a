// SPDX-License-Identifier: Apache-2.0

package budget

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Runes is utf8.RuneCountInString(s), stepping over ASCII eight bytes at a
// time: bodies are mostly ASCII, every write counts the bodies it puts
// whole, and a folder's index of 1,800 entries is 450 KB.
func Runes(s string) int {
	n, _ := RunesTo(s, len(s))
	return n
}

// RunesTo counts the runes of s that begin before limit, as Runes counts
// them, and returns end, where the next rune begins: limit, up to three
// bytes past it when a rune straddles limit, or len(s) when s ends first.
// Decoding never looks back, so a count can stop and resume:
// Runes(s) == n + Runes(s[end:]), which lets a caller keep the count of a
// long prefix and count only what follows it.
func RunesTo(s string, limit int) (n, end int) {
	limit = min(limit, len(s))
	i := 0
	for i < limit {
		if i+8 <= limit {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if w&0x8080808080808080 == 0 {
				n, i = n+8, i+8
				continue
			}
		}
		if s[i] < utf8.RuneSelf {
			n, i = n+1, i+1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n, i = n+1, i+size
	}
	return n, i
}

// Sizing a payload from its parts: a caller that knows its payload's
// shape adds up the code points each part takes in the rendering
// EstimatePayloadTokens measures, without encoding it. The parts' sizes
// must be those of that rendering exactly; a test of the caller holds the
// two together.

// StringRunes is the number of code points s takes as a JSON string in
// the measured rendering, quotes included: escapes as encoding/json
// writes them with HTML characters raw (two for a quote, a backslash and
// \b \f \n \r \t; six for other control characters, invalid bytes and
// U+2028, U+2029); every other character is itself.
func StringRunes(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			i++
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20:
				n += 6
			default:
				n++
			}
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if (c == utf8.RuneError && size == 1) || c == '\u2028' || c == '\u2029' {
			n += 6
		} else {
			n++
		}
	}
	return n
}

// FloatRunes is the number of code points f takes as a JSON number in the
// measured rendering, as encoding/json formats a float64; ok is false for
// NaN and the infinities, which it refuses to encode.
func FloatRunes(f float64) (n int, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	var buf [32]byte
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(buf[:0], f, format, -1, 64)
	n = len(b)
	if format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		n-- // e-09 is written e-9
	}
	return n, true
}

// FitPrefix is the longest prefix of a list that fits limit tokens, for a
// payload of fixed code points around the list whose items take sizes
// code points each and are joined by ", ": the cut ShrinkTail makes of
// such a payload.
func FitPrefix(fixed int, sizes []int, limit int) int {
	total := fixed
	for i, s := range sizes {
		next := total + s
		if i > 0 {
			next += len(", ")
		}
		if tokens(next) > limit {
			return i
		}
		total = next
	}
	return len(sizes)
}
