// SPDX-License-Identifier: Apache-2.0

// Package budget estimates tokens the way the specification counts them
// (about four code points a token) and cuts payloads to fit a budget.
package budget

import (
	"bytes"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"unicode/utf8"
)

// EstimateTokens is 0 for the empty string, else max(1, ceil(runes/4)).
func EstimateTokens(s string) int { return TokensOfRunes(Runes(s)) }

// TokensOfRunes is EstimateTokens of a text of n code points, for a
// caller that counted them itself (a count resumed from a prefix's).
func TokensOfRunes(n int) int {
	if n == 0 {
		return 0
	}
	return max(1, (n+3)/4)
}

// EstimatePayloadTokens estimates v as the reference renders it: JSON with
// non-ASCII kept raw, key order kept, and spaced separators ", " and ": ".
// The compact wire form is smaller, so the estimate errs safe.
//
// It counts the code points of the spaced form without building it: every
// reply is measured at least once, and the spaced copy was half the cost.
func EstimatePayloadTokens(v any) int {
	b := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	compact, ok := encode(b, v)
	if !ok || len(compact) == 0 {
		return 0
	}
	return max(1, (SpacedRunes(compact)+3)/4)
}

// Render is the reference rendering EstimatePayloadTokens measures.
func Render(v any) string {
	var b bytes.Buffer
	compact, ok := encode(&b, v)
	if !ok {
		return ""
	}
	return spaceSeparators(compact)
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encode writes v's compact JSON, non-ASCII and HTML characters raw, to b
// (reset first) and returns it without the encoder's newline.
func encode(b *bytes.Buffer, v any) ([]byte, bool) {
	b.Reset()
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, false
	}
	return bytes.TrimRight(b.Bytes(), "\n"), true
}

// SpacedRunes is the length in code points of compact JSON as the
// estimate renders it, with a space after every ',' and ':' outside
// strings: utf8.RuneCountInString of Render's text, without building it.
func SpacedRunes(compact []byte) int {
	return utf8.RuneCount(compact) + countSeparators(compact)
}

// countSeparators counts what separators yields, jumping from quote to
// quote with bytes.IndexByte: nearly every byte of a payload is string
// content, which the walk would visit one at a time.
func countSeparators(b []byte) int {
	n := 0
	for {
		q := bytes.IndexByte(b, '"')
		structural := b
		if q >= 0 {
			structural = b[:q]
		}
		for _, c := range structural {
			if c == ',' || c == ':' {
				n++
			}
		}
		if q < 0 {
			return n
		}
		if b = skipString(b[q+1:]); b == nil {
			return n
		}
	}
}

// skipString returns what follows the string whose content starts b: its
// closing quote is the first one after an even run of backslashes. An
// unterminated string is nil.
func skipString(b []byte) []byte {
	for {
		e := bytes.IndexByte(b, '"')
		if e < 0 {
			return nil
		}
		backslashes := 0
		for backslashes < e && b[e-1-backslashes] == '\\' {
			backslashes++
		}
		b = b[e+1:]
		if backslashes%2 == 0 {
			return b
		}
	}
}

// spaceSeparators inserts a space after every ',' and ':' outside strings.
func spaceSeparators(compact []byte) string {
	var out strings.Builder
	out.Grow(len(compact) + len(compact)/8)
	last := 0
	for i := range separators(compact) {
		out.Write(compact[last : i+1])
		out.WriteByte(' ')
		last = i + 1
	}
	out.Write(compact[last:])
	return out.String()
}

// separators yields the offsets of the ',' and ':' of compact JSON that
// lie outside strings.
func separators(compact []byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		inString, escaped := false, false
		for i, c := range compact {
			switch {
			case escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			case !inString && (c == ',' || c == ':'):
				if !yield(i) {
					return
				}
			}
		}
	}
}

// TruncateText returns s unchanged when it fits maxTokens; otherwise its
// first maxTokens*4 code points, right-trimmed, followed by "…".
func TruncateText(s string, maxTokens int) string {
	if EstimateTokens(s) <= maxTokens {
		return s
	}
	limit := max(0, maxTokens*4)
	i, n := 0, 0
	for i < len(s) && n < limit {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return strings.TrimRight(s[:i], " \t\r\n") + "…"
}

// Fits reports whether v's estimate is within limit tokens.
func Fits(v any, limit int) bool { return EstimatePayloadTokens(v) <= limit }

// ShrinkTail cuts *list to its longest prefix for which render() fits
// limit tokens and returns how many tail items were dropped. render builds
// the whole payload from the current *list; callers keep meta fields at
// their final size before the cut so fixing them afterwards never breaks
// the ceiling.
//
// A payload that does not fit is cut where its items' own renderings say
// (an item sits in the list as ", item"), and the guess is checked with
// two renders: the prefix fits and one more item does not. Only when the
// payload is not that additive (a list that vanishes when empty, say)
// does it fall back to a binary search over prefix lengths. A region's
// look cut hundreds of children that way in eight or nine renders.
func ShrinkTail[T any](list *[]T, limit int, render func() any) int {
	full := *list
	b := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	runes := func(v any) int {
		compact, ok := encode(b, v)
		if !ok {
			return 0
		}
		return SpacedRunes(compact)
	}
	fits := func(n int) bool {
		*list = full[:n]
		return tokens(runes(render())) <= limit
	}
	total := runes(render())
	if tokens(total) <= limit {
		return 0
	}
	guess := len(full)
	for guess > 0 && tokens(total) > limit {
		guess--
		total -= runes(full[guess])
		if guess > 0 {
			total -= len(", ")
		}
	}
	if fits(guess) && (guess+1 == len(full) || !fits(guess+1)) {
		*list = full[:guess]
		return len(full) - guess
	}
	return shrinkBySearch(list, full, fits)
}

// shrinkBySearch is ShrinkTail's fallback: payload size grows with the
// prefix, so a binary search finds the cut in O(log n) renders.
func shrinkBySearch[T any](list *[]T, full []T, fits func(n int) bool) int {
	lo, hi := 0, len(full)-1 // the answer lies in [lo, hi]; all of full does not fit
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	*list = full[:lo]
	return len(full) - lo
}

// tokens is EstimateTokens of a text of n code points.
func tokens(n int) int {
	if n <= 0 {
		return 0
	}
	return max(1, (n+3)/4)
}
