// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"
	"slices"
	"strings"
)

// corsExposed are the response headers a page on an allowed origin may
// read: the clocks, the job's address, the request id, the wait after a
// 429, a payload's version and name.
const corsExposed = "Server-Timing, Location, X-Request-Id, Retry-After, ETag, Content-Disposition, Allow"

// corsAllowedHeaders are the request headers a page may send.
const corsAllowedHeaders = "Authorization, Content-Type, X-API-Key, X-Request-Id"

// corsOrigin reports whether origin is one Options.CORSOrigins lists,
// compared without case and without a trailing slash.
func (s *Server) corsOrigin(origin string) bool {
	if origin == "" {
		return false
	}
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	return slices.ContainsFunc(s.opt.CORSOrigins, func(a string) bool {
		return strings.TrimSuffix(strings.ToLower(a), "/") == o
	})
}

// cors marks a response to an allowed origin readable by its page, and
// answers its preflight (OPTIONS with Access-Control-Request-Method) on
// the spot: 204 with the methods the path serves, or 404 when it serves
// none. It reports whether the request was answered. The Host check
// still runs on the preflight: a rebinding page gets no CORS grant.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if !s.corsOrigin(origin) || !s.hosts.Allowed(r.Host) {
		return false // a Host not allowed: the guard refuses it, with no grant
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", corsExposed)
	h.Set("Timing-Allow-Origin", origin)
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	allow := s.allowed(r)
	if len(allow) == 0 {
		s.noEndpoint(w, r)
		return true
	}
	h.Set("Access-Control-Allow-Methods", strings.Join(allow, ", "))
	h.Set("Access-Control-Allow-Headers", corsAllowedHeaders)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// withoutCORSOrigin is r as the Host guard should judge it: an allowed
// CORS origin is no cross-site forgery, so its Origin is set aside and
// only the Host is checked.
func (s *Server) withoutCORSOrigin(r *http.Request) *http.Request {
	if !s.corsOrigin(r.Header.Get("Origin")) {
		return r
	}
	c := *r
	c.Header = r.Header.Clone()
	c.Header.Del("Origin")
	return &c
}
