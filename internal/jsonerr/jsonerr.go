// SPDX-License-Identifier: Apache-2.0

// Package jsonerr words a malformed JSON text the same way on every
// surface (CLI, REST, MCP): "invalid JSON at offset N: <short reason>",
// never a decoder's error, which names Go types ("cannot unmarshal …
// into Go value of type …") that mean nothing to a caller.
//
// The offset counts bytes from 0: it is the index of the byte the
// decoder refused, or the length of the text when the text ended early.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Error is a syntax error in a JSON text.
type Error struct {
	Offset int64  // bytes before the fault
	Reason string // short, in the decoder's words, without "JSON"
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Reason)
}

// Check returns nil when data is exactly one JSON value (with white space
// around it), and an *Error otherwise. Empty input is an error: callers
// that treat it as "no arguments" check for it first.
func Check(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	// Valid says only yes or no; Unmarshal into a RawMessage runs the same
	// scanner and reports where it stopped, without building any value.
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &Error{Offset: 0, Reason: "not a JSON text"}
	}
	return describe(se, len(data))
}

// describe turns the decoder's SyntaxError into an Error. The decoder's
// offset is the count of bytes read, the refused byte included; at the
// end of the input it is the input's length.
func describe(se *json.SyntaxError, n int) *Error {
	reason := se.Error()
	if strings.HasPrefix(reason, "unexpected end of JSON input") {
		return &Error{Offset: int64(n), Reason: "unexpected end of input"}
	}
	off := se.Offset - 1
	if off < 0 {
		off = 0
	}
	return &Error{Offset: off, Reason: reason}
}

// Kind names the JSON kind of a valid value in the wire words of C.12
// refusal messages: string, object, list, boolean, null, number or
// integer (a number literal without fraction or exponent); "nothing" for
// an empty value. Every surface that words a refusal uses it, so the
// engine and the transports say the same.
func Kind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "list"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(t, ".eE") {
		return "number"
	}
	return "integer"
}
