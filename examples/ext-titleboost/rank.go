// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"unicode"

	"github.com/monkeyllm/vine/ext"
)

// TitleFirst orders items: those whose title holds every word of query
// (case-folded, words shorter than minWord ignored) first, then the
// rest, each group in the order given.
func TitleFirst(query string, items []ext.Ranked, minWord int) []string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= minWord {
			words = append(words, w)
		}
	}
	var first, rest []string
	for _, it := range items {
		if len(words) > 0 && holdsAll(strings.ToLower(it.Title), words) {
			first = append(first, it.ID)
		} else {
			rest = append(rest, it.ID)
		}
	}
	return append(first, rest...)
}

func holdsAll(title string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(title, w) {
			return false
		}
	}
	return true
}
