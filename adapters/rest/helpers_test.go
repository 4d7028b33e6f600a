// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
)

const forestID = "mare-alta"

// The keys of the test station.
const (
	keyFull   = "mk_full"   // admin over the whole forest
	keyScoped = "mk_scoped" // part of the forest, every cap but admin and answer
	keyRead   = "mk_read"   // read over the whole forest
	keyMasked = "mk_masked" // admin, masked down to read
	keyOther  = "mk_other"  // granted another forest only
	keyDeny   = "mk_deny"   // the whole forest but the projects branch
)

// scopedPolicy sees concepts, operations, media, finance and projects
// but projects/lighthouse. Hidden: people, library, events, products,
// organizations, the master index, projects/lighthouse.
var scopedPolicy = vine.Policy{
	Allow: []string{"concepts/", "operations/", "media/", "finance/", "projects/"},
	Deny:  []string{"projects/lighthouse/"},
	Caps:  []vine.Capability{vine.CapRead, vine.CapWrite, vine.CapQuery, vine.CapTend, vine.CapIngest},
}

// staticKeys resolves a fixed set of secrets.
type staticKeys map[string]*keys.Principal

func (s staticKeys) Resolve(_ context.Context, secret string) (*keys.Principal, bool) {
	p, ok := s[secret]
	return p, ok
}

func testKeys() staticKeys {
	grant := func(p vine.Policy) map[string]vine.Policy { return map[string]vine.Policy{forestID: p} }
	return staticKeys{
		keyFull:   {Name: "owner", Owner: true, Grants: grant(vine.Policy{Allow: []string{""}, Caps: []vine.Capability{vine.CapAdmin}})},
		keyScoped: {Name: "svc-scoped", Grants: grant(scopedPolicy)},
		keyRead:   {Name: "reader", Grants: grant(vine.Policy{Allow: []string{""}, Caps: []vine.Capability{vine.CapRead}})},
		keyMasked: {Name: "masked", Owner: true, Mask: []vine.Capability{vine.CapRead},
			Grants: grant(vine.Policy{Allow: []string{""}, Caps: []vine.Capability{vine.CapAdmin}})},
		keyOther: {Name: "other", Grants: map[string]vine.Policy{"elsewhere": {Allow: []string{""}, Caps: []vine.Capability{vine.CapAdmin}}}},
		keyDeny: {Name: "deny", Grants: grant(vine.Policy{Allow: []string{""}, Deny: []string{"projects/"},
			Caps: []vine.Capability{vine.CapRead, vine.CapIngest}})},
	}
}

// station is a REST server over a fresh fixture forest.
type station struct {
	t   *testing.T
	dir string
	man *fixture.Manifest
	reg *vine.Registry
	srv *rest.Server
}

// newStation serves a fresh fixture with the test keys and a reader pool
// of two; edit adjusts the options.
func newStation(t *testing.T, edit func(o *rest.Options)) *station {
	t.Helper()
	dir, man := testforest.Fixture(t)
	return serveDir(t, dir, man, edit)
}

func serveDir(t *testing.T, dir string, man *fixture.Manifest, edit func(o *rest.Options)) *station {
	t.Helper()
	reg, err := vine.NewRegistry(dir, &vine.Options{Observer: rest.TimingObserver{}})
	require.NoError(t, err)
	opts := &rest.Options{
		Version: "9.9.9-test",
		Keys:    testKeys(),
		Readers: 2,
		OpenReader: func() (*vine.Registry, error) {
			return vine.NewRegistry(dir, &vine.Options{ReadOnly: true, Observer: rest.TimingObserver{}})
		},
	}
	if edit != nil {
		edit(opts)
	}
	srv := rest.New(reg, opts)
	t.Cleanup(func() {
		assert.NoError(t, srv.Close())
		reg.Close()
	})
	return &station{t: t, dir: dir, man: man, reg: reg, srv: srv}
}

// reply is a finished exchange.
type reply struct {
	status int
	header http.Header
	body   string
}

// localHost is the Host a local client sends; the default allow-list
// serves it on any port, where httptest's example.com is refused.
const localHost = "localhost:8800"

// do sends one request as a local non-browser client would: Host
// localhost, and a body declared JSON; key "" sends none.
func (st *station) do(method, target, key, body string) reply {
	st.t.Helper()
	r := httpRequest(method, target)
	r.Body, r.ContentLength = ioBody(body), int64(len(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	w := httptest.NewRecorder()
	st.srv.ServeHTTP(w, r)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return reply{status: res.StatusCode, header: res.Header, body: string(b)}
}

// post calls a primitive of the fixture forest.
func (st *station) post(key, name, body string) reply {
	st.t.Helper()
	return st.do(http.MethodPost, "/v1/forests/"+forestID+"/"+name, key, body)
}

// envelope asserts a refusal with status and code and returns its inner
// object.
func envelope(t *testing.T, r reply, status int, code vine.Code) map[string]any {
	t.Helper()
	require.Equal(t, status, r.status, r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	var env map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &env), r.body)
	require.Len(t, env, 1, "the body is the envelope and nothing else")
	e := env["error"]
	require.NotNil(t, e, r.body)
	assert.Equal(t, string(code), e["code"], r.body)
	return e
}

// ok asserts a 200 JSON answer and decodes it.
func ok(t *testing.T, r reply) map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, r.body)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &m), r.body)
	_, isErr := m["error"]
	require.False(t, isErr, r.body)
	return m
}

var serverTiming = regexp.MustCompile(`^vine;dur=(\d+\.\d{3}), host;dur=(\d+\.\d{3})$`)

// noEngineTiming is the header of a response no engine call went into.
var noEngineTiming = regexp.MustCompile(`^vine;dur=0\.000, host;dur=\d+\.\d{3}$`)

// hostList is a Host guard for health.
type hostList map[string]bool

func (h hostList) Allowed(host string) bool { return h[host] }

// httpRequest is a bodiless request from a local client.
func httpRequest(method, target string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Host = localHost
	return r
}

func ioBody(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

// serve sends a prepared request.
func serve(st *station, r *http.Request) reply {
	st.t.Helper()
	w := httptest.NewRecorder()
	st.srv.ServeHTTP(w, r)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return reply{status: res.StatusCode, header: res.Header, body: string(b)}
}

func fixtureDir(t *testing.T) (string, *fixture.Manifest) {
	t.Helper()
	return testforest.Fixture(t)
}
