// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"golang.org/x/text/unicode/norm"
)

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Produção", "producao"},
		{"ÉCOLE", "ecole"},
		{"Straße", "straße"},
		{"ﬁle", "ﬁle"},
		{"Ωmega", "ωmega"},
		{"𐐀", "𐐨"}, // Deseret capital long I folds to its small letter
		{"한", "ᄒ"}, // a Hangul syllable folds to its leading jamo
		{"BE-291 p95", "be-291 p95"},
	}
	for _, tt := range tests {
		got := Fold(tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, utf8.RuneCountInString(tt.in), utf8.RuneCountInString(got), "length preserved: %s", tt.in)
	}
}

// F.129: no code point at or above the table limit changes under the rule.
func TestFoldLimitCoversEveryChangingCodePoint(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the whole code space")
	}
	for r := rune(0x30000); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		first, _ := utf8.DecodeRuneInString(norm.NFD.String(string(r)))
		if unicode.ToLower(first) != r {
			t.Fatalf("U+%04X changes under the fold but lies above the table", r)
		}
	}
}

// The table agrees with the rule spelled out through the normalizer.
func TestFoldTableMatchesNFD(t *testing.T) {
	for r := rune(0); r < 0x30000; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		first, _ := utf8.DecodeRuneInString(norm.NFD.String(string(r)))
		if got := []rune(Fold(string(r)))[0]; got != unicode.ToLower(first) {
			t.Fatalf("U+%04X folds to U+%04X, want U+%04X", r, got, unicode.ToLower(first))
		}
	}
}

func FuzzFoldPreservesLength(f *testing.F) {
	f.Add("Ação é ÉLAN")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		assert.Equal(t, utf8.RuneCountInString(s), utf8.RuneCountInString(Fold(s)))
		assert.Equal(t, Fold(s), Fold(Fold(s)), "folding is idempotent")
	})
}
