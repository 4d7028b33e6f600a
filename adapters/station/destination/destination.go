// SPDX-License-Identifier: Apache-2.0

// Package destination judges where the Station may send a request of its
// own (spec 09 §8, shared by provider tests and webhooks, §10): an
// http(s) URL with a host whose every address is public, unless the
// operator allows non-public destinations
// (MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE, read by the CLI only).
//
// The rule is applied twice: Check resolves the name and judges every
// address when a destination is named, and Client's dialer judges the
// address it actually connects to, so a name that resolves to a public
// address when checked and a private one when dialled (DNS rebinding)
// still reaches nothing. Redirects are never followed.
package destination

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/monkeyllm/vine"
)

// Hint is the refusal hint of a non-public destination: the setting that
// lifts the rule.
const Hint = "MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE=1"

// Resolver resolves a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Check validates rawURL: http or https with a host, else E_SCHEMA
// "endpoint must be an http(s) URL with a host"; unless allowPrivate,
// every address the host resolves to must be public, else E_SCHEMA
// "endpoint resolves to a non-public address" (or "endpoint host does
// not resolve: <h>"). A nil resolver is net.DefaultResolver. The
// returned URL is the parsed one.
func Check(ctx context.Context, rawURL string, allowPrivate bool, r Resolver) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, &vine.Error{Code: vine.ESchema, Message: "endpoint must be an http(s) URL with a host"}
	}
	if allowPrivate {
		return u, nil
	}
	host := u.Hostname()
	addrs := []netip.Addr{}
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else {
		if r == nil {
			r = net.DefaultResolver
		}
		if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return nil, &vine.Error{Code: vine.ESchema, Message: "endpoint host does not resolve: " + host}
		}
	}
	for _, a := range addrs {
		if !Public(a) {
			return nil, nonPublic()
		}
	}
	return u, nil
}

// CheckGit is Check for a git remote: http(s) as Check, and ssh:// or
// scp-like "user@host:path" by the addresses of their host. Anything
// else (file://, a bare path) is not a network remote and is E_SCHEMA.
func CheckGit(ctx context.Context, rawURL string, allowPrivate bool, r Resolver) error {
	host := ""
	if u, err := url.Parse(rawURL); err == nil && u.Scheme != "" {
		switch u.Scheme {
		case "http", "https":
			_, err := Check(ctx, rawURL, allowPrivate, r)
			return err
		case "ssh", "git+ssh":
			host = u.Hostname()
		}
	} else if at, rest, ok := strings.Cut(rawURL, "@"); ok && at != "" && !strings.Contains(at, "/") {
		host, _, _ = strings.Cut(rest, ":")
	}
	if host == "" {
		return &vine.Error{Code: vine.ESchema, Message: "remote must be an http(s):// or ssh:// URL with a host"}
	}
	_, err := Check(ctx, "https://"+host, allowPrivate, r)
	return err
}

func nonPublic() *vine.Error {
	return &vine.Error{Code: vine.ESchema, Message: "endpoint resolves to a non-public address", Hint: Hint}
}

// reserved are the ranges netip's predicates leave public that no
// destination of ours may be: shared (CGNAT), this-network, IETF
// protocol assignments, benchmarking, documentation, the old class E
// and broadcast, and their IPv6 kin (NAT64 and documentation).
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("100::/64"),
}

// Public reports whether a is a public unicast address: not loopback,
// private, link-local, multicast, unspecified or reserved. An IPv4
// address inside IPv6 is judged as IPv4.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// errNonPublic is what a refused dial returns inside the transport.
var errNonPublic = errors.New("destination: refusing to dial a non-public address")

// Control is a net.Dialer Control that refuses to connect to a
// non-public address: the rule enforced at dial time.
func Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errNonPublic
	}
	if !Public(ap.Addr()) {
		return errNonPublic
	}
	return nil
}

// Client is an HTTP client for destinations judged by Check: it never
// follows a redirect (the 3xx is the answer), gives up after timeout,
// and unless allowPrivate refuses at dial time to connect to a
// non-public address. It uses no proxy from the environment.
func Client(timeout time.Duration, allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = Control
	}
	tr := &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: timeout, MaxIdleConnsPerHost: 2,
		IdleConnTimeout: 90 * time.Second, ResponseHeaderTimeout: timeout}
	return &http.Client{Timeout: timeout, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
