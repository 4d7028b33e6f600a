// SPDX-License-Identifier: Apache-2.0

package scent

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The Go twin of the index's tokenizer (unicode61 remove_diacritics 2)
// covers ASCII text only, where the tokenizer's rules are short: a token
// is a run of ASCII letters and digits, folded to lower case; every other
// ASCII character separates. Text with any other byte goes to SQLite's
// tokenizer (catalog.Tokenizer). A test compares the two.

// isASCII reports whether s is pure ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// asciiTokens calls fn with each token of the ASCII text s, lower-cased
// into buf (fn must copy what it keeps).
func asciiTokens(s string, buf []byte, fn func(tok []byte)) []byte {
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		buf = buf[:0]
		for ; i < len(s) && isTokenByte(s[i]); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
		}
		fn(buf)
	}
	return buf
}

// splitASCII returns the tokens of the ASCII text s.
func splitASCII(s string) []string {
	var out []string
	asciiTokens(s, nil, func(tok []byte) { out = append(out, string(tok)) })
	return out
}

// Text with other characters is split in Go too, by rules learned from
// SQLite's tokenizer one code point at a time: the tokenizer decides per
// code point whether it starts a token (letters, digits), only continues
// one (combining diacritics) or separates, and what it folds to (lower
// case, diacritics removed, possibly nothing). Probing each code point
// once, in context, gives exactly those rules; a code point whose probes
// fit none of them, and text that is not valid UTF-8 (which SQLite and Go
// decode differently), go to SQLite's tokenizer whole.

// runeRule is what the tokenizer does with one code point.
type runeRule struct {
	start, cont bool   // begins a token; continues one
	fold        string // what it adds to the token
	whole       bool   // no rule fits: text holding it is split by SQLite
}

// splitter splits text as the index does, learning non-ASCII rules on
// first sight. Safe for concurrent use.
type splitter struct {
	sqlite Splitter
	mu     sync.RWMutex
	rules  map[rune]runeRule
}

func newSplitter(s Splitter) *splitter { return &splitter{sqlite: s, rules: map[rune]runeRule{}} }

// Tokens splits every text.
func (s *splitter) Tokens(texts []string) ([][]string, error) {
	if err := s.learn(texts); err != nil {
		return nil, err
	}
	out := make([][]string, len(texts))
	var whole []int
	s.mu.RLock()
	for i, t := range texts {
		toks, ok := s.split(t)
		if !ok {
			whole = append(whole, i)
		}
		out[i] = toks
	}
	s.mu.RUnlock()
	if len(whole) == 0 {
		return out, nil
	}
	rest := make([]string, len(whole))
	for j, i := range whole {
		rest[j] = texts[i]
	}
	toks, err := s.sqlite.Tokens(rest)
	if err != nil {
		return nil, err
	}
	for j, i := range whole {
		out[i] = toks[j]
	}
	return out, nil
}

// split applies the rules (s.mu held); false when a rule is missing or
// says whole.
func (s *splitter) split(t string) ([]string, bool) {
	if isASCII(t) {
		return splitASCII(t), true
	}
	if !utf8.ValidString(t) {
		return nil, false
	}
	var out []string
	var tok strings.Builder
	in := false
	for _, r := range t {
		rule, ok := s.rule(r)
		if !ok || rule.whole {
			return nil, false
		}
		switch {
		case in && rule.cont, !in && rule.start:
			in = true
			tok.WriteString(rule.fold)
		case in:
			out = append(out, tok.String())
			tok.Reset()
			in = false
		}
	}
	if in {
		out = append(out, tok.String())
	}
	return out, true
}

func (s *splitter) rule(r rune) (runeRule, bool) {
	if r < utf8.RuneSelf {
		c := byte(r)
		if !isTokenByte(c) {
			return runeRule{}, true
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		return runeRule{start: true, cont: true, fold: string(rune(c))}, true
	}
	rule, ok := s.rules[r]
	return rule, ok
}

// learn probes the code points of texts not seen before, in one batch.
func (s *splitter) learn(texts []string) error {
	var unknown []rune
	var seen map[rune]bool // made on the first unknown code point
	s.mu.RLock()
	for _, t := range texts {
		if isASCII(t) || !utf8.ValidString(t) {
			continue
		}
		for _, r := range t {
			if _, ok := s.rule(r); !ok && !seen[r] {
				if seen == nil {
					seen = map[rune]bool{}
				}
				seen[r] = true
				unknown = append(unknown, r)
			}
		}
	}
	s.mu.RUnlock()
	if len(unknown) == 0 {
		return nil
	}
	probes := make([]string, 0, 3*len(unknown))
	for _, r := range unknown {
		probes = append(probes, "a"+string(r)+"a", "a "+string(r)+"a", "a "+string(r)+" a")
	}
	toks, err := s.sqlite.Tokens(probes)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range unknown {
		s.rules[r] = ruleOf(toks[3*i], toks[3*i+1], toks[3*i+2])
	}
	return nil
}

// ruleOf reads a code point's rule from the tokens of "a<r>a" (inside),
// "a <r>a" (at a token's start) and "a <r> a" (alone).
func ruleOf(inside, atStart, alone []string) runeRule {
	eq := func(got []string, want ...string) bool { return slices.Equal(got, want) }
	switch {
	case eq(inside, "a", "a"):
		if eq(atStart, "a", "a") && eq(alone, "a", "a") {
			return runeRule{} // a separator
		}
	case len(inside) == 1 && len(inside[0]) >= 2 && strings.HasPrefix(inside[0], "a") && strings.HasSuffix(inside[0], "a"):
		fold := inside[0][1 : len(inside[0])-1]
		switch {
		case fold != "" && eq(atStart, "a", fold+"a") && eq(alone, "a", fold, "a"):
			return runeRule{start: true, cont: true, fold: fold}
		case eq(atStart, "a", "a") && eq(alone, "a", "a"):
			return runeRule{cont: true, fold: fold} // continues a token, never starts one
		}
	}
	return runeRule{whole: true}
}
