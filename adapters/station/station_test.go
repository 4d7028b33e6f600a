// SPDX-License-Identifier: Apache-2.0

package station

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/registry"
	"github.com/monkeyllm/vine/internal/testforest"
)

const forestID = "mare-alta"

// testStation serves the fixture forest from a Station with a fresh
// registry, over a real listener.
type testStation struct {
	t        *testing.T
	s        *Server
	url      string
	registry string
	root     string
	srv      *httptest.Server
}

// settle waits until every request answered so far has had its audit
// row recorded: a surface records a call once its response is out, so a
// client can read the answer a moment before the row is queued. Closing
// the test server waits for every handler; calls after settle fail.
func (ts *testStation) settle() {
	ts.srv.Close()
	require.NoError(ts.t, ts.s.audit.Flush(context.Background()))
}

func newTestStation(t *testing.T, edit func(*Options)) *testStation {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	opt := Options{Root: filepath.Dir(dir), Registry: filepath.Join(t.TempDir(), "registry", "station.db"),
		Writable: true, AllowedHosts: []string{"*"}}
	if edit != nil {
		edit(&opt)
	}
	s, err := New(context.Background(), opt)
	require.NoError(t, err)
	srv := httptest.NewServer(s)
	t.Cleanup(func() {
		srv.Close()
		assert.NoError(t, s.Close())
	})
	return &testStation{t: t, s: s, url: srv.URL, registry: opt.Registry, root: opt.Root, srv: srv}
}

// reply is one finished exchange.
type reply struct {
	status int
	body   string
	json   map[string]any
	hdr    http.Header
}

