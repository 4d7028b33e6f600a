// SPDX-License-Identifier: Apache-2.0

package sqlguard

import "strings"

// kind is the class of a lexical token. The lexer follows SQLite's own
// tokenizer closely enough to tell code from literals and comments; it
// never decides what a statement may do on its own (the textual rules of
// the specification and SQLite's authorizer do), it only lets the guard
// find the end of the code, the main verb and a top-level WHERE.
type kind uint8

const (
	kWord    kind = iota // identifier or keyword, unquoted
	kQuoted              // "ident", `ident`, [ident]
	kString              // 'text' and x'blob'
	kNumber              // 12, 1.5e3, 0x1F
	kParam               // ?1, :name, @name, $name
	kPunct               // one character of punctuation or an operator
	kComment             // -- line or /* block */ (possibly unterminated)
)

// token is a half-open byte range [start, end) of the source.
type token struct {
	kind       kind
	start, end int
}

// lex splits sql into tokens, whitespace dropped. Unterminated strings,
// quoted identifiers and block comments run to the end of the input, as
// they do in SQLite (which then rejects the statement or, for a block
// comment, accepts it).
func lex(sql string) []token {
	var out []token
	for i := 0; i < len(sql); {
		c := sql[i]
		start := i
		var k kind
		switch {
		case isSpace(c):
			i++
			continue
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			k, i = kComment, lineEnd(sql, i+2)
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			k, i = kComment, blockEnd(sql, i+2)
		case c == '\'':
			k, i = kString, quoteEnd(sql, i+1, '\'')
		case (c == 'x' || c == 'X') && i+1 < len(sql) && sql[i+1] == '\'':
			k, i = kString, quoteEnd(sql, i+2, '\'')
		case c == '"' || c == '`':
			k, i = kQuoted, quoteEnd(sql, i+1, c)
		case c == '[':
			k, i = kQuoted, bracketEnd(sql, i+1)
		case isDigit(c) || (c == '.' && i+1 < len(sql) && isDigit(sql[i+1])):
			k, i = kNumber, numberEnd(sql, i)
		case c == '?' || c == ':' || c == '@' || c == '$' || c == '#':
			k, i = kParam, wordEnd(sql, i+1)
		case isWordByte(c):
			k, i = kWord, wordEnd(sql, i)
		default:
			k, i = kPunct, i+1
		}
		out = append(out, token{kind: k, start: start, end: i})
	}
	return out
}

// code returns the tokens that are not comments.
func code(toks []token) []token {
	out := toks[:0:0]
	for _, t := range toks {
		if t.kind != kComment {
			out = append(out, t)
		}
	}
	return out
}

// upperWord is the upper-cased text of a word token, "" for other kinds.
func upperWord(sql string, t token) string {
	if t.kind != kWord {
		return ""
	}
	return strings.ToUpper(sql[t.start:t.end])
}

// isSpace is SQLite's whitespace set.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte: SQLite identifiers are ASCII letters, digits, '_', '$' and
// every byte of a multi-byte UTF-8 character.
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || isDigit(c) || isLetter(c)
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

func blockEnd(s string, i int) int {
	if j := strings.Index(s[i:], "*/"); j >= 0 {
		return i + j + 2
	}
	return len(s)
}

// quoteEnd finds the closing quote q; a doubled quote is an escaped one.
func quoteEnd(s string, i int, q byte) int {
	for i < len(s) {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(s)
}

func bracketEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], ']'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

func numberEnd(s string, i int) int {
	hex := i+1 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x'
	if hex {
		i += 2
	}
	for i < len(s) {
		c := s[i]
		switch {
		case isDigit(c) || c == '.' || c == '_' || isLetter(c):
			i++
		case !hex && (c == '+' || c == '-') && s[i-1]|0x20 == 'e':
			i++ // the sign of an exponent
		default:
			return i
		}
	}
	return i
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func wordEnd(s string, i int) int {
	for i < len(s) && isWordByte(s[i]) {
		i++
	}
	return i
}
