// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/terms"
)

func TestScanBodySplitsLikePython(t *testing.T) {
	body := "# T\r\nalpha\u2028## S1\nbeta alpha\x0bgamma\n#### deep\nalpha"
	got := ScanBody(body, [][]rune{[]rune(terms.Fold("alpha"))})
	require.Len(t, got[0], 3)
	assert.Equal(t, 2, got[0][0].Line)
	assert.Nil(t, got[0][0].Section)
	assert.Equal(t, 4, got[0][1].Line)
	assert.Equal(t, "S1", *got[0][1].Section)
	assert.Equal(t, 5, got[0][1].Pos)
	assert.Equal(t, 7, got[0][2].Line)
	assert.Equal(t, "S1", *got[0][2].Section, "H4 does not change the section")
}

func FuzzScanBody(f *testing.F) {
	f.Add("## A\nfoo bar\nFOO", "foo")
	f.Fuzz(func(t *testing.T, body, term string) {
		ft := []rune(strings.TrimSpace(terms.Fold(term)))
		if len(ft) < 2 {
			return
		}
		for _, l := range ScanBody(body, [][]rune{ft})[0] {
			assert.GreaterOrEqual(t, l.Pos, 0)
			assert.LessOrEqual(t, l.Pos+len(ft), len([]rune(l.Text)))
		}
	})
}

// lineNumbersOfScan is what the line-by-line scan says lineNumbers must
// answer: the numbers of its matching lines.
func lineNumbersOfScan(body string, ts [][]rune) [][]Line {
	out := make([][]Line, len(ts))
	for i, lines := range ScanLines(body, ts) {
		for _, l := range lines {
			out[i] = append(out[i], Line{Line: l.Line})
		}
	}
	return out
}

// lineNumbers, which searches the whole fold, numbers the lines the
// line-by-line scan finds: every kind of break, matches across breaks,
// overlapping and repeated matches.
func TestLineNumbersAgreeWithTheLineScan(t *testing.T) {
	pieces := []string{"ab", "a", "b", "aba", " ", "\n", "\r\n", "\r", "\v", "\f", "\x1c", "\u0085", "\u2028", "\u2029",
		"é", "—", "\u00a0", "ÀB"}
	needles := []string{"ab", "aba", "bab", "b a", "a\nb", "é", "ab ab", "ba"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		body := b.String()
		ts := [][]rune{[]rune(needles[rng.IntN(len(needles))]), []rune(needles[rng.IntN(len(needles))])}
		sc := newBodyScanner(ts)
		folded := appendFolded(nil, body)
		assert.Equal(t, lineNumbersOfScan(body, ts), sc.lineNumbers(folded), "body %q, terms %q", body, ts)
	}
}

func FuzzLineNumbers(f *testing.F) {
	f.Add("ab\nxab ab\r\nab", "ab")
	f.Add("a\u2028b ab", "a\u2028b")
	f.Fuzz(func(t *testing.T, body, term string) {
		ft := []rune(strings.TrimSpace(terms.Fold(term)))
		if len(ft) < 2 || !utf8.ValidString(body) {
			return // an invalid body is never ranked on its fold's numbers
		}
		ts := [][]rune{ft}
		assert.Equal(t, lineNumbersOfScan(body, ts), newBodyScanner(ts).lineNumbers(appendFolded(nil, body)))
	})
}
