// SPDX-License-Identifier: Apache-2.0

package destination

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

// fakeResolver answers every name with the same addresses.
type fakeResolver []netip.Addr

func (f fakeResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	if len(f) == 0 {
		return nil, errors.New("no such host")
	}
	return f, nil
}

func addrs(s ...string) fakeResolver {
	out := fakeResolver{}
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, url string
		res       fakeResolver
		allow     bool
		msg       string
	}{
		{"public name", "https://hooks.example.com/x", addrs("93.184.216.34"), false, ""},
		{"no scheme", "hooks.example.com/x", nil, false, "endpoint must be an http(s) URL with a host"},
		{"ftp", "ftp://hooks.example.com/", nil, false, "endpoint must be an http(s) URL with a host"},
		{"no host", "http:///x", nil, false, "endpoint must be an http(s) URL with a host"},
		{"loopback literal", "http://127.0.0.1:8080/", nil, false, "endpoint resolves to a non-public address"},
		{"v6 loopback", "http://[::1]/", nil, false, "endpoint resolves to a non-public address"},
		{"mapped loopback", "http://[::ffff:127.0.0.1]/", nil, false, "endpoint resolves to a non-public address"},
		{"one private among many", "https://a.example/", addrs("93.184.216.34", "10.0.0.7"), false, "endpoint resolves to a non-public address"},
		{"link-local", "http://169.254.169.254/", nil, false, "endpoint resolves to a non-public address"},
		{"cgnat", "http://100.64.1.1/", nil, false, "endpoint resolves to a non-public address"},
		{"unspecified", "http://0.0.0.0/", nil, false, "endpoint resolves to a non-public address"},
		{"multicast", "http://224.0.0.1/", nil, false, "endpoint resolves to a non-public address"},
		{"unresolvable", "http://nowhere.invalid/", fakeResolver{}, false, "endpoint host does not resolve: nowhere.invalid"},
		{"allowed private", "http://127.0.0.1:8080/", nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Check(context.Background(), tt.url, tt.allow, tt.res)
			if tt.msg == "" {
				require.NoError(t, err)
				return
			}
			var ve *vine.Error
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, vine.ESchema, ve.Code)
			assert.Equal(t, tt.msg, ve.Message)
		})
	}
}

// TestClientRefusesPrivateAtDialTime is the rebinding defence: a
// destination that passed the check but dials a loopback address is
// refused by the dialer itself, unless allowed.
func TestClientRefusesPrivateAtDialTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	_, err := Client(time.Second, false).Get(srv.URL)
	require.Error(t, err)
	assert.ErrorIs(t, err, errNonPublic)

	resp, err := Client(time.Second, true).Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusFound, resp.StatusCode, "a redirect is the answer, never followed")
}

func TestCheckGit(t *testing.T) {
	r := hostResolver{"git.example.org": addrs("93.184.216.34"), "git.lan": addrs("10.0.0.7")}
	cases := []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://git.example.org/f.git", false, true},
		{"https://git.lan/f.git", false, false},
		{"https://git.lan/f.git", true, true},
		{"ssh://git@git.example.org/f.git", false, true},
		{"ssh://git@git.lan:2222/f.git", false, false},
		{"git@git.lan:team/f.git", false, false},
		{"git@git.example.org:team/f.git", false, true},
		{"ssh://127.0.0.1/f.git", false, false},
		{"file:///srv/f.git", true, false},
		{"/srv/f.git", true, false},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			err := CheckGit(context.Background(), c.url, c.allowPrivate, r)
			if c.ok {
				assert.NoError(t, err)
				return
			}
			var e *vine.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, vine.ESchema, e.Code)
		})
	}
}

// hostResolver answers each name with its own addresses.
type hostResolver map[string]fakeResolver

func (h hostResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return h[host], nil
}
