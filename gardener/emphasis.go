// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Emphasis stripping without the regexp engine.
//
// Nearly every manual page holds underscores, so emphUndRE ran on almost
// every adopted document, and Go's regexp engine walks a long text with
// its NFA: on the man-page corpus that pattern cost more than the rest of
// the summary together. The two single-mark patterns have a shape that
// makes a direct scan simple — between the marks only the first and the
// last character may be a mark — so these functions do what
// ReplaceAllString does with them, leftmost-first and non-overlapping,
// in one pass. FuzzEmphasisScanners holds them to the patterns.

// stripUnderscoreEmphasis is emphUndRE.ReplaceAllString(s, "$1$2$3"):
// `_x_` loses its underscores when flanked by the text's ends or by
// characters that are neither letters, digits nor underscores.
func stripUnderscoreEmphasis(s string) string {
	return stripEmphasis(s, '_', true)
}

// stripStarEmphasis is emphStarRE.ReplaceAllString(s, "$1").
func stripStarEmphasis(s string) string {
	return stripEmphasis(s, '*', false)
}

// stripEmphasis removes pairs of mark around a span whose first and
// last characters are not spaces and whose inner characters are not
// mark. flanked asks for emphUndRE's word-boundary characters around
// the pair, which the match consumes (so a pair right after a match
// cannot open another).
func stripEmphasis(s string, mark byte, flanked bool) string {
	out := rewrite{s: s}
	pos := 0 // where the search resumes
	for {
		i := strings.IndexByte(s[pos:], mark)
		if i < 0 {
			break
		}
		open := pos + i
		start, ok := open, true
		if flanked && open > 0 {
			// The character before the mark belongs to the match, and
			// must not be one an earlier match consumed.
			r, w := utf8.DecodeLastRuneInString(s[:open])
			start, ok = open-w, open-w >= pos && !wordRune(r)
		}
		closeAt, end := -1, -1
		if ok {
			closeAt, end = closeEmphasis(s, open, mark, flanked)
		}
		if end < 0 {
			pos = open + 1
			continue
		}
		// $1, the flank before; $2, the span; $3, the flank after.
		out.replace(start, end, s[start:open], s[open+1:closeAt], s[closeAt+1:end])
		pos = end
	}
	return out.result()
}

// closeEmphasis finds the closing mark and the end of the match whose
// opening mark is at open, or -1s: the span is one non-space character c1, optionally
// followed by non-mark characters and a non-space c2 (preferred, the
// shortest such), then the closing mark and, when flanked, the end of
// the text or a non-word character.
func closeEmphasis(s string, open int, mark byte, flanked bool) (closeAt, end int) {
	p := open + 1
	c1, w1 := utf8.DecodeRuneInString(s[p:])
	if w1 == 0 || isSpace(c1) {
		return -1, -1
	}
	rest := p + w1
	if k := strings.IndexByte(s[rest:], mark); k >= 0 {
		q1 := rest + k // the first mark after c1: no longer span exists
		if q1 > rest { // c2 is the character before it
			if c2, _ := utf8.DecodeLastRuneInString(s[:q1]); !isSpace(c2) {
				if end, ok := afterClose(s, q1+1, flanked); ok {
					return q1, end
				}
			}
		}
		// c2 may be the mark itself, followed by the closing one.
		if q1+1 < len(s) && s[q1+1] == mark {
			if end, ok := afterClose(s, q1+2, flanked); ok {
				return q1 + 1, end
			}
		}
	}
	// Without the optional part: c1 then the closing mark.
	if rest < len(s) && s[rest] == mark {
		if end, ok := afterClose(s, rest+1, flanked); ok {
			return rest, end
		}
	}
	return -1, -1
}

// afterClose checks what follows a closing mark ending at i and returns
// the match's end.
func afterClose(s string, i int, flanked bool) (int, bool) {
	if !flanked || i == len(s) {
		return i, true
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return i + w, !wordRune(r)
}

// wordRune is what `[^\pL\pN_]` refuses.
func wordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// isSpace is the regexp package's \s: ASCII space, tab, newline, form
// feed, carriage return (not vertical tab).
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// stripStrong is strongRE.ReplaceAllString(s, "$2"), for
//
//	(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)
//
// whose marks may differ ("**x__" matches). The optional part is greedy,
// so a span of two characters or more (the first pair of marks after
// them, on the same line, preceded by a non-space) is preferred to a
// span of one character, however far its closing marks are; only when
// the line holds no such pair does a single character right before a
// pair match. Openings that find no longer span on a line all find none
// (each sees a subset of the pairs the first one saw), so the search for
// one runs once per line, and the scan stays linear.
func stripStrong(s string) string {
	out := rewrite{s: s}
	pos := 0
	var lines strongLines
	for {
		open := indexStrongMark(s, pos)
		if open < 0 {
			break
		}
		spanEnd, end := -1, -1
		if c1, w1 := utf8.DecodeRuneInString(s[open+2:]); w1 > 0 && !isSpace(c1) {
			spanEnd, end = lines.close(s, open, w1)
		}
		if end < 0 {
			pos = open + 1
			continue
		}
		out.replace(open, end, s[open+2:spanEnd])
		pos = end
	}
	return out.result()
}

// strongLines is what stripStrong knows of the line it is on, so each
// line is searched once however many openings it holds: where it ends,
// and whether an opening on it found no span of two characters or more.
type strongLines struct {
	end    int  // the end of the line last looked at (its newline or len(s))
	looked bool // end is set
	noSpan bool // the line holds no closing pair for a longer span
}

// close finds the end of the span and of the match whose opening pair is
// at open and whose first character (w1 bytes, not a space) follows it,
// or -1s.
func (l *strongLines) close(s string, open, w1 int) (spanEnd, end int) {
	first := open + 2
	if !l.looked || first > l.end {
		l.end, l.looked, l.noSpan = len(s), true, false
		if k := strings.IndexByte(s[first:], '\n'); k >= 0 {
			l.end = first + k
		}
	}
	if !l.noSpan {
		// c2 is the byte before the pair: a space is ASCII, so a byte of
		// a longer character is never one.
		for p := first + w1 + 1; ; {
			q := indexStrongMark(s[:l.end], p)
			if q < 0 {
				break
			}
			if !isSpace(rune(s[q-1])) {
				return q, q + 2
			}
			p = q + 1
		}
		l.noSpan = true
	}
	// A one-character span: the pair right after c1.
	if q := first + w1; q+1 < len(s) && (s[q:q+2] == "**" || s[q:q+2] == "__") {
		return q, q + 2
	}
	return -1, -1
}

// indexStrongMark is the first "**" or "__" at or after pos, or -1.
func indexStrongMark(s string, pos int) int {
	for pos < len(s) {
		k := strings.IndexAny(s[pos:], "*_")
		if k < 0 {
			return -1
		}
		i := pos + k
		if i+1 < len(s) && s[i+1] == s[i] {
			return i
		}
		pos = i + 1
	}
	return -1
}
