// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"regexp"
	"strings"
	"testing"
)

// BenchmarkStripLinks runs the link rewrite on a long text with one link
// and many unclosed brackets, the shape of the ctags manual page that
// took the pattern 20 ms.
func BenchmarkStripLinks(b *testing.B) {
	text := strings.Repeat("--fields=[+|-]flags such as [kinds] and options ", 2000) + "[the site](https://example.org)"
	benchScanAndPattern(b, text, stripLinks, linkRE, "$1")
}

// BenchmarkStripStrong runs the strong rewrite on a long text holding
// many doubled underscores and one pair of stars.
func BenchmarkStripStrong(b *testing.B) {
	text := strings.Repeat("the __init__ hook and ctags --fields=[+|-]flags, ", 2000) + "**bold**"
	benchScanAndPattern(b, text, stripStrong, strongRE, "$2")
}

// benchScanAndPattern measures a direct scan and the pattern it replaces
// on the same text.
func benchScanAndPattern(b *testing.B, text string, scan func(string) string, re *regexp.Regexp, repl string) {
	b.SetBytes(int64(len(text)))
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			scan(text)
		}
	})
	b.Run("pattern", func(b *testing.B) {
		for b.Loop() {
			re.ReplaceAllString(text, repl)
		}
	})
}
