// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"fmt"
	"iter"
	"regexp"
	"strconv"
	"strings"
)

// Headings of the engine-owned sections of a branch index (A.5); only the
// master carries Landmarks (H.7).
const (
	SectionSubBranches = "Sub-branches"
	SectionDirect      = "Direct bananas"
	SectionCrossTrails = "Cross trails"
	SectionLandmarks   = "Landmarks"
)

// entryPrefix starts every index entry line; coverage counts these lines.
const entryPrefix = "- [["

// coverageRe is A.5's coverage pattern; singular forms parse too.
var coverageRe = regexp.MustCompile(`^(\d+) bananas?, (\d+) sub-branch(?:es)?\.?$`)

// EntryLine renders an index entry: "- [[id]] — summary" with U+2014
// between single spaces. The summary is copied verbatim except that line
// breaks become spaces: an entry is one line, and a break would split it.
func EntryLine(id, summary string) string {
	return entryPrefix + id + "]] — " + oneLine(summary)
}

// SubBranchLine renders a sub-branch entry. With coverage it ends with the
// child's coverage and a period (". 4 bananas, 0 sub-branches." after a
// summary ending in a period); a branch gains the suffix once its first
// child is indexed, and summary syncs must keep it.
func SubBranchLine(id, summary string, notes, branches int, withCoverage bool) string {
	line := EntryLine(id, summary)
	if withCoverage {
		line += " " + FormatCoverage(notes, branches) + "."
	}
	return line
}

// FormatCoverage renders a coverage string, always plural:
// "<N> bananas, <M> sub-branches".
func FormatCoverage(notes, branches int) string {
	return fmt.Sprintf("%d bananas, %d sub-branches", notes, branches)
}

// ParseCoverage reads a coverage string (trimmed; singular forms and a
// trailing period accepted). ok is false for anything else, and the caller
// then omits the field rather than serving prose as data.
func ParseCoverage(s string) (notes, branches int, ok bool) {
	m := coverageRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(m[1])
	b, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return n, b, true
}

// FindSection locates a section by heading text: case-insensitive, the
// first exact match, else the first heading that starts with it, at any
// level; headings inside fenced code do not count. start is the offset of
// the heading line and end of the next heading of the same or a higher
// level (or the body's end), so subsections belong to the section.
func FindSection(body, heading string) (start, end int, ok bool) {
	h, next, ok := findHeading(body, heading)
	if !ok {
		return 0, 0, false
	}
	return h.start, next, true
}

// findHeading is FindSection returning the heading itself.
func findHeading(body, heading string) (h mdHeading, end int, ok bool) {
	return findIn(body, scanHeadings(body), heading)
}

