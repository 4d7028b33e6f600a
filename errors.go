// SPDX-License-Identifier: Apache-2.0

package vine

import "github.com/monkeyllm/vine/envelope"

// Error is a refusal: the envelope {"error": {code, message, hint, ...}} of
// the specification as a Go value. Every primitive returns *Error for every
// refusal; branch on its code with errors.Is, or inspect it with
// errors.As:
//
//	if errors.Is(err, vine.ENotFound) { ... }
//
//	var e *vine.Error
//	if errors.As(err, &e) { fmt.Println(e.Code, e.Message, e.Hint) }
//
// Its fields are Code, Message, Hint and Data (structured facts such as
// moved_to, in order); [envelope.Error] documents them and its methods.
// The type lives in package envelope, a standard-library-only leaf, so
// code that only builds or inspects refusals need not link the engine.
type Error = envelope.Error

// Code is a refusal code such as E_NOT_FOUND. Code.HTTPStatus gives the
// status a transport answers with. A Code is an error value too, the
// target of errors.Is(err, vine.ENotFound).
type Code = envelope.Code

// KV is a structured fact carried by an Error beside code, message and hint
// (for example moved_to on E_MOVED).
type KV = envelope.KV

// The refusal codes of the specification.
const (
	ENotFound       = envelope.NotFound
	ESchema         = envelope.Schema
	EFrontmatter    = envelope.Frontmatter
	EReadOnly       = envelope.ReadOnly
	EQueryForbidden = envelope.QueryForbidden
	EQueryInvalid   = envelope.QueryInvalid
	ETimeout        = envelope.Timeout
	ELocked         = envelope.Locked
	EAnchored       = envelope.Anchored
	EMoved          = envelope.Moved
	EInternal       = envelope.Internal
	EForbidden      = envelope.Forbidden
	// EConflict: a pull met nodes both sides changed (the envelope lists
	// them), or a push met a remote that is ahead.
	EConflict = envelope.Conflict
)

// CodeOf returns the code of the first *Error in err's chain, or "" when
// err is not a refusal.
func CodeOf(err error) Code { return envelope.CodeOf(err) }

// AsError returns err as a refusal. A nil err yields nil; an error that is
// not a refusal becomes E_INTERNAL naming op and the failure's type only,
// so no path, SQL or stack reaches the caller (C.12 rule 5).
func AsError(op string, err error) *Error { return envelope.From(op, err) }

// ErrorDetail is what a log should say about err: for an E_INTERNAL built
// from an error that was not a refusal, that error's own text (the detail
// the envelope's hint points at); otherwise err's text.
func ErrorDetail(err error) string { return envelope.Detail(err) }
