// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
)

// writeJSON sends a result in the one encoding every surface shares
// (compact, ordered, unescaped).
func (s *Server) writeJSON(w http.ResponseWriter, op string, status int, v any) {
	body, err := wire.Encode(v)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
}

// refuse sends err as the envelope with its code's status. An error that
// is not a refusal is logged and answered E_INTERNAL naming op and the
// failure's type only.
func (s *Server) refuse(w http.ResponseWriter, op string, err error) {
	e := vine.AsError(op, err)
	if e.Code == vine.EInternal {
		// The envelope's hint sends the operator to the log for this.
		s.log.Error("request failed", "op", op, "err", vine.ErrorDetail(err))
	}
	writeEnvelope(w, e.Code.HTTPStatus(), e)
}

func writeEnvelope(w http.ResponseWriter, status int, e *vine.Error) {
	h := w.Header()
	h.Del("Content-Disposition")
	h.Del("ETag")
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	refused(w, e.Code)
	w.WriteHeader(status)
	w.Write(e.Body())
}

// routeList is what a caller who missed every route is told exists: the
// OpenAPI document lists every route, so the hint cannot go stale as
// routes are added, and it is the same whatever state the server is in.
const routeList = "the routes this server serves are listed by GET /v1/openapi.json; " +
	"primitives are POST /v1/forests/{forest}/{primitive}"

// noEndpoint answers a path no route serves. The path is quoted in its
// escaped form, bounded, so nothing a caller sent is echoed raw.
func (s *Server) noEndpoint(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	if len(p) > 256 {
		p = p[:256] + "…"
	}
	writeEnvelope(w, http.StatusNotFound, &vine.Error{Code: vine.ENotFound,
		Message: "no such endpoint: " + p, Hint: routeList})
}

// cleanPath reports whether p has no "." or ".." segment and no empty
// one, so it is the path ServeMux would route rather than redirect.
func cleanPath(p string) bool {
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return !strings.Contains(p, "//")
}

// readBody reads a request body within the limit; empty is no arguments.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, op string) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &vine.Error{Code: vine.ESchema,
			Message: fmt.Sprintf("%s: request body is over the %d-byte limit", op, tooBig.Limit),
			Hint:    "send less at once: split an upload into several calls"}
	}
	return body, err
}

// methodRefusal answers a route asked with a method it does not serve.
// The code stays the one of a path no route serves (spec 08 §2), the
// status and Allow say what would.
func methodRefusal(method string, allow []string) *vine.Error {
	return &vine.Error{Code: vine.ENotFound,
		Message: "method not allowed: " + strconv.Quote(method),
		Hint:    "this route answers " + strings.Join(allow, ", ") + "; " + routeList}
}