// findIn is findHeading among heads, the headings of body.
func findIn(body string, heads []mdHeading, heading string) (h mdHeading, end int, ok bool) {
	want := strings.ToLower(strings.TrimSpace(heading))
	if want == "" {
		return mdHeading{}, 0, false
	}
	idx := -1
	for i, hd := range heads {
		if strings.ToLower(hd.text) == want {
			idx = i
			break
		}
	}
	if idx < 0 {
		for i, hd := range heads {
			if strings.HasPrefix(strings.ToLower(hd.text), want) {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		return mdHeading{}, 0, false
	}
	h, end = heads[idx], len(body)
	for _, hd := range heads[idx+1:] {
		if hd.level <= h.level {
			end = hd.start
			break
		}
	}
	return h, end, true
}

// SectionLines returns the lines of a section after its heading, without
// line endings and without trailing blank lines; nil when the section is
// missing.
func SectionLines(body, heading string) []string {
	h, end, ok := findHeading(body, heading)
	if !ok {
		return nil
	}
	lines := []string{}
	for l := range spanLines(body[h.end:end]) {
		lines = append(lines, l.text)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// EntryID is the id an entry line ("- [[id]] — …") names, and whether
// line is one.
func EntryID(line string) (string, bool) { return entryID(line) }

// EntryIDs returns the ids of the section's entry lines, in order.
func EntryIDs(body, heading string) []string {
	ids := []string{}
	for _, line := range SectionLines(body, heading) {
		if id, ok := entryID(line); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// CountEntries counts the section's lines starting "- [[", the number
// coverage reports.
func CountEntries(body, heading string) int {
	return countIn(body, scanHeadings(body), heading)
}

// CountCoverage counts what coverage reports, the entries of the Direct
// bananas and Sub-branches sections, finding the headings of body once:
// every plant into a folder recounts its index.
func CountCoverage(body string) (notes, branches int) {
	heads := scanHeadings(body)
	return countIn(body, heads, SectionDirect), countIn(body, heads, SectionSubBranches)
}

// countIn is CountEntries among heads, the headings of body.
func countIn(body string, heads []mdHeading, heading string) int {
	h, end, ok := findIn(body, heads, heading)
	if !ok {
		return 0
	}
	// Counted in place: this runs on every plant into a branch, whose
	// index may hold thousands of lines.
	n := 0
	for line := range strings.Lines(body[h.end:end]) {
		if strings.HasPrefix(line, entryPrefix) {
			n++
		}
	}
	return n
}

// SetEntry makes line the one entry for id: every entry line for id is
// dropped from the whole body (a move between sections leaves no trace),
// then line is inserted after the section's last entry, or right under its
// heading when it has none. A missing section is appended at the body's
// end first.
func SetEntry(body, heading, id, line string) string {
	body, _ = RemoveEntry(body, id)
	body, h, end := ensureSection(body, heading)
	at := h.end + lastEntryEnd(body[h.end:end])
	if at > 0 && body[at-1] != '\n' {
		return body[:at] + "\n" + line + "\n" + body[at:]
	}
	return body[:at] + line + "\n" + body[at:]
}

// lastEntryEnd is the offset just past the last entry line of section (a
// line as spanLines cuts them), 0 when it has none. It searches from the
// end: a folder's entries are its index, and the last one sits near the
// end of a section of thousands.
func lastEntryEnd(section string) int {
	for end := len(section); end > 0; {
		content := end
		if section[end-1] == '\n' {
			content--
		}
		start := strings.LastIndexByte(section[:content], '\n') + 1
		if strings.HasPrefix(section[start:end], entryPrefix) {
			return end
		}
		end = start
	}
	return 0
}

// ReplaceEntrySummary replaces every entry line for id with line, in
// place. It reports whether the body changed.
func ReplaceEntrySummary(body, id, line string) (string, bool) {
	var b strings.Builder
	changed := false
	for l := range spanLines(body) {
		if got, ok := entryID(l.text); ok && got == id && l.text != line {
			b.WriteString(line)
			b.WriteString(body[l.start+len(l.text) : l.end])
			changed = true
			continue
		}
		b.WriteString(body[l.start:l.end])
	}
	if !changed {
		return body, false
	}
	return b.String(), true
}

// RemoveEntry drops every entry line for id, wherever it sits, and
// reports whether there was one.
func RemoveEntry(body, id string) (string, bool) {
	// Every entry line for id contains "[[<id>", and a new id has none.
	// The search leaves out entryPrefix's "- " on purpose: '-' is common
	// in text, and the search stops at every one; '[' is rare but for
	// the entries themselves: 34 us instead of 364 on a 450 KB index.
	if !strings.Contains(body, entryPrefix[2:]+id) {
		return body, false
	}
	var b strings.Builder
	removed := false
	for l := range spanLines(body) {
		if got, ok := entryID(l.text); ok && got == id {
			removed = true
			continue
		}
		b.WriteString(body[l.start:l.end])
	}
	if !removed {
		return body, false
	}
	return b.String(), true
}

// ReplaceSection rewrites a section wholly: its heading line is kept, the
// lines follow it directly, and a blank line separates it from what comes
// next. Subsections are replaced too. A missing section is appended at the
// body's end.
func ReplaceSection(body, heading string, lines []string) string {
	body, h, end := ensureSection(body, heading)
	head := body[h.start:h.end]
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	var b strings.Builder
	b.WriteString(body[:h.start])
	b.WriteString(head)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if rest := body[end:]; rest != "" {
		b.WriteByte('\n')
		b.WriteString(rest)
	}
	return b.String()
}

// CrossTrails returns the hand-written lines of the Cross trails section:
// each line starting "-", with leading dashes and spaces removed and the
// rest kept as written ("Pricing sheets → [[catalog/_index]]").
func CrossTrails(body string) []string {
	trails := []string{}
	for _, line := range SectionLines(body, SectionCrossTrails) {
		if !strings.HasPrefix(strings.TrimLeft(line, " \t"), "-") {
			continue
		}
		if t := strings.TrimSpace(strings.TrimLeft(line, "- \t")); t != "" {
			trails = append(trails, t)
		}
	}
	return trails
}

// MasterBody is the body Init writes to the master _index.md (spec §1): the
// title, the summary as a quote, then the four engine sections.
func MasterBody(title, summary string) string {
	return "# " + oneLine(title) + "\n\n> " + oneLine(summary) + "\n\n" +
		"## " + SectionSubBranches + "\n\n" +
		"## " + SectionDirect + "\n\n" +
		"## " + SectionCrossTrails + "\n\n" +
		"## " + SectionLandmarks + "\n"
}

// ensureSection finds the section, appending "## heading" at the body's
// end when it is missing. A body ending inside a fenced code block gets
// the fence closed first, or the new heading would be code.
func ensureSection(body, heading string) (string, mdHeading, int) {
	if h, end, ok := findHeading(body, heading); ok {
		return body, h, end
	}
	if closer, open := openFence(body); open {
		body = strings.TrimRight(body, "\r\n") + "\n" + closer
	}
	body = strings.TrimRight(body, " \t\r\n")
	if body != "" {
		body += "\n\n"
	}
	start := len(body)
	body += "## " + oneLine(heading) + "\n"
	h := mdHeading{level: 2, text: oneLine(heading), start: start, end: len(body)}
	return body, h, len(body)
}

// entryID returns the id of an entry line (A.5: `- [[<id>(|text)?]]…`,
// the pattern `^- \[\[([^\]|]*)(?:\|[^\]]*)?\]\]`).
//
// It is that pattern spelled out: a branch index is scanned line by line on
// every plant into it, and the regexp engine made that scan the largest
// cost of indexing a big branch. TestEntryIDMatchesPattern holds the two
// to the same answers.
func entryID(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, entryPrefix)
	if !ok {
		return "", false
	}
	k := strings.IndexAny(rest, "]|")
	if k < 0 {
		return "", false
	}
	id, tail := rest[:k], rest[k:]
	if tail[0] == '|' { // display text: anything up to the first ]
		j := strings.IndexByte(tail, ']')
		if j < 0 {
			return "", false
		}
		tail = tail[j:]
	}
	if !strings.HasPrefix(tail, "]]") {
		return "", false
	}
	return id, true
}

// lineSpan is one line of a body: its text without the line ending, the
// offset where it starts, and the offset just past its newline.
type lineSpan struct {
	text       string
	start, end int
}

// spanLines yields the lines of s with their offsets. An iterator, not a
// slice: a branch index of thousands of entry lines is walked on every
// write that touches it, and the slice was most of what that allocated.
func spanLines(s string) iter.Seq[lineSpan] {
	return func(yield func(lineSpan) bool) {
		for start := 0; start < len(s); {
			end := lineEnd(s, start)
			if !yield(lineSpan{text: strings.TrimRight(s[start:end], "\r\n"), start: start, end: end}) {
				return
			}
			start = end
		}
	}
}

// oneLine trims s and joins its lines with single spaces, as YAML folding
// would; text within a line is kept as written.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var parts []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}
