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

// buildFold builds the fold table now (Warm), never at package init.
func buildFold() { terms.Warm() }
