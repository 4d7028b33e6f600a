// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/monkeyllm/vine"
)

// RequestIDHeader carries a request's id: the caller's own when it sends
// a usable one, else one the server makes; the response echoes it and the
// access log names it.
const RequestIDHeader = "X-Request-Id"

// exchange is what one request leaves for the access log and the
// metrics: filled in by whoever learns it (the route, authentication,
// the refusal), read once the response is out.
type exchange struct {
	id        string
	t         *timing
	op        string // the route, or the primitive a call named
	principal string
	status    int
	code      vine.Code // the refusal's, if any
	bytes     int64     // body bytes written
	audit     *auditNote
}

type exchangeKey struct{}

func exchangeOf(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	return x
}

// begin opens the exchange of r: its id, its clock, and the writer that
// stamps Server-Timing on whatever response goes out, refusals before
// authentication included.
func begin(w http.ResponseWriter, r *http.Request) (*exchangeWriter, *http.Request) {
	x := &exchange{id: requestID(r.Header.Get(RequestIDHeader)), t: &timing{start: time.Now()}}
	w.Header().Set(RequestIDHeader, x.id)
	ctx := context.WithValue(r.Context(), exchangeKey{}, x)
	ctx = context.WithValue(ctx, timingKey{}, x.t)
	return &exchangeWriter{ResponseWriter: w, x: x}, r.WithContext(ctx)
}

// requestID keeps a caller's id when it is short and printable ASCII
// (it is echoed into a header and a log line), else makes one.
func requestID(sent string) string {
	if sent != "" && len(sent) <= 128 {
		ok := true
		for i := range len(sent) {
			if c := sent[i]; c < 0x21 || c > 0x7e {
				ok = false
				break
			}
		}
		if ok {
			return sent
		}
	}
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// exchangeWriter writes Server-Timing into the headers the moment they
// go out, whatever handler sends them, and keeps the status.
type exchangeWriter struct {
	http.ResponseWriter
	x    *exchange
	sent bool
}

func (w *exchangeWriter) WriteHeader(status int) {
	if !w.sent {
		w.sent = true
		w.x.status = status
		w.Header().Set("Server-Timing", w.x.t.header())
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *exchangeWriter) Write(p []byte) (int, error) {
	if !w.sent {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(p)
	w.x.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *exchangeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish covers a handler that wrote nothing.
func (w *exchangeWriter) finish() {
	if !w.sent {
		w.WriteHeader(http.StatusOK)
	}
}

// refused records the code of the refusal being written.
func refused(w http.ResponseWriter, code vine.Code) {
	if ew, ok := w.(*exchangeWriter); ok {
		ew.x.code = code
	}
}

// end logs the exchange, counts it and records its audit row, once the
// response is out. A
// handler that panicked sends nothing more (net/http drops the
// connection): it is logged as the 500 it is, and the panic goes on.
func (s *Server) end(w *exchangeWriter, r *http.Request) {
	p := recover()
	if p == nil {
		w.finish()
	} else if !w.sent {
		w.x.status = http.StatusInternalServerError
	}
	defer func() {
		if p != nil {
			panic(p)
		}
	}()
	x := w.x
	d := time.Since(x.t.start)
	if s.metrics != nil {
		s.metrics.observe(x, d)
	}
	s.access.LogAttrs(r.Context(), accessLevel(x.status), "request",
		slogAttrs(x, r, d)...)
	s.recordExchange(r.Context(), x)
}
