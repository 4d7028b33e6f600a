// SPDX-License-Identifier: Apache-2.0

package forest

import "strings"

// Heading is one ATX markdown heading: its level (1–6) and trimmed text.
type Heading struct {
	Level int
	Text  string
}

// Outline is what a body says about itself (spec §2.6 step 5): the title
// is the first H1, the sections are the H2 and H3 headings in order, and
// the quote is the first line starting ">" when no other text comes
// before it (only blank lines and headings may).
type Outline struct {
	Title    string
	Sections []Heading
	Quote    string
}

// ParseOutline reads a body's outline. Headings inside fenced code blocks
// are code, not structure, and are ignored; so are headings with no text.
// The quote has its leading ">" and spaces removed and is trimmed.
func ParseOutline(body string) Outline {
	out := Outline{Sections: []Heading{}}
	titled := false
	for _, h := range scanHeadings(body) {
		switch {
		case h.text == "":
		case h.level == 1 && !titled:
			out.Title, titled = h.text, true
		case h.level == 2 || h.level == 3:
			out.Sections = append(out.Sections, Heading{Level: h.level, Text: h.text})
		}
	}
	out.Quote = leadingQuote(body)
	return out
}

// SectionNames lists the outline's section texts, the form the catalog
// stores and look returns.
func (o Outline) SectionNames() []string {
	names := make([]string, len(o.Sections))
	for i, h := range o.Sections {
		names[i] = h.Text
	}
	return names
}

// leadingQuote returns the first ">" line if only blanks and headings come
// before it, else "".
func leadingQuote(body string) string {
	for l := range spanLines(body) {
		line := l.text
		switch {
		case strings.HasPrefix(line, ">"):
			return strings.TrimSpace(strings.TrimLeft(line, "> "))
		case strings.TrimSpace(line) == "":
		default:
			if _, _, ok := parseHeading(line); !ok {
				return ""
			}
		}
	}
	return ""
}

// mdHeading is a heading found in a body with the byte offsets of its
// line: start of the line, and just past its newline.
type mdHeading struct {
	level      int
	text       string
	start, end int
}

// scanHeadings lists the body's headings in order, skipping fenced code.
//
// Outside code only a line starting with '#' (a heading), '`' or '~' (a
// fence), or a space (an indented fence) can matter, and a folder's index
// is thousands of entry lines read on every write into it: those lines
// are stepped over by their first byte.
func scanHeadings(body string) []mdHeading {
	var heads []mdHeading
	var fence fenceState
	for start := 0; start < len(body); {
		end := lineEnd(body, start)
		if fence.n == 0 && !mayOpen(body[start]) {
			start = end
			continue
		}
		line := strings.TrimRight(body[start:end], "\r\n")
		if !fence.step(line) {
			if level, text, ok := parseHeading(line); ok {
				heads = append(heads, mdHeading{level: level, text: text, start: start, end: end})
			}
		}
		start = end
	}
	return heads
}

// mayOpen reports whether a line starting with c can be a heading or open
// a fence.
func mayOpen(c byte) bool { return c == '#' || c == '`' || c == '~' || c == ' ' }

// lineEnd is the offset just past the line of s starting at i: past its
// newline, or the end of s.
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// openFence reports whether a body ends inside a fenced code block, and
// the line that would close it.
func openFence(body string) (closer string, open bool) {
	var fence fenceState
	for l := range spanLines(body) {
		fence.step(l.text)
	}
	if fence.n == 0 {
		return "", false
	}
	return strings.Repeat(string(fence.ch), fence.n), true
}

// fenceState tracks fenced code blocks line by line.
type fenceState struct {
	ch byte // fence character of the open block
	n  int  // its length; 0 outside code
}

// step advances over one line and reports whether the line is code or a
// fence delimiter, so not markdown structure.
func (f *fenceState) step(line string) bool {
	if f.n > 0 {
		if fenceCloses(line, f.ch, f.n) {
			f.n = 0
		}
		return true
	}
	if ch, n, ok := fenceOpens(line); ok {
		f.ch, f.n = ch, n
		return true
	}
	return false
}

// parseHeading reads an ATX heading line: 1–6 "#" then a space or tab (or
// nothing). The text is trimmed; closing "#"s are kept, as the reference
// keeps them.
func parseHeading(line string) (level int, text string, ok bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, "", false
	}
	rest := line[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	return n, strings.TrimSpace(rest), true
}

// fenceOpens reports whether line opens a fenced code block (CommonMark:
// up to three spaces, then three or more backticks or tildes; a backtick
// fence's info string holds no backtick).
func fenceOpens(line string) (ch byte, n int, ok bool) {
	s, ok := unindent(line)
	if !ok || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0, false
	}
	ch = s[0]
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 || (ch == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return 0, 0, false
	}
	return ch, n, true
}

// fenceCloses reports whether line closes a fence of n ch characters.
func fenceCloses(line string, ch byte, n int) bool {
	s, ok := unindent(line)
	if !ok {
		return false
	}
	k := 0
	for k < len(s) && s[k] == ch {
		k++
	}
	return k >= n && strings.TrimSpace(s[k:]) == ""
}

// unindent strips up to three leading spaces; more is an indented block.
func unindent(line string) (string, bool) {
	i := 0
	for i < len(line) && i < 4 && line[i] == ' ' {
		i++
	}
	if i == 4 {
		return "", false
	}
	return line[i:], true
}
