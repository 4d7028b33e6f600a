// SPDX-License-Identifier: Apache-2.0

package station

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientHost is the host a request is rate limited and audited by (09
// §4, decision §18.7): the TCP peer, unless the peer is a configured
// trusted proxy, in which case the nearest address in X-Forwarded-For
// that is not itself a trusted proxy. A header from anyone else is
// ignored: it is the caller's to forge.
func clientHost(r *http.Request, trusted []netip.Prefix) string {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() {
		return r.RemoteAddr
	}
	if !inAny(peer, trusted) {
		return peer.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop ends what can be believed
		}
		a = a.Unmap()
		if !inAny(a, trusted) {
			return a.String()
		}
		peer = a
	}
	return peer.String()
}

// peerAddr parses a RemoteAddr ("ip:port", or a bare ip).
func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

func inAny(a netip.Addr, prefixes []netip.Prefix) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
