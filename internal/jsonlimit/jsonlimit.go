// SPDX-License-Identifier: Apache-2.0

// Package jsonlimit measures JSON from outside before anything decodes
// it: how deep it nests and how long its longest token (a string or a
// bare number or literal) is.
//
// Decoders spend memory per level and per token, and code that walks a
// decoded value often spends it again per level (a pretty-printer's
// indent, a re-decode of each nested raw message), so twenty kilobytes
// of brackets can cost gigabytes. A Scanner costs a few words of state
// whatever it reads, so the check runs first and the decoder only ever
// sees input within the limits.
//
// The scan does not validate: malformed JSON within the limits passes
// and is left to the decoder to refuse.
package jsonlimit

import (
	"fmt"
	"io"
)

// DefaultDepth is the nesting depth JSON from outside may reach when
// the caller sets none: far deeper than any argument, record or config
// file nests, far shallower than what makes decoding cost quadratic.
const DefaultDepth = 64

// Scanner checks JSON written to it against its limits. It is an
// io.Writer, so a file streams through it with io.Copy and never sits
// in memory whole. The zero value checks nothing.
type Scanner struct {
	// MaxDepth bounds how many arrays and objects may be open at once;
	// 0 means no bound.
	MaxDepth int
	// MaxToken bounds the bytes of one string (between its quotes,
	// escapes as written) or one bare token; 0 means no bound.
	MaxToken int

	depth    int
	deepest  int
	token    int   // bytes of the token in progress
	inString bool  // inside a string
	escaped  bool  // the previous byte was a backslash inside a string
	offset   int64 // bytes scanned
	err      error
}

// Error is a limit the input went past.
type Error struct {
	// Limit is "depth" or "token".
	Limit string
	// Max is the limit's value.
	Max int
	// Offset is the byte at which the input went past it.
	Offset int64
}

func (e *Error) Error() string {
	if e.Limit == "depth" {
		return fmt.Sprintf("JSON nests deeper than the nesting depth limit of %d levels (at byte %d)", e.Max, e.Offset)
	}
	return fmt.Sprintf("JSON holds a string or value longer than the token limit of %d bytes (at byte %d)", e.Max, e.Offset)
}

// Write scans p. Once a limit is passed it returns the *Error, and so
// does every later call.
func (s *Scanner) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	for i, b := range p {
		if s.inString {
			s.stringByte(b)
		} else {
			s.structByte(b)
		}
		if s.err == nil {
			s.err = s.check()
		}
		if s.err != nil {
			s.err.(*Error).Offset = s.offset + int64(i)
			return i, s.err
		}
	}
	s.offset += int64(len(p))
	return len(p), nil
}

// stringByte advances inside a string; the closing quote ends the token.
func (s *Scanner) stringByte(b byte) {
	switch {
	case s.escaped:
		s.escaped = false
	case b == '\\':
		s.escaped = true
	case b == '"':
		s.inString, s.token = false, 0
		return
	}
	s.token++
}

// structByte advances outside strings: brackets change the depth, white
// space and punctuation end a bare token, anything else extends it.
func (s *Scanner) structByte(b byte) {
	switch b {
	case '"':
		s.inString, s.token = true, 0
	case '[', '{':
		s.depth++
		s.deepest = max(s.deepest, s.depth)
		s.token = 0
	case ']', '}':
		s.depth = max(0, s.depth-1) // malformed input is the decoder's to refuse
		s.token = 0
	case ',', ':', ' ', '\t', '\n', '\r':
		s.token = 0
	default:
		s.token++
	}
}

func (s *Scanner) check() error {
	switch {
	case s.MaxDepth > 0 && s.depth > s.MaxDepth:
		return &Error{Limit: "depth", Max: s.MaxDepth}
	case s.MaxToken > 0 && s.token > s.MaxToken:
		return &Error{Limit: "token", Max: s.MaxToken}
	}
	return nil
}

// Check scans data whole: nil, or the *Error of the first limit it
// passes. A bound of 0 is no bound.
func Check(data []byte, maxDepth, maxToken int) error {
	s := Scanner{MaxDepth: maxDepth, MaxToken: maxToken}
	_, err := s.Write(data)
	return err
}

// CheckReader streams r through a Scanner: nil, the *Error of the first
// limit passed, or r's own error.
func CheckReader(r io.Reader, maxDepth, maxToken int) error {
	s := Scanner{MaxDepth: maxDepth, MaxToken: maxToken}
	_, err := io.Copy(&s, r)
	return err
}
