// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine"
)

// HostNotAllowed is the code of a request the Host allow-list refused
// (HTTP 421, on the MCP mount and the REST surface alike).
const HostNotAllowed vine.Code = "E_HOST_NOT_ALLOWED"

// HostsEnv is the environment variable naming the allowed Host values, a
// comma list; "*" turns the Host and Origin checks off.
const HostsEnv = "MONKEYLLM_STATION_ALLOWED_HOSTS"

// localNames are the host names that only reach this machine.
var localNames = []string{"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "testserver"}

// Hosts is the DNS-rebinding guard of an HTTP mount: the Host header
// values it serves and the browser Origins it accepts. Guard and health
// ask the same Allowed, so what health reports is what the guard does.
type Hosts struct {
	wildcard     bool
	exact        map[string]bool // lower-cased Host values
	localAnyPort bool
	entries      []string
}

// NewHosts allows exactly the given Host values (compared without case;
// a port is part of the value, so list "localhost" and "localhost:8800"
// both when both arrive). An entry "*" allows every Host and Origin.
func NewHosts(entries []string) *Hosts {
	h := &Hosts{exact: map[string]bool{}}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		switch e {
		case "":
			continue
		case "*":
			h.wildcard = true
		}
		h.exact[e] = true
		h.entries = append(h.entries, e)
	}
	return h
}

// LocalHostsAnyPort allows localhost, 127.0.0.1 and [::1] on any port: the
// guard of a mount whose listening port the caller does not know.
func LocalHostsAnyPort() *Hosts {
	h := NewHosts([]string{"localhost", "127.0.0.1", "[::1]"})
	h.localAnyPort = true
	return h
}

// LocalHosts is the default allow-list of a local server listening on
// port: localhost, 127.0.0.1 and [::1], bare and with the port.
func LocalHosts(port string) []string {
	var out []string
	for _, n := range []string{"localhost", "127.0.0.1", "[::1]"} {
		out = append(out, n)
		if port != "" {
			out = append(out, n+":"+port)
		}
	}
	return out
}

// ParseHosts splits a comma list (the form of HostsEnv and of the
// --allow-host flag), dropping blanks.
func ParseHosts(list string) []string {
	var out []string
	for _, e := range strings.Split(list, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// Allowed reports whether a request carrying this Host header is served.
func (h *Hosts) Allowed(host string) bool {
	if h.wildcard {
		return true
	}
	host = strings.ToLower(host)
	if h.exact[host] {
		return true
	}
	return h.localAnyPort && h.exact[stripPort(host)]
}

// OriginAllowed reports whether a browser Origin may call the mount: an
// absent Origin (a non-browser client) may, and so may a browser
// extension (the Clipper, 10 §11); otherwise it must be http://<h> or
// https://<h> for an allowed Host h.
//
// An extension is admitted because refusing it protects nothing: the
// Host is still checked (no rebinding), the Station takes no ambient
// credential a forged request could ride on (every call carries a bearer
// key the extension holds), and an extension granted the Station's
// origin can rewrite its own request headers anyway. A web page's
// Origin is always http or https, so this opens no door to pages.
func (h *Hosts) OriginAllowed(origin string) bool {
	if origin == "" || h.wildcard || extensionOrigin(origin) {
		return true
	}
	o := strings.ToLower(origin)
	for _, scheme := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(o, scheme); ok && !strings.Contains(rest, "/") {
			return h.Allowed(rest)
		}
	}
	return false
}

// extensionSchemes are the origins of browser extension contexts.
var extensionSchemes = []string{"chrome-extension://", "moz-extension://"}

// extensionOrigin reports whether origin is a bare extension origin,
// scheme and id with nothing after.
func extensionOrigin(origin string) bool {
	o := strings.ToLower(origin)
	for _, scheme := range extensionSchemes {
		if id, ok := strings.CutPrefix(o, scheme); ok {
			return id != "" && !strings.ContainsAny(id, "/:@ ")
		}
	}
	return false
}

// Wildcard reports whether "*" turned the checks off.
func (h *Hosts) Wildcard() bool { return h.wildcard }

// LocalOnly reports whether every entry, port stripped, names this
// machine, so no remote client can reach the mount by name. It is judged
// on the effective list, whatever set it.
func (h *Hosts) LocalOnly() bool {
	if h.wildcard {
		return false
	}
	for _, e := range h.entries {
		if !slices.Contains(localNames, stripPort(e)) {
			return false
		}
	}
	return true
}

func stripPort(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// Guard refuses what Check refuses, before next sees the request.
func (h *Hosts) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, e := h.Check(r); e != nil {
			WriteRefusal(w, status, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Check is the guard's decision on r, whatever its method: a Host not
// allowed is 421 with the envelope E_HOST_NOT_ALLOWED quoting the Host
// sent, a browser Origin not allowed is 403 E_FORBIDDEN; nil means r may
// pass. The check never relaxes; the refusal only says why, and never
// lists what is allowed.
func (h *Hosts) Check(r *http.Request) (int, *vine.Error) {
	if !h.Allowed(r.Host) {
		return http.StatusMisdirectedRequest, hostRefusal(r.Host)
	}
	if origin := r.Header.Get("Origin"); !h.OriginAllowed(origin) {
		return http.StatusForbidden, originRefusal(origin)
	}
	return 0, nil
}

const hostsHint = "the server's operator lists accepted Host values in " + HostsEnv +
	" (comma list) or with --allow-host; \"*\" turns the check off and leaves the server open to DNS rebinding"

func hostRefusal(host string) *vine.Error {
	msg := "host not allowed: no Host header was sent"
	if host != "" {
		msg = "host not allowed: " + quote(host)
	}
	return &vine.Error{Code: HostNotAllowed, Message: msg, Hint: hostsHint}
}

func originRefusal(origin string) *vine.Error {
	return &vine.Error{Code: vine.EForbidden, Message: "origin not allowed: " + quote(origin),
		Hint: "a browser page may call this server only from an allowed host; " + hostsHint}
}

// quote renders a caller's own header value, bounded, control characters
// escaped.
func quote(s string) string {
	const max = 256
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
}

// WriteRefusal sends e as the envelope with status, marked JSON and not
// to be sniffed.
func WriteRefusal(w http.ResponseWriter, status int, e *vine.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(e.Body())
}
