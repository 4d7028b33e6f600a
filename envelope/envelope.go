// SPDX-License-Identifier: Apache-2.0

// Package envelope defines the error value every primitive returns when it
// refuses: a machine-readable code, a message that teaches, a hint naming the
// next move, and structured facts (spec 02 and 08: the error envelope
// {"error": {code, message, hint, ...}} and its codes).
//
// The root package re-exports it as [github.com/monkeyllm/vine.Error], so
// most callers never import this package. It stands alone, importing the
// standard library only, so a transport, an extension or a converter can
// build and inspect refusals without linking the engine:
//
//	if errors.Is(err, envelope.NotFound) { ... }
//
//	var e *envelope.Error
//	if errors.As(err, &e) { fmt.Println(e.Code, e.Message, e.Hint) }
package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Code is a stable refusal code of the specification (C.12).
type Code string

// The codes of the specification, Part C.
const (
	NotFound       Code = "E_NOT_FOUND"
	Schema         Code = "E_SCHEMA"
	Frontmatter    Code = "E_FRONTMATTER"
	ReadOnly       Code = "E_READONLY"
	QueryForbidden Code = "E_QUERY_FORBIDDEN"
	QueryInvalid   Code = "E_QUERY_INVALID"
	Timeout        Code = "E_TIMEOUT"
	Locked         Code = "E_LOCKED"
	Anchored       Code = "E_ANCHORED"
	Moved          Code = "E_MOVED"
	Internal       Code = "E_INTERNAL"
	Forbidden      Code = "E_FORBIDDEN"
)

// The codes of extensions (Part L), outside the table of Part C.
const (
	// ExtWorker: an extension's handler failed, timed out or its process
	// died; the act that called it falls back to what happens without it.
	ExtWorker Code = "E_EXT_WORKER"
	// ExtLoad: an extension could not be started or its handshake failed.
	ExtLoad Code = "E_EXT_LOAD"
	// ExtInstall: an install was refused; nothing was installed.
	ExtInstall Code = "E_EXT_INSTALL"
	// ExtQuota: an extension's spending ceiling on a forest is reached.
	ExtQuota Code = "E_EXT_QUOTA"
)

// The codes of remotes (issue 33), outside the table of Part C.
const (
	// Conflict: a pull found nodes both sides changed differently, or a
	// push found the remote ahead; nothing was changed.
	Conflict Code = "E_CONFLICT"
)

// Codes lists every code in the order of the specification's table.
var Codes = []Code{NotFound, Schema, Frontmatter, ReadOnly, QueryForbidden,
	QueryInvalid, Timeout, Locked, Anchored, Moved, Internal, Forbidden}

// HTTPStatus is the status a transport answers with for the code.
// Unknown codes map to 400, as the reference does.
func (c Code) HTTPStatus() int {
	switch c {
	case NotFound, Moved:
		return http.StatusNotFound
	case ReadOnly, QueryForbidden, Forbidden:
		return http.StatusForbidden
	case Timeout:
		return http.StatusGatewayTimeout
	case Locked, Anchored, Conflict:
		return http.StatusConflict
	case Internal, ExtLoad:
		return http.StatusInternalServerError
	case ExtWorker:
		return http.StatusBadGateway
	case ExtQuota:
		return http.StatusTooManyRequests
	default:
		return http.StatusBadRequest
	}
}

// KV is one structured fact carried beside code, message and hint, kept in
// the order it was added so the wire rendering is stable.
type KV struct {
	Key   string
	Value any
}

// Error is a refusal. Its JSON form is the body of the envelope
// {"error": {...}}: code, message, hint (omitted when empty), then Data in
// order. Data keys never overwrite the first three.
type Error struct {
	Code    Code
	Message string
	Hint    string
	Data    []KV

	cause error // what From turned into E_INTERNAL: for the log, never the wire
}

// New returns an Error with the given code, message and hint.
func New(code Code, message, hint string) *Error {
	return &Error{Code: code, Message: message, Hint: hint}
}

// Errorf returns an Error whose message is formatted; it has no hint.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements the error interface: "E_CODE: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Is makes errors.Is(err, code) true for a refusal with that code, so a
// caller can branch on a code without errors.As: errors.Is(err,
// vine.ENotFound).
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// Error makes a Code an error value, the target errors.Is compares a
// refusal with; it is the code itself.
func (c Code) Error() string { return string(c) }

// WithHint sets the hint and returns e.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// With appends a structured fact and returns e. Keys that would shadow
// code, message or hint are ignored.
func (e *Error) With(key string, value any) *Error {
	switch key {
	case "code", "message", "hint":
		return e
	}
	for i := range e.Data {
		if e.Data[i].Key == key {
			e.Data[i].Value = value
			return e
		}
	}
	e.Data = append(e.Data, KV{key, value})
	return e
}

// Get returns the value of a structured fact.
func (e *Error) Get(key string) (any, bool) {
	for _, kv := range e.Data {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// CodeOf returns the code of the first *Error in err's chain, or "" when
// there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// MarshalJSON renders code, message, hint, then the facts in order.
func (e *Error) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	write := func(k string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshal(v)
		if err != nil {
			return err
		}
		b.Write(vb)
		return nil
	}
	if err := write("code", string(e.Code)); err != nil {
		return nil, err
	}
	if err := write("message", e.Message); err != nil {
		return nil, err
	}
	if e.Hint != "" {
		if err := write("hint", e.Hint); err != nil {
			return nil, err
		}
	}
	for _, kv := range e.Data {
		if err := write(kv.Key, kv.Value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes without HTML escaping: the consumer is a model, and
// "<id>" reads better than "\u003cid\u003e".
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Body is the whole wire body of a refusal: {"error": e}.
func (e *Error) Body() []byte {
	inner, err := e.MarshalJSON()
	if err != nil {
		inner, _ = New(Internal, "error envelope could not be rendered", "").MarshalJSON()
	}
	return append(append([]byte(`{"error":`), inner...), '}')
}

// From returns err as an *Error. A nil error yields nil. Any error that is
// not an envelope becomes E_INTERNAL naming only the operation and the
// failure's type (C.12 r5): details belong in the log, not on the wire.
func From(op string, err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	typ := fmt.Sprintf("%T", err)
	typ = strings.TrimPrefix(typ, "*")
	e = New(Internal, fmt.Sprintf("%s failed: internal %s", op, typ),
		"server-side defect, not the caller's mistake; the detail is in the log")
	e.cause = err
	return e
}

// Unwrap returns the error From turned into this E_INTERNAL, so the log
// the hint points at can still print it; nil for every other envelope.
func (e *Error) Unwrap() error { return e.cause }

// Detail is the text the log needs for err: the cause behind an
// E_INTERNAL that From built, else err's own text.
func Detail(err error) string {
	var e *Error
	if errors.As(err, &e) && e.cause != nil {
		return e.cause.Error()
	}
	return err.Error()
}
