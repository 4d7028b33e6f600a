// SPDX-License-Identifier: Apache-2.0

package gardener

import "strings"

// Link and image stripping without the regexp engine.
//
// The reference states these rewrites as patterns,
//
//	!\[[^\]]*\]\([^)]*\)      → ""   (an image goes)
//	\[([^\]]*)\]\([^)]*\)     → $1   (a link keeps its text)
//
// and Go's regexp engine took 20 ms on a 94 KB manual page holding one
// "](" (ctags), because every "[" starts a match attempt that runs to the
// next "]". The patterns leave a scan no choice: the text ends at the
// first "]" after the opening, which must be followed by "(", and the
// target at the first ")" after that. These functions do what
// ReplaceAllString does with them, leftmost-first and non-overlapping, in
// one pass; FuzzLinkScanners holds them to the patterns.

// stripImages is imageRE.ReplaceAllString(s, "").
func stripImages(s string) string { return stripBracketed(s, "![", false) }

// stripLinks is linkRE.ReplaceAllString(s, "$1").
func stripLinks(s string) string { return stripBracketed(s, "[", true) }

// stripBracketed rewrites every open[text](target) of s, keeping text
// when keepText is set and dropping the whole otherwise.
func stripBracketed(s, open string, keepText bool) string {
	out := rewrite{s: s}
	pos := 0 // where the search resumes
	for {
		i := strings.Index(s[pos:], open)
		if i < 0 {
			break
		}
		start := pos + i
		textAt := start + len(open)
		j := strings.IndexByte(s[textAt:], ']')
		if j < 0 {
			break // no later opening has a "]" after it either
		}
		closeText := textAt + j
		if closeText+1 >= len(s) || s[closeText+1] != '(' {
			pos = start + 1
			continue
		}
		k := strings.IndexByte(s[closeText+2:], ')')
		if k < 0 {
			break // every later match would need a ")" after this one
		}
		end := closeText + 2 + k + 1
		if keepText {
			out.replace(start, end, s[textAt:closeText])
		} else {
			out.replace(start, end)
		}
		pos = end
	}
	return out.result()
}
