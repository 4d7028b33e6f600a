// SPDX-License-Identifier: Apache-2.0

package terms

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"
)

func TestDerive(t *testing.T) {
	tests := []struct {
		name, query string
		want        []string
	}{
		{"F.59 example", "how do I fix the 421 from MCP", []string{"421", "MCP"}},
		{"code shapes survive at any length", "RAG with JWT at p95 via x-api-key",
			[]string{"RAG", "JWT", "p95", "x-api-key"}},
		{"short lower-case words derive nothing", "api", nil},
		{"pure grammar derives nothing", "what is the como", nil},
		{"empty", "", nil},
		{"white space only", " \t\n", nil},
		{"ordinary words need four code points", "fix the buoy tide", []string{"buoy", "tide"}},
		{"code-shaped first, each in query order", "storm alert 2026 thresholds TW-2",
			[]string{"2026", "TW-2", "storm", "alert", "thresholds"}},
		{"edge punctuation trimmed before the shape is judged", "(buoys.) /etc/ --flag ...", []string{"buoys", "flag"}},
		{"trim leaves too little", "a. -b- ./", nil},
		{"underscore is kept at the edges", "_meta __init__", []string{"_meta", "__init__"}},
		{"stopwords compared folded", "WHAT Quando ONDE wave", []string{"wave"}},
		{"v0.67 demonstratives", "isso esta essa ondulação", []string{"ondulação"}},
		{"repeats by folded form keep the first spelling", "Maré mare MARÉ maré tides",
			[]string{"Maré", "tides"}},
		{"accented words keep their spelling", "produção da maré", []string{"produção", "maré"}},
		{"cap of eight drops ordinary words first",
			"alpha bravo charlie delta A1 B2 C3 D4 E5 F6 G7", []string{"A1", "B2", "C3", "D4", "E5", "F6", "G7", "alpha"}},
		{"cap of eight among code shapes", "A1 B2 C3 D4 E5 F6 G7 H8 I9 J10", []string{"A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8"}},
		{"other separators split", "fuel,subsidy;ledger:2026", []string{"2026", "fuel", "subsidy", "ledger"}},
		{"upper-case letters with digits", "Hs SWH", []string{"SWH"}},
		{"known cost: a short discriminating word in a sentence is dropped", "error sql on worker",
			[]string{"error", "worker"}},
		{"non-Latin words", "Каспийское море", []string{"Каспийское", "море"}},
		{"dotted and slashed paths", "see docs/api.md and v1.2.3", []string{"docs/api.md", "v1.2.3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Derive(tt.query))
		})
	}
}

func TestDeriveIsCanonicallyEquivalent(t *testing.T) {
	composed := "ondulação e previsão do mar"
	decomposed := norm.NFD.String(composed)
	require.NotEqual(t, composed, decomposed)
	assert.Equal(t, Derive(composed), Derive(decomposed))
	assert.Equal(t, []string{"ondulação", "previsão"}, Derive(decomposed))
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"already folded", "already folded"},
		{"ABC xyz", "abc xyz"},
		{"Produção", "producao"},
		{"MARÉ Alta", "mare alta"},
		{"İstanbul", "istanbul"},
		{"Ångström Å", "angstrom a"}, // U+212B ANGSTROM SIGN decomposes to A + ring
		{"straße ß", "straße ß"},     // no decomposition: unchanged
		{"ﬁle", "ﬁle"},               // ligatures are compatibility forms: unchanged
		{"한국", "\u1112\u1100"},       // Hangul syllables fold to their leading jamo
		{"ΣΊΣΥΦΟΣ", "σισυφοσ"},       // simple mapping: no final sigma
		{"\U00010400", "\U00010428"}, // Deseret is below the limit and folds
		{"\U00030000\U000E0041", "\U00030000\U000E0041"},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		got := Fold(tt.in)
		assert.Equal(t, tt.want, got, "Fold(%q)", tt.in)
		assert.Equal(t, utf8.RuneCountInString(tt.in), utf8.RuneCountInString(got), "length in code points of %q", tt.in)
	}
}

