// SPDX-License-Identifier: Apache-2.0

package terms

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxTerms caps what Derive returns. The cap drops ordinary words before
// code-shaped ones, so it cuts grammar first.
const MaxTerms = 8

// minOrdinary is the floor for words that are not code-shaped: shorter
// ones are grammar, and every junk term lowers a real hit's strength.
// Lowering it to 3 measured no gain (C.1.2 rule 3).
const minOrdinary = 4

// edgeTrim are the punctuation runes a token may contain but not start or
// end with: "buoy." and "/etc/" name buoy and etc.
const edgeTrim = "./-"

// Derive turns a question into search terms (C.6c §2.2, shared with
// locate by C.1.2):
//
//  1. tokens are maximal runs of letters, digits, marks and _ . / -,
//     trimmed of . / - at both ends, kept at two code points or more;
//  2. tokens are compared folded (see Fold): stopwords and repeats go, the
//     first spelling of a repeat is kept;
//  3. code-shaped tokens (a digit, or every letter upper-case, or one of
//     - _ . /) are kept at any length, so RAG, p95, 421 and x-api-key
//     survive; other words only at four code points or more;
//  4. code-shaped tokens come first, then the others, each in query
//     order, at most MaxTerms.
//
// The query is read in NFC, so a decomposed and a composed spelling derive
// the same terms; terms keep the caller's spelling otherwise. A query of
// short lower-case words or pure grammar derives nothing (nil): callers
// decide what that means (locate searches the raw words).
func Derive(query string) []string {
	var code, plain []string
	seen := map[string]bool{}
	if !isASCII(query) {
		query = norm.NFC.String(query)
	}
	for _, tok := range tokens(query) {
		tok = trimEdges(tok)
		if utf8.RuneCountInString(tok) < 2 {
			continue
		}
		folded := Fold(tok)
		if seen[folded] || IsStopword(folded) {
			continue
		}
		switch {
		case codeShaped(tok):
			code = append(code, tok)
		case utf8.RuneCountInString(tok) >= minOrdinary:
			plain = append(plain, tok)
		default:
			continue
		}
		seen[folded] = true
	}
	out := append(code, plain...)
	if len(out) > MaxTerms {
		out = out[:MaxTerms]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// trimEdges strips the runes of edgeTrim from both ends of tok.
func trimEdges(tok string) string {
	for tok != "" && strings.IndexByte(edgeTrim, tok[0]) >= 0 {
		tok = tok[1:]
	}
	for tok != "" && strings.IndexByte(edgeTrim, tok[len(tok)-1]) >= 0 {
		tok = tok[:len(tok)-1]
	}
	return tok
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// tokens splits s into maximal runs of token runes of at least two code
// points. A combining mark continues a run but never starts one, so a
// stray accent is not a token of its own.
func tokens(s string) []string {
	var out []string
	start, n := -1, 0
	flush := func(end int) {
		if start >= 0 && n >= 2 {
			out = append(out, s[start:end])
		}
		start, n = -1, 0
	}
	for i, r := range s {
		switch {
		case isTokenRune(r):
			if start < 0 {
				start = i
			}
			n++
		case start >= 0 && unicode.IsMark(r):
			n++
		default:
			flush(i)
		}
	}
	flush(len(s))
	return out
}

func isTokenRune(r rune) bool {
	switch r {
	case '_', '.', '/', '-':
		return true
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// codeShaped reports whether tok reads as an identifier, a code or a
// number rather than a word: it has a digit, or all its letters (at least
// one) are upper-case, or it joins parts with - _ . or /.
func codeShaped(tok string) bool {
	if strings.ContainsAny(tok, "-_./") {
		return true
	}
	letters, upper := 0, 0
	for _, r := range tok {
		switch {
		case unicode.IsDigit(r):
			return true
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return letters > 0 && upper == letters
}

// IsStopword reports whether a folded word is grammar in one of the
// languages the forests are written in (English, Portuguese, Spanish).
func IsStopword(folded string) bool { return stopwords[folded] }

// stopwords holds the reference list (C.6c §2.2) plus the Portuguese and
// Spanish demonstratives and a few more function words (spec 05), all
// folded. Only words a question carries for grammar belong here: a word
// that can name a subject (report, plan, list) never does.
var stopwords = setOf(
	// reference, English
	"what", "which", "where", "when", "who", "does", "with", "from", "this", "that",
	"have", "about", "were",
	// reference, Portuguese
	"qual", "quais", "como", "para", "com", "das", "dos", "uma", "que", "quando",
	"onde", "quem", "sobre", "foram", "pela", "pelo",
	// Portuguese and Spanish demonstratives
	"esta", "este", "estas", "estes", "isto", "esse", "essa", "esses", "essas", "isso",
	"aquele", "aquela", "aqueles", "aquelas", "aquilo", "esto", "eso", "esa", "ese",
	"estos", "esos", "esas", "aquel", "aquella", "aquello",
	// more English function words of four letters or more
	"there", "their", "they", "them", "then", "than", "these", "those", "whose", "whom",
	"into", "your", "yours", "will", "would", "should", "could", "been", "being",
	"doing", "done", "some", "also", "very", "just", "here", "while", "within", "without",
	// more Portuguese and Spanish function words of four letters or more
	"pelos", "pelas", "muito", "muita", "entre", "depois", "antes", "ainda", "tambem",
	"porque", "cual", "cuales", "cuando", "donde", "quien", "quienes", "tiene", "tienen",
	"temos", "seus", "suas", "nosso", "nossa",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
