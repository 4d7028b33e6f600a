// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"errors"
	"fmt"
	"time"

	"github.com/monkeyllm/vine/model"
)

// Kinds of stream failure, matched with errors.Is against a *StreamError.
var (
	// ErrIncomplete: the response ended, or the connection dropped, before
	// data: [DONE] arrived after a finish reason.
	ErrIncomplete = errors.New("stream ended before it completed")
	// ErrIdle: the server sent nothing for the idle limit.
	ErrIdle = errors.New("server idle past the read limit")
	// ErrMalformed: a frame or body that is not what the API promises.
	ErrMalformed = errors.New("malformed response")
	// ErrTooLarge: the response exceeded the byte limit.
	ErrTooLarge = errors.New("response exceeds the byte limit")
	// ErrServer: the server reported an error inside the stream.
	ErrServer = errors.New("server reported an error")
)

// ErrTruncated is matched by the error Chat returns for a reply cut at
// max_tokens; it is model.ErrTruncated.
var ErrTruncated = model.ErrTruncated

// StreamError is a response that did not arrive whole. Kind is one of
// ErrIncomplete, ErrIdle, ErrMalformed, ErrTooLarge or ErrServer; Err is
// the underlying cause, if any. errors.Is matches both.
type StreamError struct {
	Op       string // "chat" or "embed"
	URL      string
	Kind     error
	Received int64  // body bytes read before the failure
	Detail   string // what arrived instead, clipped
	Err      error
}

// Error names the operation, the URL, the kind and how far the body got.
func (e *StreamError) Error() string {
	msg := fmt.Sprintf("llamacpp %s %s: %v after %d bytes", e.Op, e.URL, e.Kind, e.Received)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes Kind and the cause to errors.Is and errors.As.
func (e *StreamError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Timeout reports an idle failure, as net.Error does, so callers that
// classify timeouts generically (the patch gate) see one.
func (e *StreamError) Timeout() bool { return e.Kind == ErrIdle }

// HTTPError is a response with status 400 or above. Body is its start.
type HTTPError struct {
	Op         string
	URL        string
	StatusCode int
	Body       string

	retryAfter time.Duration // the server's Retry-After, 0 if none
}

// Error reads "inference endpoint <status>" with the start of the body.
func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("llamacpp %s %s: inference endpoint %d", e.Op, e.URL, e.StatusCode)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}
