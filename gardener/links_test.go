// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"strings"
	"testing"
)

// BenchmarkStripLinks runs the link rewrite on a long text with one link
// and many unclosed brackets, the shape of the ctags manual page that
// took the pattern 20 ms.
func BenchmarkStripLinks(b *testing.B) {
	text := strings.Repeat("--fields=[+|-]flags such as [kinds] and options ", 2000) + "[the site](https://example.org)"
	b.SetBytes(int64(len(text)))
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			stripLinks(text)
		}
	})
	b.Run("pattern", func(b *testing.B) {
		for b.Loop() {
			linkRE.ReplaceAllString(text, "$1")
		}
	})
}

// BenchmarkStripStrong runs the strong rewrite on a long text holding
// many doubled underscores and one pair of stars.
func BenchmarkStripStrong(b *testing.B) {
	text := strings.Repeat("the __init__ hook and ctags --fields=[+|-]flags, ", 2000) + "**bold**"
	b.SetBytes(int64(len(text)))
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			stripStrong(text)
		}
	})
	b.Run("pattern", func(b *testing.B) {
		for b.Loop() {
			strongRE.ReplaceAllString(text, "$2")
		}
	})
}
