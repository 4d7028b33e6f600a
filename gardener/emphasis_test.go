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
