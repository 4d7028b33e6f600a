// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"log/slog"
	"net/http"
	"time"
)

// accessLevel logs a failure of the server louder than anything a
// caller did.
func accessLevel(status int) slog.Level {
	if status >= http.StatusInternalServerError {
		return slog.LevelError
	}
	return slog.LevelInfo
}

// slogAttrs is one access log line: who asked what and how it went. The
// path is the escaped one, bounded; bodies and keys are never logged.
func slogAttrs(x *exchange, r *http.Request, d time.Duration) []slog.Attr {
	p := r.URL.EscapedPath()
	if len(p) > 256 {
		p = p[:256] + "…"
	}
	attrs := []slog.Attr{
		slog.String("request_id", x.id),
		slog.String("method", r.Method),
		slog.String("path", p),
		slog.String("tool", x.op),
		slog.String("principal", x.principal),
		slog.Int("status", x.status),
		slog.Float64("ms", float64(d.Microseconds())/1000),
	}
	if x.code != "" {
		attrs = append(attrs, slog.String("code", string(x.code)))
	}
	return attrs
}