func (ts *testStation) call(method, path, key string, body any) reply {
	ts.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		require.NoError(ts.t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	require.NoError(ts.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(ts.t, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	a := reply{status: res.StatusCode, body: string(data), hdr: res.Header}
	_ = json.Unmarshal(data, &a.json)
	return a
}

func (a reply) str(key string) string { s, _ := a.json[key].(string); return s }

func (a reply) header(name string) string { return a.hdr.Get(name) }

// owner runs setup and returns the owner's session key.
func (ts *testStation) owner() string {
	ts.t.Helper()
	a := ts.call("POST", "/v1/auth/setup", "", map[string]string{"username": "olga", "password": "a long owner passphrase"})
	require.Equal(ts.t, http.StatusOK, a.status, a.body)
	return a.str("key")
}

func TestStationEndToEnd(t *testing.T) {
	ts := newTestStation(t, nil)
	h := ts.call("GET", "/v1/health", "", nil)
	assert.Equal(t, true, h.json["setup_required"])
	assert.Equal(t, false, h.json["password_login"])

	owner := ts.owner()
	assert.Equal(t, false, ts.call("GET", "/v1/health", "", nil).json["setup_required"])
	again := ts.call("POST", "/v1/auth/setup", "", map[string]string{"username": "mallory", "password": "a long stolen passphrase"})
	unrouted := ts.call("POST", "/v1/auth/nothing", "", map[string]string{"username": "mallory"})
	assert.Equal(t, unrouted.status, again.status)
	assert.Equal(t, strings.ReplaceAll(unrouted.body, "nothing", "setup"), again.body, "a closed setup is an unrouted path")

	// The owner grants a colleague one branch, read-only, with a password.
	people := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "rui",
		"grant":    map[string]any{"forest": forestID, "caps": []string{"read", "write"}, "allow": []string{"concepts/"}},
		"password": "rui's long passphrase", "issue_key": true})
	require.Equal(t, http.StatusOK, people.status, people.body)
	assert.Equal(t, []any{"grant", "password", "issue_key"}, people.json["applied"])
	ruiKey := people.str("api_key")
	require.NotEmpty(t, ruiKey)

	login := ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "rui", "password": "rui's long passphrase"})
	require.Equal(t, http.StatusOK, login.status, login.body)
	session := login.str("key")
	assert.Equal(t, false, login.json["admin"])

	look := ts.call("POST", "/v1/forests/"+forestID+"/look", session, map[string]string{"id": "concepts/tide"})
	assert.Equal(t, http.StatusOK, look.status, look.body)
	hidden := ts.call("POST", "/v1/forests/"+forestID+"/look", session, map[string]string{"id": "people/lucia-andrade"})
	assert.Equal(t, http.StatusNotFound, hidden.status, "out of scope is absent")
	plant := ts.call("POST", "/v1/forests/"+forestID+"/plant", ruiKey, map[string]any{"node": map[string]any{
		"id": "concepts/relay", "type": "concept", "title": "Relay", "summary": "A node Rui planted.", "parent": "concepts/_index"}})
	require.Equal(t, http.StatusOK, plant.status, plant.body)
	hist := ts.call("POST", "/v1/forests/"+forestID+"/history", session, map[string]string{"id": "concepts/relay"})
	assert.Contains(t, hist.body, `"by":"rui"`, "the write carries the station-principal trailer")
	assert.Equal(t, http.StatusForbidden, ts.call("GET", "/v1/admin/audit", session, nil).status, "rui administers nothing")

	// The audit trail holds every call, the governance acts among them. A
	// surface records a call once its response is out, so the last rows
	// may follow the answers by a moment: wait for them, then count.
	wants := []string{"olga auth.setup ok", "olga admin.people ok", "rui auth.login ok", "rui look ok",
		"rui look error", "rui plant ok", "rui history ok"}
	seen := map[string]int{}
	require.Eventually(t, func() bool { // no require here: this runs on another goroutine
		if ts.s.audit.Flush(context.Background()) != nil {
			return false
		}
		trail := ts.call("GET", "/v1/admin/audit?limit=500", owner, nil)
		var page struct {
			Entries []struct{ Principal, Forest, Primitive, Result string } `json:"entries"`
		}
		if trail.status != http.StatusOK || json.Unmarshal([]byte(trail.body), &page) != nil {
			return false
		}
		seen = map[string]int{}
		for _, e := range page.Entries {
			seen[e.Principal+" "+e.Primitive+" "+e.Result]++
		}
		for _, want := range wants {
			if seen[want] == 0 {
				return false
			}
		}
		return true
	}, 10*time.Second, 20*time.Millisecond, "every call's row arrives")
	for _, want := range wants {
		assert.Equal(t, 1, seen[want], "exactly one row: %s (rows %v)", want, seen)
	}

	// Revocation: every key of rui, sessions included, stops at once.
	rev := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "rui", "revoke_keys": true})
	require.Equal(t, http.StatusOK, rev.status, rev.body)
	for _, k := range []string{ruiKey, session} {
		r := ts.call("POST", "/v1/forests/"+forestID+"/look", k, map[string]string{"id": "concepts/tide"})
		assert.Equal(t, http.StatusUnauthorized, r.status, "a revoked key is refused")
	}
}

