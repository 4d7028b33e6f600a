// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine/adapters/internal/wire"
)

// maxBody bounds a POST body as the SDK does by default.
const maxBody = sdk.DefaultMaxRequestBodyBytes

// rpcMount stands between the guard and the SDK's handler:
//
//   - A POST must declare JSON (wire.CheckBodyType, REST's rule and
//     sentence) and carry a well-formed JSON-RPC envelope (checkBody);
//     the mount answers what fails itself.
//   - What the SDK answers passes through cleaned (rpcWriter): a plain
//     text error becomes a JSON-RPC error object, an error message that
//     quotes the SDK's decoder is replaced by its code's name, and a 404
//     carrying a JSON-RPC error is re-sent as 200 (spec 08 §4.4: the
//     mount is stateless, so no 404 it sends may read as "session
//     gone").
//
// A JSON-RPC error whose request id is known is sent with HTTP 200, as
// any JSON-RPC answer is; one without (a parse error, a missing or
// unusable id, a faulty batch) with 400, the status of a body the
// server could not read as a request.
func rpcMount(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if status, f := preflight(w, r); f != nil {
				writeFault(w, status, f)
				return
			}
		}
		rw := &rpcWriter{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		rw.finish()
	})
}

// preflight checks a POST before the SDK reads it, and leaves its body
// readable again.
func preflight(w http.ResponseWriter, r *http.Request) (int, *rpcFault) {
	if e := wire.CheckBodyType(r); e != nil {
		return wire.BodyTypeStatus, invalid(nil, e.Message)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, invalid(nil, fmt.Sprintf("request body is over the %d-byte limit", tooBig.Limit))
	case err != nil:
		return http.StatusBadRequest, invalid(nil, "request body could not be read")
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	f := checkBody(body)
	if f == nil {
		return 0, nil
	}
	if f.id != nil {
		return http.StatusOK, f
	}
	return http.StatusBadRequest, f
}

// rpcAnswer is a JSON-RPC error response in wire order.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc.Error  `json:"error"`
}

func faultBody(f *rpcFault) []byte {
	id := f.id
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(rpcAnswer{JSONRPC: "2.0", ID: id, Error: &jsonrpc.Error{Code: f.code, Message: f.msg}})
	return b
}

func writeFault(w http.ResponseWriter, status int, f *rpcFault) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	w.WriteHeader(status)
	w.Write(faultBody(f))
}

// rpcWriter holds the SDK's answer until it is complete, so it can be
// cleaned; an event stream (subscriptions/listen, progress) passes
// through as it is written.
type rpcWriter struct {
	http.ResponseWriter
	status  int
	stream  bool
	started bool
	body    bytes.Buffer
}

func (w *rpcWriter) WriteHeader(status int) {
	if w.started {
		return
	}
	w.started, w.status = true, status
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		w.stream = true
		w.ResponseWriter.WriteHeader(status)
	}
}

func (w *rpcWriter) Write(p []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if w.stream {
		return w.ResponseWriter.Write(p)
	}
	return w.body.Write(p)
}

// Flush passes through for a stream; a held answer is not complete.
func (w *rpcWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.stream {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *rpcWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *rpcWriter) finish() {
	if w.stream {
		return
	}
	if !w.started {
		w.status = http.StatusOK
	}
	status, body, rewritten := cleanAnswer(w.status, w.body.Bytes())
	if rewritten {
		w.Header().Set("Content-Type", "application/json")
	}
	if rewritten || status != w.status {
		w.Header().Del("Content-Length")
	}
	w.ResponseWriter.WriteHeader(status)
	w.ResponseWriter.Write(body)
}

// cleanAnswer is what the mount sends for the SDK's answer, and whether
// the body was rewritten. Success bodies pass byte for byte.
func cleanAnswer(status int, body []byte) (int, []byte, bool) {
	t := bytes.TrimSpace(body)
	switch {
	case len(t) == 0:
		return status, body, false
	case !json.Valid(t):
		if status < http.StatusBadRequest {
			return status, body, false
		}
		code := int64(jsonrpc.CodeInvalidRequest)
		if status >= http.StatusInternalServerError {
			code = jsonrpc.CodeInternalError
		}
		return status, faultBody(&rpcFault{code: code, msg: plainMessage(t, code)}), true
	}
	cleaned, isErr, changed := cleanErrors(t)
	if status == http.StatusNotFound && isErr {
		status = http.StatusOK
	}
	if changed {
		return status, cleaned, true
	}
	return status, body, false
}

// plainMessage keeps the first line of the SDK's plain-text refusal
// (they are sentences about headers and methods), unless it quotes Go.
func plainMessage(text []byte, code int64) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(text)), "\n")
	if line == "" || leaky(line) {
		return codeName(code)
	}
	return line
}

// cleanErrors replaces the message of every JSON-RPC error in body (one
// answer or a batch) that quotes the SDK's decoder. isErr reports a
// single answer that is a JSON-RPC error.
func cleanErrors(body []byte) (out []byte, isErr, changed bool) {
	if !bytes.Contains(body, []byte(`"error"`)) {
		// A key is quoted bare; inside a string value (a tool result's
		// text) its quotes are escaped, so no answer here is an error.
		return body, false, false
	}
	if body[0] == '{' {
		return cleanOne(body)
	}
	var items []json.RawMessage
	if body[0] != '[' || json.Unmarshal(body, &items) != nil {
		return body, false, false
	}
	for i, it := range items {
		if c, _, ch := cleanOne(it); ch {
			items[i], changed = c, true
		}
	}
	if !changed {
		return body, false, false
	}
	out, _ = json.Marshal(items)
	return out, false, true
}

func cleanOne(raw []byte) (out []byte, isErr, changed bool) {
	var m rpcAnswer
	if json.Unmarshal(raw, &m) != nil || m.JSONRPC != "2.0" || m.Error == nil {
		return raw, false, false
	}
	if !leaky(m.Error.Message) {
		return raw, true, false
	}
	if codeName(m.Error.Code) == "request failed" {
		// Go words come from decoding params; the SDK's initialize
		// says so with code 0, which no JSON-RPC client can read.
		m.Error.Code = jsonrpc.CodeInvalidParams
	}
	m.Error.Message = codeName(m.Error.Code)
	if len(m.ID) == 0 {
		m.ID = json.RawMessage("null")
	}
	out, _ = json.Marshal(m)
	return out, true, true
}

// goWords are what only a Go decoder or the SDK's internals say.
var goWords = []string{"unmarshal", "Go value", "Go struct", "*mcp.", "mcp.", "jsonrpc2", "json: ", "interface {}", "map[", "struct {"}

// leaky reports a message that names Go types or the SDK's internals.
func leaky(msg string) bool {
	for _, w := range goWords {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// codeName is the standard name of a JSON-RPC error code.
func codeName(code int64) string {
	switch code {
	case jsonrpc.CodeParseError:
		return "parse error"
	case jsonrpc.CodeInvalidRequest:
		return "invalid request"
	case jsonrpc.CodeMethodNotFound:
		return "method not found"
	case jsonrpc.CodeInvalidParams:
		return "invalid params"
	case jsonrpc.CodeInternalError:
		return "internal error"
	}
	return "request failed"
}
