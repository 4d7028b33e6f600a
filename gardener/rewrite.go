// SPDX-License-Identifier: Apache-2.0

package gardener

import "strings"

// rewrite is a text with some of its spans replaced, built as the direct
// scans of links.go and emphasis.go find them, left to right: what lies
// between the spans is copied, and nothing is allocated until the first
// replacement.
type rewrite struct {
	s      string
	b      strings.Builder
	copied int // how much of s is accounted for in b
	any    bool
}

// replace puts parts in place of s[start:end]; start is at or past the
// end of the last span replaced.
func (r *rewrite) replace(start, end int, parts ...string) {
	if !r.any {
		r.b.Grow(len(r.s)) // once: these rewrites never lengthen the text
		r.any = true
	}
	r.b.WriteString(r.s[r.copied:start])
	for _, p := range parts {
		r.b.WriteString(p)
	}
	r.copied = end
}

// result is the rewritten text: s itself when nothing was replaced.
func (r *rewrite) result() string {
	if !r.any {
		return r.s
	}
	r.b.WriteString(r.s[r.copied:])
	return r.b.String()
}