func TestSetupRaceMakesOneOwner(t *testing.T) {
	ts := newTestStation(t, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 12 {
		wg.Go(func() {
			a := ts.call("POST", "/v1/auth/setup", "", map[string]string{"username": "owner" + string(rune('a'+i)),
				"password": "a long owner passphrase"})
			if a.status == http.StatusOK {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 1, wins, "concurrent first calls make exactly one owner")
}

func TestBreakGlassNeverOnDisk(t *testing.T) {
	const secret = "break-glass-passphrase-9f3c"
	ts := newTestStation(t, func(o *Options) { o.BreakGlass = registry.BreakGlass{User: "root", Password: secret} })
	assert.Equal(t, false, ts.call("GET", "/v1/health", "", nil).json["setup_required"], "no setup while break-glass is configured")
	a := ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "root", "password": secret})
	require.Equal(t, http.StatusOK, a.status, a.body)
	assert.Equal(t, true, a.json["owner"])
	var announce bytes.Buffer
	require.NoError(t, ts.s.Announce(context.Background(), &announce, ConsoleURL("0.0.0.0:8800")))
	assert.Contains(t, announce.String(), `sign in as "root"`)
	assert.NotContains(t, announce.String(), secret)
	require.NoError(t, ts.s.audit.Flush(context.Background()))
	err := filepath.WalkDir(filepath.Dir(ts.registry), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.NotContains(t, string(data), secret, "%s holds the break-glass password", filepath.Base(p))
		return nil
	})
	require.NoError(t, err)
}

func TestDoorsRefuseAlike(t *testing.T) {
	ts := newTestStation(t, nil)
	ts.owner()
	wrong := ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "olga", "password": "not the passphrase"})
	unknown := ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "nobody", "password": "not the passphrase"})
	assert.Equal(t, http.StatusUnauthorized, wrong.status)
	assert.Equal(t, wrong.body, unknown.body, "unknown user and wrong password are indistinguishable")
	for range doorFailures - 1 {
		ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "nobody", "password": "x"})
	}
	limited := ts.call("POST", "/v1/auth/pair", "", map[string]string{"username": "nobody", "password": "x"})
	assert.Equal(t, http.StatusTooManyRequests, limited.status, "pair shares login's window")
	assert.Contains(t, limited.body, "too many attempts")
	assert.Equal(t, http.StatusOK, ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "olga",
		"password": "a long owner passphrase"}).status, "another user's window is its own")

	for _, c := range []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"username": "olga", "password": "a long owner passphrase", "caps": "read"}, "caps must be a list"},
		{map[string]any{"username": "olga", "password": "a long owner passphrase", "caps": []string{"write"}}, "within [read, ingest, answer]"},
		{map[string]any{"username": "olga", "password": "a long owner passphrase", "expires_in_days": "soon"}, "must be a number"},
		{map[string]any{"username": "olga", "password": "a long owner passphrase", "expires_in_days": -1}, "must be positive"},
		{map[string]any{"username": "olga", "password": "a long owner passphrase", "expires_in_days": 400}, "at most 365"},
	} {
		a := ts.call("POST", "/v1/auth/pair", "", c.body)
		assert.Equal(t, http.StatusBadRequest, a.status, c.msg)
		assert.Contains(t, a.body, c.msg)
	}
	paired := ts.call("POST", "/v1/auth/pair", "", map[string]string{"username": "olga", "password": "a long owner passphrase"})
	require.Equal(t, http.StatusOK, paired.status, paired.body)
	assert.Equal(t, []any{"read", "ingest", "answer"}, paired.json["caps"], "the ceiling when none is asked")
	assert.Equal(t, http.StatusForbidden, ts.call("GET", "/v1/admin/keys", paired.str("api_key"), nil).status,
		"the owner's paired key carries no admin, so no owner bit")

	owner := ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "olga", "password": "a long owner passphrase"}).str("key")
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "rui",
		"grant": map[string]any{"forest": forestID, "caps": []string{"read", "write", "ingest"}}, "password": "rui's long passphrase"}).status)
	rui := ts.call("POST", "/v1/auth/pair", "", map[string]any{"username": "rui", "password": "rui's long passphrase", "caps": []string{"read"}})
	require.Equal(t, http.StatusOK, rui.status, rui.body)
	pk := rui.str("api_key")
	assert.Equal(t, http.StatusForbidden, ts.call("POST", "/v1/forests/"+forestID+"/plant", pk, map[string]any{"node": map[string]any{
		"id": "concepts/x", "type": "concept", "title": "X", "summary": "x", "parent": "concepts/_index"}}).status, "masked down to read")
	assert.Equal(t, http.StatusOK, ts.call("POST", "/v1/forests/"+forestID+"/look", pk, map[string]string{"id": "concepts/tide"}).status)
}