// TestFoldRuneTable checks the table against the rule for every code point
// it covers, that folding twice changes nothing more, and that the fast
// ASCII path agrees with the table.
func TestFoldRuneTable(t *testing.T) {
	Warm()
	for r := rune(0); r < foldLimit; r++ {
		got := FoldRune(r)
		require.Equal(t, got, FoldRune(got), "fold of U+%04X is not a fixed point", r)
		if !utf8.ValidRune(r) {
			require.Equal(t, r, got, "surrogate U+%04X", r)
			continue
		}
		if r < utf8.RuneSelf {
			require.Equal(t, foldTable[r], got, "ASCII fast path of U+%04X", r)
		}
	}
	for _, r := range []rune{foldLimit, foldLimit + 1, 0xE0001, 0x10FFFF, -1} {
		assert.Equal(t, r, FoldRune(r))
	}
}

func TestIsStopword(t *testing.T) {
	for _, w := range []string{"what", "which", "como", "quando", "isso", "esto", "tambem"} {
		assert.True(t, IsStopword(w), w)
	}
	for _, w := range []string{"tide", "report", "buoy", "Como"} {
		assert.False(t, IsStopword(w), w)
	}
}

// FuzzDerive checks the contract of Derive on any input: at most MaxTerms
// terms, each a piece of the (NFC) query of two code points or more, no
// stopword, no two terms folding alike, code-shaped terms first, ordinary
// terms at four code points or more, and never a panic.
func FuzzDerive(f *testing.F) {
	for _, s := range []string{"how do I fix the 421 from MCP", "x-api-key p95 RAG", "produção da maré",
		"..//--", "a\u0301b\u0301", "\xff\xfe", "A1 B2 C3 D4 E5 F6 G7 H8 I9", "한국어 질문"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		got := Derive(query)
		if len(got) > MaxTerms {
			t.Fatalf("%d terms, cap is %d", len(got), MaxTerms)
		}
		nfc := norm.NFC.String(query)
		seen := map[string]bool{}
		ordinary := false
		for _, term := range got {
			n := utf8.RuneCountInString(term)
			if n < 2 || !strings.Contains(nfc, term) {
				t.Fatalf("term %q is not a piece of %q of two code points or more", term, nfc)
			}
			if strings.ContainsAny(term[:1], edgeTrim) || strings.ContainsAny(term[len(term)-1:], edgeTrim) {
				t.Fatalf("term %q keeps edge punctuation", term)
			}
			folded := Fold(term)
			if seen[folded] || IsStopword(folded) {
				t.Fatalf("term %q repeats or is a stopword", term)
			}
			seen[folded] = true
			if codeShaped(term) {
				if ordinary {
					t.Fatalf("code-shaped %q after an ordinary term in %q", term, got)
				}
				continue
			}
			ordinary = true
			if n < minOrdinary {
				t.Fatalf("ordinary term %q is shorter than %d", term, minOrdinary)
			}
		}
	})
}

// FuzzFold checks that folding keeps the length in code points and that
// folding twice changes nothing more.
func FuzzFold(f *testing.F) {
	for _, s := range []string{"Produção", "İ", "ǅ", "\xff", "한", "ΣΑ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Fold(s)
		if utf8.RuneCountInString(got) != utf8.RuneCountInString(s) {
			t.Fatalf("Fold(%q) = %q changes the length in code points", s, got)
		}
		if again := Fold(got); again != got {
			t.Fatalf("Fold is not idempotent on %q: %q then %q", s, got, again)
		}
	})
}

func BenchmarkDerive(b *testing.B) {
	Warm()
	for b.Loop() {
		Derive("Which radio channel do the Lighthouse boats check in on at night?")
	}
}
