// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/monkeyllm/vine/internal/sniff"
	"github.com/monkeyllm/vine/internal/terms"
)

// The rune scan below is the plain reading of C.6b that sniff's byte scan
// must agree with: fold the body into runes, split it as splitlines does,
// and find each folded term by rune comparison. The tests use it as the
// oracle.

// foldRunes folds into a rune slice.
func foldRunes(s string) []rune {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		out = append(out, terms.FoldRune(r))
	}
	return out
}

func runeScanLines(body string, terms [][]rune) [][]sniff.Line {
	out := make([][]sniff.Line, len(terms))
	runes := []rune(body)
	folded := foldRunes(body)
	var section *string
	lineNo := 0
	visit := func(start, end int) {
		lineNo++
		line := string(runes[start:end])
		if h, ok := sniff.SectionHeading(line); ok {
			section = h
		}
		for i, t := range terms {
			if pos := indexRunes(folded[start:end], t); pos >= 0 {
				out[i] = append(out[i], sniff.Line{Line: lineNo, Section: section, Pos: pos, Text: line})
			}
		}
	}
	start := 0
	for i := 0; i < len(runes); i++ {
		switch runes[i] {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		default:
			continue
		}
		visit(start, i)
		if runes[i] == '\r' && i+1 < len(runes) && runes[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	if start < len(runes) {
		visit(start, len(runes))
	}
	return out
}

func indexRunes(s, t []rune) int {
	n := len(t)
outer:
	for i := 0; i+n <= len(s); i++ {
		for j := range n {
			if s[i+j] != t[j] {
				continue outer
			}
		}
		return i
	}
	return -1
}

// FuzzByteScanAgreesWithRuneScan proves the byte scan, quick reject
// included, finds exactly the lines, positions, sections and texts of the
// rune scan, for one term and for two scanned together.
func FuzzByteScanAgreesWithRuneScan(f *testing.F) {
	f.Add("Maré ALTA\n## Sec\nNavegação", "mare alta", "alta")
	f.Add("\xff\xfeabc", "\uFFFDabc", "ab")
	f.Add("İstanbul ǅ ß", "i̇s", "ß")
	f.Add("a\r\nb\u2028## X\u0085xa\x1cxx", "x", "a\r")
	f.Add("## h\xffi \nhi\r\rhi", "hi", "i\nh")
	f.Add("aaa\naa\na", "aa", "a")
	f.Add("\xe2\x80\nx\xe2\x80\xa8x\xc2\n\xc2\x85", "x", "\xc2")
	f.Fuzz(func(t *testing.T, body, term, other string) {
		ft, fo := foldRunes(term), foldRunes(other)
		if len(ft) == 0 {
			return
		}
		sets := [][][]rune{{ft}}
		if len(fo) > 0 {
			sets = append(sets, [][]rune{ft, fo})
		}
		for _, set := range sets {
			want := runeScanLines(body, set)
			got := sniff.ScanBody(body, set)
			for ti := range set {
				sameLines(t, want[ti], got[ti])
			}
		}
	})
}

func sameLines(t *testing.T, want, got []sniff.Line) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("byte scan found %d lines, rune scan %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Line != g.Line || w.Pos != g.Pos || w.Text != g.Text || (w.Section == nil) != (g.Section == nil) ||
			(w.Section != nil && *w.Section != *g.Section) {
			t.Fatalf("line %d: byte scan %+v, rune scan %+v", i, g, w)
		}
	}
}

// runeSnippet is snippet over a rune slice, the plain reading of C.6b.
func runeSnippet(line string, pos int) string {
	r := []rune(strings.TrimRight(line, " \t\r\n\v\f"))
	if len(r) <= sniffSnippetChars {
		return strings.TrimSpace(string(r))
	}
	start := max(0, pos-33)
	end := min(len(r), start+sniffSnippetChars)
	start = max(0, end-sniffSnippetChars)
	s := strings.TrimSpace(string(r[start:end]))
	if start > 0 {
		s = "…" + s
	}
	if end < len(r) {
		s += "…"
	}
	return s
}

func FuzzSnippetAgreesWithRuneSnippet(f *testing.F) {
	f.Add(strings.Repeat("mare alta ", 30), 140)
	f.Add(" ação "+strings.Repeat("é", 120), 3)
	f.Fuzz(func(t *testing.T, line string, pos int) {
		if !utf8.ValidString(line) || pos < 0 || pos > utf8.RuneCountInString(line) {
			return // lines are valid UTF-8 and positions fall inside them
		}
		if got, want := snippet(line, pos), runeSnippet(line, pos); got != want {
			t.Fatalf("snippet %q, rune snippet %q", got, want)
		}
	})
}
