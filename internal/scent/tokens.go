// SPDX-License-Identifier: Apache-2.0

package scent

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
