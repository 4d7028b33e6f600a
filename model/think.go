// SPDX-License-Identifier: Apache-2.0

package model

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// StripThinking removes reasoning from a reply (J.10.8): every
// <think>…</think> block, an unclosed block to the end of the text (it is
// thinking that never finished), and a leading orphan </think>, which
// chat templates that open the block inside the prompt produce, together
// with everything before it. The answer is trimmed when anything was
// removed. unclosed reports a block that never closed. Anything that
// reads a model's content (a provider's chat stream, the answer composite
// for any Model) strips through this one function.
func StripThinking(s string) (out string, stripped, unclosed bool) {
	if i, j := strings.Index(s, thinkClose), strings.Index(s, thinkOpen); i >= 0 && (j < 0 || i < j) {
		s, stripped = s[i+len(thinkClose):], true
	}
	var b strings.Builder
	for {
		i := strings.Index(s, thinkOpen)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		stripped = true
		rest := s[i+len(thinkOpen):]
		j := strings.Index(rest, thinkClose)
		if j < 0 {
			unclosed = true
			break
		}
		s = rest[j+len(thinkClose):]
	}
	if !stripped {
		return b.String(), false, false
	}
	return strings.TrimSpace(b.String()), true, unclosed
}
