// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStripEmphasis(t *testing.T) {
	tests := []struct{ in, under, star string }{
		{"_a_", "a", "_a_"},
		{"a _b c_ d", "a b c d", "a _b c_ d"},
		{"_a_ _b_", "a _b_", "_a_ _b_"}, // the space after a is the first match's: b has no flank left
		{"snake_case stays", "snake_case stays", "snake_case stays"},
		{"1_2_3", "1_2_3", "1_2_3"},
		{"(_a_)", "(a)", "(_a_)"},
		{"_ a_", "_ a_", "_ a_"},
		{"__a__", "_a_", "__a__"}, // the span may start and end with the mark
		{"*a* and *b c*", "*a* and *b c*", "a and b c"},
		{"* a*", "* a*", "* a*"},
		{"***", "***", "*"},
		{"é_ü_é", "é_ü_é", "é_ü_é"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.under, stripUnderscoreEmphasis(tt.in), "underscores in %q", tt.in)
		assert.Equal(t, tt.star, stripStarEmphasis(tt.in), "stars in %q", tt.in)
		assert.Equal(t, emphUndRE.ReplaceAllString(tt.in, "$1$2$3"), tt.under, "pattern on %q", tt.in)
		assert.Equal(t, emphStarRE.ReplaceAllString(tt.in, "$1"), tt.star, "pattern on %q", tt.in)
	}
}

func TestStripStrong(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"**a**", "a"},
		{"**a__", "a"},       // the marks may differ
		{"**a**b**", "a**b"}, // a longer span is preferred, however far
		{"***a**", "*a"},
		{"** a**", "** a**"},
		{"**a\n**b**", "**a\nb"}, // no span crosses a line
		{"**ab\n**", "**ab\n**"},
		{"**a** **b", "a **b"},
		{"**a**b\nc**", "ab\nc**"}, // the line's only pair closes a one-character span
		{"x **y z** w", "x y z w"},
		{"__init__ and __main__", "init and main"},
		{"**é**", "é"},
		{"****", "****"},
	} {
		assert.Equal(t, tt.want, stripStrong(tt.in), "%q", tt.in)
		assert.Equal(t, strongRE.ReplaceAllString(tt.in, "$2"), tt.want, "pattern on %q", tt.in)
	}
}

// TestStripStrongExhaustive compares the scan with the pattern on every
// string of up to seven symbols from an alphabet of marks, spaces, a
// newline, a letter and a two-byte letter.
func TestStripStrongExhaustive(t *testing.T) {
	alphabet := []string{"*", "_", " ", "\n", "a", "é"}
	var walk func(prefix string, n int)
	walk = func(prefix string, n int) {
		if got, want := stripStrong(prefix), strongRE.ReplaceAllString(prefix, "$2"); got != want {
			t.Fatalf("strong in %q: %q, pattern %q", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, a := range alphabet {
			walk(prefix+a, n-1)
		}
	}
	walk("", 7)
}
