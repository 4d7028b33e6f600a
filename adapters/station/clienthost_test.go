// SPDX-License-Identifier: Apache-2.0

package station

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClientHost(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, c := range []struct {
		name, remote string
		xff          []string
		want         string
	}{
		{"a direct peer", "203.0.113.9:4242", nil, "203.0.113.9"},
		{"a forged header from a stranger", "203.0.113.9:4242", []string{"1.2.3.4"}, "203.0.113.9"},
		{"through a trusted proxy", "10.1.2.3:80", []string{"198.51.100.7"}, "198.51.100.7"},
		{"two proxies deep", "10.1.2.3:80", []string{"198.51.100.7, 10.9.9.9"}, "198.51.100.7"},
		{"the client's own claim left of a stranger is ignored", "10.1.2.3:80", []string{"6.6.6.6, 198.51.100.7"}, "198.51.100.7"},
		{"header lines joined", "10.1.2.3:80", []string{"6.6.6.6", "198.51.100.7"}, "198.51.100.7"},
		{"a proxy without the header", "10.1.2.3:80", nil, "10.1.2.3"},
		{"a malformed hop stops the walk", "10.1.2.3:80", []string{"198.51.100.7, garbage"}, "10.1.2.3"},
		{"ipv6 loopback proxy", "[::1]:8800", []string{"2001:db8::5"}, "2001:db8::5"},
		{"a mapped ipv4 peer", "[::ffff:203.0.113.9]:1", nil, "203.0.113.9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/v1/auth/login", nil)
			r.RemoteAddr = c.remote
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			assert.Equal(t, c.want, clientHost(r, proxies))
		})
	}
}
