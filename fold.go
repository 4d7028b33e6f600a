// SPDX-License-Identifier: Apache-2.0

package vine

import "github.com/monkeyllm/vine/internal/terms"

// Fold is the one fold of the engine (C.6b): each code point becomes the
// first code point of its NFD decomposition, lowercased. It preserves the
// length in code points, so rune positions in folded text index the
// original. Hangul syllables fold to their leading jamo; ß and ligatures
// stay as they are. sniff matches through it, query terms are compared
// through it, and so is the Curator's alias-in-body guard.
func Fold(s string) string { return terms.Fold(s) }

// IsStopword reports whether word, already folded (see Fold), is grammar
// that locate and harvest drop when they read a question into search
// terms (C.1.2, C.6c §2.2): a function word of English, Portuguese or
// Spanish such as "which", "quais" or "donde". A host that tokenises text
// its own way (a lexical baseline, a highlighter, a query log) drops the
// same words the engine drops by asking it. The list is the engine's and
// may grow; a word that can name a subject (report, plan, list) is never
// on it.
func IsStopword(word string) bool { return terms.IsStopword(word) }

// buildFold builds the fold table now (Warm), never at package init.
func buildFold() { terms.Warm() }
