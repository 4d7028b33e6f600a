// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line is one matching line of one term, as the memo stores it:
// [line_no, section, pos, line_text], pos in runes.
type Line struct {
	Line    int
	Section *string
	Pos     int
	Text    string
}

// MarshalJSON writes the record as the memo's four-element array.
func (l Line) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{l.Line, l.Section, l.Pos, l.Text})
}

// UnmarshalJSON reads the memo's four-element array.
func (l *Line) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 4 {
		return fmt.Errorf("line record: want 4 fields")
	}
	if err := json.Unmarshal(raw[0], &l.Line); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[1], &l.Section); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[2], &l.Pos); err != nil {
		return err
	}
	return json.Unmarshal(raw[3], &l.Text)
}

// ScanBody scans a body for every term in one pass and returns, per term,
// its complete list of matching lines. Lines split as Python's splitlines
// does; a level-2 or level-3 heading sets the section.
func ScanBody(body string, terms [][]rune) [][]Line {
	return newBodyScanner(terms).scan(body)
}

// ScanLines is ScanBody without the quick reject, for a body known to
// be scanned line by line anyway (a node asked for by id).
func ScanLines(body string, terms [][]rune) [][]Line {
	return newBodyScanner(terms).scanLines(body, make([][]Line, len(terms)))
}

// bodyScanner scans many bodies for one set of terms. It is not safe for
// concurrent use: each worker of a cold scan has its own, so the folded
// copy of a body reuses one buffer instead of allocating four bytes per
// character.
type bodyScanner struct {
	terms   [][]rune
	needles [][]byte // the terms as folded UTF-8
	buf     []byte
	lines   [][2]int // line bounds in buf (scanFolded)
}

func newBodyScanner(terms [][]rune) *bodyScanner {
	s := &bodyScanner{terms: terms, needles: make([][]byte, len(terms))}
	for i, t := range terms {
		s.needles[i] = []byte(string(t))
	}
	return s
}

// scan answers ScanBody. Most bodies hold none of the terms, so the
// quick reject runs first, as a byte search over the folded UTF-8; only a
// body that holds a term is scanned line by line.
func (s *bodyScanner) scan(body string) [][]Line {
	out := make([][]Line, len(s.terms))
	s.buf = appendFolded(s.buf[:0], body)
	if !s.holdsAny(s.buf) {
		return out
	}
	if s.scanFolded(body, out) {
		return out
	}
	return s.scanLines(body, out)
}

// scanFolded is scanLines over a valid body whose fold s.buf holds: the
// lines of the fold are the lines of the body (every line break folds to
// itself, and no other character folds to one), so each line is searched
// in the fold already made instead of being folded again. It reports
// false, leaving out untouched, for an invalid body or if the two
// disagree on the number of lines.
func (s *bodyScanner) scanFolded(body string, out [][]Line) bool {
	if !utf8.ValidString(body) {
		return false
	}
	folded := s.buf
	s.lines = s.lines[:0]
	forEachLine(folded, func(start, end int) { s.lines = append(s.lines, [2]int{start, end}) })
	n := 0
	forEachLine(body, func(int, int) { n++ })
	if n != len(s.lines) {
		return false
	}
	var section *string
	k := 0
	forEachLine(body, func(start, end int) {
		f := folded[s.lines[k][0]:s.lines[k][1]]
		k++
		line := body[start:end]
		if h, ok := SectionHeading(line); ok {
			name := strings.Clone(*h)
			section = &name
		}
		text := ""
		for i, n := range s.needles {
			if j := bytes.Index(f, n); j >= 0 {
				if text == "" {
					text = strings.Clone(line)
				}
				out[i] = append(out[i], Line{Line: k, Section: section, Pos: utf8.RuneCount(f[:j]), Text: text})
			}
		}
	})
	return true
}

// lineNumbers is scan's answer from a fold alone: per term, the numbers
// of the lines holding it, with no section, position or text. The lines
// of a fold are those of its body (see scanFolded), so the numbers are
// the ones scan gives; the records are read from the body when needed.
// Each term is searched in the whole fold, and lines are walked only up
// to its last match: a common term's holders are mostly long bodies
// with a few matching lines.
func (s *bodyScanner) lineNumbers(folded []byte) [][]Line {
	out := make([][]Line, len(s.needles))
	for i, n := range s.needles {
		line, end, next := 0, 0, 0 // the line walked to is [.., end), the next starts at next
		for from := 0; from < len(folded); {
			j := bytes.Index(folded[from:], n)
			if j < 0 {
				break
			}
			at := from + j
			for at >= next {
				end, next = nextBreak(folded, next)
				line++
			}
			if at+len(n) > end { // across a break: no line holds it here
				from = at + 1
				continue
			}
			out[i] = append(out[i], Line{Line: line})
			from = next
		}
	}
	return out
}

