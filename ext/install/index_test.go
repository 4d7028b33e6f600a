// SPDX-License-Identifier: Apache-2.0

package install_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext/install"
)

// TestIndexOverHTTPS: an index at an https URL is fetched with the
// Trust's client, its .sig beside it, and verified over the exact bytes
// before it is parsed; whatever keeps it from arriving whole and signed
// refuses it (reason index) and installs nothing.
func TestIndexOverHTTPS(t *testing.T) {
	f := newForge(t)
	ada := f.newKey(t, "ada")
	dir, repo := gitRepo(t, orgTree(t))
	f.owners[dir] = "ada"
	tag(t, repo, "v0.1.0", ada)
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	_, otherPriv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)

	index, err := json.Marshal(map[string]any{"extensions": map[string]any{
		"org": map[string]any{"source": dir + "@v0.1.0", "identity": map[string]any{"account": "ada"}}}})
	require.NoError(t, err)
	// Padding keeps the JSON valid and signed: only its size is wrong.
	huge := append(append([]byte{}, index[:len(index)-1]...), append(bytes.Repeat([]byte(" "), 1<<20), '}')...)

	// plain serves a well-signed index over http, the target of the
	// redirect that must not be followed.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/index.json" {
			w.Write(index)
			return
		}
		w.Write(install.SignIndex(priv, index))
	}))
	t.Cleanup(plain.Close)

	serve := func(body []byte, sig []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/index.json":
				w.Write(body)
			case "/index.json.sig":
				if sig == nil {
					http.NotFound(w, r)
					return
				}
				w.Write(sig)
			default:
				http.NotFound(w, r)
			}
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		url     func(srv *httptest.Server) string // nil: <srv>/index.json
		reason  string                            // "" = installs verified
		says    string                            // what the refusal names
	}{
		{name: "a good index", handler: serve(index, install.SignIndex(priv, index))},
		{name: "a redirect to https", handler: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/moved.json" || r.URL.Path == "/moved.json.sig" {
				http.Redirect(w, r, "/index.json"+r.URL.Path[len("/moved.json"):], http.StatusFound)
				return
			}
			serve(index, install.SignIndex(priv, index))(w, r)
		}, url: func(srv *httptest.Server) string { return srv.URL + "/moved.json" }},
		{name: "a bad signature", handler: serve(index, install.SignIndex(otherPriv, index)), reason: "index", says: "does not verify"},
		{name: "a signature that is not base64", handler: serve(index, []byte("not a signature\n")), reason: "index", says: "does not verify"},
		{name: "a missing signature", handler: serve(index, nil), reason: "index", says: "404"},
		{name: "an oversize index", handler: serve(huge, install.SignIndex(priv, huge)), reason: "index", says: "larger than 1048576 bytes"},
		{name: "an oversize signature", handler: serve(index, append(install.SignIndex(priv, index), bytes.Repeat([]byte("\n"), 4<<10)...)), reason: "index", says: "larger than 4096 bytes"},
		{name: "a slow server", handler: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			serve(index, install.SignIndex(priv, index))(w, r)
		}, reason: "index", says: "deadline exceeded"},
		{name: "a redirect to http", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
		}, reason: "index", says: "not https"},
		{name: "a 404", handler: http.NotFound, reason: "index", says: "404"},
		{name: "a plain http URL", handler: serve(index, install.SignIndex(priv, index)),
			url: func(*httptest.Server) string { return plain.URL + "/index.json" }, reason: "index", says: "https URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			install.SetIndexTimeout(t, 300*time.Millisecond)
			srv := httptest.NewTLSServer(tc.handler)
			t.Cleanup(srv.Close)
			home, err := install.Open(t.TempDir())
			require.NoError(t, err)
			opt := trusted(f)
			opt.Trust.Client = srv.Client()
			opt.Trust.Index, opt.Trust.IndexKey = srv.URL+"/index.json", pub
			if tc.url != nil {
				opt.Trust.Index = tc.url(srv)
			}
			ctx := context.Background()
			res, err := home.Install(ctx, "org", opt)
			if tc.reason != "" {
				assert.Equal(t, tc.reason, reasonOf(err), "%v", err)
				assert.ErrorContains(t, err, tc.says)
				ids, _ := home.IDs()
				assert.Empty(t, ids, "a refused index installs nothing")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, install.TierVerified, res.Tier)
			assert.Equal(t, dir+"@v0.1.0", res.Source)
			stale, err := home.Outdated(ctx, opt.Trust)
			require.NoError(t, err)
			require.Len(t, stale, 1)
			assert.Empty(t, stale[0].Error, "outdated reads the index over https too")
			assert.False(t, stale[0].Behind)
		})
	}
}

// TestIndexRefusalSaysWhy: each refusal names its cause, so an operator
// can tell a forged index from an unreachable one.
func TestIndexRefusalSaysWhy(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	index := []byte(`{"extensions": {}}`)
	tests := []struct {
		name, want string
		handler    http.HandlerFunc
	}{
		{"bad signature", "does not verify", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/i.json" {
				w.Write([]byte(`{"extensions": {"x": {}}}`))
				return
			}
			w.Write(install.SignIndex(priv, index))
		}},
		{"404", "404", http.NotFound},
		{"oversize", "larger than 1048576 bytes", func(w http.ResponseWriter, r *http.Request) {
			w.Write(bytes.Repeat([]byte(" "), 1<<20+1))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewTLSServer(tc.handler)
			t.Cleanup(srv.Close)
			tr := install.Trust{Client: srv.Client(), Index: srv.URL + "/i.json", IndexKey: pub}
			idx, err := tr.LoadIndex(context.Background())
			assert.Nil(t, idx)
			assert.Equal(t, "index", reasonOf(err))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
