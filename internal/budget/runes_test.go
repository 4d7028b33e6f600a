// SPDX-License-Identifier: Apache-2.0

package budget

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// The sizes are those of the rendering EstimatePayloadTokens measures.
func TestStringAndFloatRunesMatchTheRendering(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "tab\tnl\ncr\r\b\f", "\x00\x1f\x7f", "ção 水 🌊",
		"<a href='x'>&amp;</a>", "line\u2028para\u2029", "bad\xffbyte\xc3", ", : {}[]"} {
		assert.Equal(t, utf8.RuneCountInString(Render(s)), StringRunes(s), "%q", s)
	}
	for _, f := range []float64{0, 1, -1, 0.5, 0.0001, 0.1234, 12345.6789, 1e-6, 9.9e-7, 1e-7, 1.5e-10,
		1e20, 1e21, 1.2345e22, -3e-8, math.SmallestNonzeroFloat64, math.MaxFloat64} {
		n, ok := FloatRunes(f)
		assert.True(t, ok)
		assert.Equal(t, utf8.RuneCountInString(Render(f)), n, "%v", f)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, ok := FloatRunes(f)
		assert.False(t, ok, "%v", f)
	}
}

// FitPrefix cuts where ShrinkTail cuts a list of strings.
func TestFitPrefixCutsAsShrinkTail(t *testing.T) {
	type payload struct {
		Items     []string `json:"items"`
		Truncated bool     `json:"truncated"`
	}
	fixed := utf8.RuneCountInString(Render(payload{Items: []string{}}))
	for n := range 40 {
		items := make([]string, n)
		for i := range items {
			items[i] = string(make([]byte, (i*7)%23)) + "ção"
		}
		sizes := make([]int, n)
		for i, s := range items {
			sizes[i] = StringRunes(s)
		}
		for _, limit := range []int{1, 10, 25, 60, 200} {
			p := payload{Items: items}
			ShrinkTail(&p.Items, limit, func() any { return p })
			assert.Equal(t, len(p.Items), FitPrefix(fixed, sizes, limit), "n=%d limit=%d", n, limit)
		}
	}
}

// TestRunesCountsAsTheStandardLibrary: ASCII runs of every length and
// alignment, multi-byte characters, and invalid bytes count as
// utf8.RuneCountInString counts them.
func TestRunesCountsAsTheStandardLibrary(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefg", "abcdefgh", "abcdefghi", "— an index entry —",
		strings.Repeat("- [[g/git-log]] — Show commit logs.\n", 40),
		"ascii then \xff invalid \xe2\x80 cut", "naïve café 日本語 🌲 and a long ASCII tail after it",
		"\x80\x80\x80\x80\x80\x80\x80\x80\x80", "1234567\xe2\x80\x94tail",
	} {
		for cut := range min(len(s), 9) {
			assert.Equal(t, utf8.RuneCountInString(s[cut:]), Runes(s[cut:]), "%q", s[cut:])
		}
	}
}

func FuzzRunes(f *testing.F) {
	f.Add("plain ascii text, long enough to take the eight-byte path")
	f.Add("1234567\xe2\x80\x94tail \xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Runes(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("Runes(%q) = %d, want %d", s, got, want)
		}
	})
}

func BenchmarkRunes(b *testing.B) {
	s := strings.Repeat("- [[g/git-log]] — Show commit logs; a summary of sixty tokens or so.\n", 6000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Runes(s)
	}
}

// TestRunesToResumes holds RunesTo to its promise at every limit: the
// count it stops with plus a count from where it stopped is the count of
// the whole, and it stops at the first rune boundary at or past limit.
func TestRunesToResumes(t *testing.T) {
	for _, s := range []string{
		"", "abc", "naïve café 日本語 🌲 and a long ASCII tail after it",
		"1234567\xe2\x80\x94tail", "cut \xe2\x80 and \xff and \xf0\x9f\x8c", "\x80\x80\x80\x80",
		strings.Repeat("- [[g/x]] — entrée.\n", 9),
	} {
		for limit := range len(s) + 2 {
			n, end := RunesTo(s, limit)
			assert.Equal(t, utf8.RuneCountInString(s), n+Runes(s[end:]), "%q at %d", s, limit)
			assert.GreaterOrEqual(t, end, min(limit, len(s)), "%q at %d", s, limit)
			assert.LessOrEqual(t, end, min(limit+3, len(s)), "%q at %d", s, limit)
		}
	}
}

func FuzzRunesTo(f *testing.F) {
	f.Add("1234567\xe2\x80\x94tail \xff", 8)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 0 {
			limit = -limit
		}
		n, end := RunesTo(s, limit)
		if end < min(limit, len(s)) || end > len(s) {
			t.Fatalf("RunesTo(%q, %d) ended at %d", s, limit, end)
		}
		if got, want := n+Runes(s[end:]), utf8.RuneCountInString(s); got != want {
			t.Fatalf("RunesTo(%q, %d) = %d then %d, want %d in all", s, limit, n, got-n, want)
		}
	})
}