// holdsAny reports whether folded text holds at least one of the terms.
func (s *bodyScanner) holdsAny(folded []byte) bool {
	for _, n := range s.needles {
		if bytes.Contains(folded, n) {
			return true
		}
	}
	return false
}

// scanLines is the exact scan: every line of body, every term, with the
// section each match sits in. It searches each line's folded UTF-8 for
// the folded terms; folding keeps the rune count, so a match's rune
// offset in the folded line is its position in the original. A line that
// is not valid UTF-8 is taken as its rune conversion (each bad byte one
// U+FFFD), which is what the folded bytes describe; in a valid body every
// line is valid, so only an invalid body checks its lines.
func (s *bodyScanner) scanLines(body string, out [][]Line) [][]Line {
	valid := utf8.ValidString(body)
	var section *string
	lineNo := 0
	forEachLine(body, func(start, end int) {
		lineNo++
		line := body[start:end]
		if !valid && !utf8.ValidString(line) {
			line = string([]rune(line))
		}
		if h, ok := SectionHeading(line); ok {
			name := strings.Clone(*h) // as text below
			section = &name
		}
		s.buf = appendFolded(s.buf[:0], line)
		text := "" // a copy, so a kept match does not keep its whole body alive
		for i, n := range s.needles {
			if j := bytes.Index(s.buf, n); j >= 0 {
				if text == "" {
					text = strings.Clone(line)
				}
				out[i] = append(out[i], Line{Line: lineNo, Section: section, Pos: utf8.RuneCount(s.buf[:j]), Text: text})
			}
		}
	})
	return out
}

// forEachLine walks the lines of body as Python's str.splitlines splits
// them: at \n, \r, \v, \f, \x1c-\x1e, U+0085, U+2028 and U+2029, with "\r\n"
// one break. It gives each line's byte offsets. A byte that cannot start
// a break is passed over with one table lookup; U+0085 and U+2028-9 are
// recognised by their bytes, which no other rune's encoding contains at
// a rune boundary and which are never inside another rune.
func forEachLine[T ~string | ~[]byte](body T, fn func(start, end int)) {
	for start := 0; start < len(body); {
		end, next := nextBreak(body, start)
		fn(start, end)
		start = next
	}
}

// nextBreak finds the first line break of body at or after from: the
// line ends at end and the next starts at next (both len(body) when no
// break follows).
func nextBreak[T ~string | ~[]byte](body T, from int) (end, next int) {
	for i := from; i < len(body); {
		c := body[i]
		if !mayBreak[c] {
			i++
			continue
		}
		size := 1
		switch c {
		case 0xC2: // U+0085 is C2 85
			if i+1 >= len(body) || body[i+1] != 0x85 {
				i++
				continue
			}
			size = 2
		case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 >= len(body) || body[i+1] != 0x80 || (body[i+2] != 0xA8 && body[i+2] != 0xA9) {
				i++
				continue
			}
			size = 3
		case '\r':
			if i+1 < len(body) && body[i+1] == '\n' {
				size = 2
			}
		}
		return i, i + size
	}
	return len(body), len(body)
}

// mayBreak marks the bytes a line break can start with.
var mayBreak = func() (t [256]bool) {
	for _, c := range []byte{'\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0xC2, 0xE2} {
		t[c] = true
	}
	return t
}()

// SectionHeading matches ^(#{1,6})\s+(.*?)\s*$ and keeps levels 2 and 3.
func SectionHeading(line string) (*string, bool) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level < 2 || level > 3 || level == len(line) {
		return nil, false
	}
	rest := line[level:]
	trimmed := strings.TrimLeft(rest, " \t\v\f\r")
	if len(trimmed) == len(rest) {
		return nil, false // "##x" is not a heading
	}
	text := strings.TrimRight(trimmed, " \t\v\f\r")
	return &text, true
}
