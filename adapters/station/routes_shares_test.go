// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/audit"
	"github.com/monkeyllm/vine/adapters/studio"
)

// testClock is a settable clock for the Station under test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// shareStation is a Station with a settable clock, the owner and a key
// per person of the share tests, each granted on the fixture forest.
type shareStation struct {
	*testStation
	clock *testClock
	owner string
	keys  map[string]string
}

func newShareStation(t *testing.T, edit func(*Options)) *shareStation {
	clock := &testClock{t: time.Now().UTC().Truncate(time.Second)}
	ts := newTestStation(t, func(o *Options) {
		o.Now = clock.now
		if edit != nil {
			edit(o)
		}
	})
	ss := &shareStation{testStation: ts, clock: clock, owner: ts.owner(), keys: map[string]string{}}
	for _, p := range []struct {
		name  string
		caps  []string
		allow []string
	}{
		{"ana", []string{"read", "answer"}, nil},           // the issuer
		{"rui", []string{"read", "answer"}, nil},           // another reader
		{"adm", []string{"admin"}, nil},                    // an unrestricted admin
		{"sadm", []string{"admin"}, []string{"concepts/"}}, // an admin of one branch
		{"lim", []string{"read"}, []string{"concepts/"}},   // a reader of one branch
		{"nor", []string{"write"}, nil},                    // no read
		{"sus", []string{"read", "answer"}, nil},           // loses the grant
	} {
		grant := map[string]any{"forest": forestID, "caps": p.caps}
		if p.allow != nil {
			grant["allow"] = p.allow
		}
		a := ts.call("POST", "/v1/admin/people", ss.owner, map[string]any{"principal": p.name, "issue_key": true, "grant": grant})
		require.Equal(t, http.StatusOK, a.status, a.body)
		ss.keys[p.name] = a.str("api_key")
	}
	return ss
}

// share creates a share as who and returns its id and token.
func (ss *shareStation) share(who, node string, days any) (id, token string) {
	ss.t.Helper()
	body := map[string]any{"node": node}
	if days != nil {
		body["days"] = days
	}
	a := ss.call("POST", "/v1/forests/"+forestID+"/share", ss.keys[who], body)
	require.Equal(ss.t, http.StatusOK, a.status, a.body)
	url := a.str("url")
	require.True(ss.t, strings.HasPrefix(url, "/s/"), url)
	return a.str("id"), strings.TrimPrefix(url, "/s/")
}

// get is an unauthenticated GET with headers.
func (ts *testStation) get(path string, headers map[string]string) (reply, http.Header) {
	ts.t.Helper()
	req, err := http.NewRequest("GET", ts.url+path, nil)
	require.NoError(ts.t, err)
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(ts.t, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	a := reply{status: res.StatusCode, body: string(data)}
	_ = json.Unmarshal(data, &a.json)
	return a, res.Header
}

// accepts are the Accept headers a link is opened with.
var accepts = map[string]string{"json": "application/json", "html": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"}

func TestShareCreateValidation(t *testing.T) {
	ss := newShareStation(t, nil)
	path := "/v1/forests/" + forestID + "/share"
	ana := ss.keys["ana"]
	missing := ss.call("POST", path, ana, map[string]any{"node": "concepts/no-such-node"})
	cases := []struct {
		name   string
		key    string
		path   string
		body   any
		status int
		want   string // the body, exactly, when it starts with {; else a substring
	}{
		{"no node", ana, path, map[string]any{}, 400, `{"error":{"code":"E_SCHEMA","message":"share requires a 'node' (string)"}}`},
		{"empty node", ana, path, map[string]any{"node": ""}, 400, "share requires a 'node' (string)"},
		{"node not a string", ana, path, map[string]any{"node": 5}, 400, "share requires a 'node' (string)"},
		{"node null", ana, path, map[string]any{"node": nil}, 400, "share requires a 'node' (string)"},
		{"days true", ana, path, map[string]any{"node": "concepts/tide", "days": true}, 400,
			`{"error":{"code":"E_SCHEMA","message":"days must be an integer 1..90","hint":"A share always expires (J.17 rule 4)."}}`},
		{"days false", ana, path, map[string]any{"node": "concepts/tide", "days": false}, 400, "days must be an integer 1..90"},
		{"days 0", ana, path, map[string]any{"node": "concepts/tide", "days": 0}, 400, "days must be an integer 1..90"},
		{"days 91", ana, path, map[string]any{"node": "concepts/tide", "days": 91}, 400, "days must be an integer 1..90"},
		{"days 7.5", ana, path, map[string]any{"node": "concepts/tide", "days": 7.5}, 400, "days must be an integer 1..90"},
		{"days string", ana, path, map[string]any{"node": "concepts/tide", "days": "7"}, 400, "days must be an integer 1..90"},
		{"days negative", ana, path, map[string]any{"node": "concepts/tide", "days": -3}, 400, "days must be an integer 1..90"},
		{"absent node", ana, path, map[string]any{"node": "concepts/no-such-node"}, 404,
			`{"error":{"code":"E_NOT_FOUND","message":"node not found: concepts/no-such-node","hint":"Use locate() to find entry points."}}`},
		{"out of scope is absent", ss.keys["lim"], path, map[string]any{"node": "concepts/no-such-node"}, 404, missing.body},
		{"no read", ss.keys["nor"], path, map[string]any{"node": "concepts/tide"}, 403, "'share' requires the 'read' capability"},
		{"anonymous", "", path, map[string]any{"node": "concepts/tide"}, 401, "missing or invalid API key"},
		{"bad JSON", ana, path, "not an object", 400, "invalid JSON body"},
	}
	for _, c := range cases {
		a := ss.call("POST", c.path, c.key, c.body)
		assert.Equal(t, c.status, a.status, "%s: %s", c.name, a.body)
		if strings.HasPrefix(c.want, "{") {
			assert.Equal(t, c.want, strings.TrimSpace(a.body), c.name)
		} else {
			assert.Contains(t, a.body, c.want, c.name)
		}
	}
	hidden := ss.call("POST", path, ss.keys["lim"], map[string]any{"node": "people/lucia-andrade"})
	assert.Equal(t, strings.ReplaceAll(missing.body, "concepts/no-such-node", "people/lucia-andrade"), hidden.body,
		"a node out of the issuer's scope is an absent one, byte for byte")
	unknown := ss.call("POST", "/v1/forests/nowhere/share", ana, map[string]any{"node": "concepts/tide"})
	look := ss.call("POST", "/v1/forests/nowhere/look", ana, map[string]any{"id": "concepts/tide"})
	assert.Equal(t, http.StatusNotFound, unknown.status)
	assert.Equal(t, look.body, unknown.body, "an unknown forest answers as the REST surface's")
	ownerUnknown := ss.call("GET", "/v1/forests/nowhere/shares", ss.owner, nil)
	assert.Equal(t, http.StatusNotFound, ownerUnknown.status, "the owner too: no such forest")

	// Defaults and bounds: 7 days unless told, 90 at most.
	for _, c := range []struct {
		days any
		want time.Duration
	}{{nil, 7 * 24 * time.Hour}, {1, 24 * time.Hour}, {90, 90 * 24 * time.Hour}, {30.0, 30 * 24 * time.Hour}} {
		body := map[string]any{"node": "concepts/tide"}
		if c.days != nil {
			body["days"] = c.days
		}
		a := ss.call("POST", path, ana, body)
		require.Equal(t, http.StatusOK, a.status, a.body)
		assert.Equal(t, ss.clock.now().Add(c.want).Format(time.RFC3339), a.str("expires"), "days %v", c.days)
		assert.Regexp(t, `^sh_[0-9a-f]{12}$`, a.str("id"))
		assert.Regexp(t, `^/s/[0-9a-f]{32}$`, a.str("url"))
	}
}

func TestShareServes(t *testing.T) {
	ss := newShareStation(t, nil)
	id, token := ss.share("ana", "concepts/tide", nil)
	a, _ := ss.get("/v1/share/"+token, nil)
	require.Equal(t, http.StatusOK, a.status, a.body)
	assert.NotEmpty(t, a.str("title"))
	md := a.str("markdown")
	assert.NotEmpty(t, md)
	assert.False(t, strings.HasPrefix(md, "---"), "the body only, no frontmatter")
	assert.NotContains(t, md, "\ntype: ")
	assert.Equal(t, ss.clock.now().Add(7*24*time.Hour).Format(time.RFC3339), a.str("expires"))
	assert.IsType(t, []any{}, a.json["outline"])
	assert.ElementsMatch(t, []string{"title", "markdown", "outline", "expires"}, keysOf(a.json), "one room: nothing else")

	for name, accept := range map[string]string{"none": "", "json": accepts["json"], "markdown": "text/markdown"} {
		b, h := ss.get("/s/"+token, map[string]string{"Accept": accept})
		assert.Equal(t, a.body, b.body, "/s/ without text/html is /v1/share's answer (%s)", name)
		assert.Equal(t, "no-store", h.Get("Cache-Control"))
	}
	page, h := ss.get("/s/"+token, map[string]string{"Accept": accepts["html"]})
	require.Equal(t, http.StatusOK, page.status, page.body)
	assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	assert.Equal(t, studio.ContentSecurityPolicy(), h.Get("Content-Security-Policy"), "the Station's CSP")
	assert.Contains(t, page.body, "<title>"+a.str("title")+"</title>")
	assert.Contains(t, page.body, "<pre>")
	assert.NotContains(t, page.body, "<script")
	for _, sec := range a.json["outline"].([]any) {
		assert.Contains(t, page.body, "<li>"+sec.(string)+"</li>")
	}

	// The serve is audited on the issuer's name, with the markdown's size.
	require.NoError(t, ss.s.audit.Flush(context.Background()))
	rows, err := ss.s.audit.Query(context.Background(), audit.Scope{Owner: true}, audit.Filter{})
	require.NoError(t, err)
	data, _ := json.Marshal(rows)
	var page2 struct {
		Entries []struct {
			Principal, Forest, Primitive string
			Args                         map[string]any
			Size                         int
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(data, &page2))
	served, created := 0, 0
	for _, e := range page2.Entries {
		switch e.Primitive {
		case "share":
			served++
			assert.Equal(t, "ana", e.Principal)
			assert.Equal(t, forestID, e.Forest)
			assert.Equal(t, map[string]any{"share": id}, e.Args)
			assert.Equal(t, len(md), e.Size)
		case "share.created":
			created++
			assert.Equal(t, map[string]any{"share": id, "node": "concepts/tide", "days": "7"}, e.Args)
		}
	}
	assert.Equal(t, 5, served, "/v1/share once, /s/ three times as data and once as a page")
	assert.Equal(t, 1, created)
}

func keysOf(m map[string]any) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestShareDeadLinksAnswerAlike: revoked, expired, suspended,
// unreadable, out of scope since and never-existed links answer one
// byte-identical 404 on both paths under any Accept (F.86/F.110).
func TestShareDeadLinksAnswerAlike(t *testing.T) {
	ss := newShareStation(t, nil)
	_, expired := ss.share("ana", "concepts/tide", 1)
	ss.clock.add(24 * time.Hour)
	revokedID, revoked := ss.share("ana", "concepts/tide", nil)
	_, suspended := ss.share("sus", "concepts/tide", nil)
	adm := ss.keys["adm"] // the owner's session ended with the day
	plant := ss.call("POST", "/v1/forests/"+forestID+"/plant", adm, map[string]any{"node": map[string]any{
		"id": "concepts/ephemeral", "type": "concept", "title": "Ephemeral", "summary": "Soon unreadable.", "parent": "concepts/_index"}})
	require.Equal(t, http.StatusOK, plant.status, plant.body)
	_, unreadable := ss.share("ana", "concepts/ephemeral", nil)
	_, narrowed := ss.share("rui", "people/lucia-andrade", nil)
	_, live := ss.share("ana", "concepts/tide", nil)

	for _, tok := range []string{revoked, suspended, unreadable, narrowed} {
		a, _ := ss.get("/v1/share/"+tok, nil)
		require.Equal(t, http.StatusOK, a.status, "alive before: %s", a.body)
	}
	del := ss.call("DELETE", "/v1/forests/"+forestID+"/shares/"+revokedID, ss.keys["ana"], nil)
	require.Equal(t, http.StatusOK, del.status, del.body)
	assert.JSONEq(t, `{"id":"`+revokedID+`","revoked":true}`, del.body)
	out := ss.call("POST", "/v1/admin/people", adm, map[string]any{"principal": "sus", "revoke_access": forestID})
	require.Equal(t, http.StatusOK, out.status, out.body)
	require.NoError(t, os.Remove(filepath.Join(ss.root, forestID, "concepts", "ephemeral.md")))
	narrow := ss.call("POST", "/v1/admin/grant", adm, map[string]any{"principal": "rui", "forest": forestID,
		"caps": []string{"read"}, "allow": []string{"concepts/"}})
	require.Equal(t, http.StatusOK, narrow.status, narrow.body)

	want := `{"error":{"code":"E_NOT_FOUND","message":"share not found","hint":"The link may have expired or been revoked."}}`
	dead := map[string]string{"expired": expired, "revoked": revoked, "suspended": suspended, "unreadable": unreadable,
		"out of scope since": narrowed, "never existed": "0123456789abcdef0123456789abcdef", "garbage": "x"}
	var ref string
	for state, tok := range dead {
		for _, p := range []string{"/v1/share/", "/s/"} {
			for an, accept := range accepts {
				// Every answer counts against the window: reopen it.
				ss.s.shares.window.clear("share\x00127.0.0.1")
				a, _ := ss.get(p+tok, map[string]string{"Accept": accept})
				assert.Equal(t, http.StatusNotFound, a.status, "%s %s %s", state, p, an)
				assert.Equal(t, want, strings.TrimSpace(a.body), "%s %s %s", state, p, an)
				if ref == "" {
					ref = a.body
				}
				assert.Equal(t, ref, a.body, "byte for byte: %s %s %s", state, p, an)
			}
		}
	}
	ss.s.shares.window.clear("share\x00127.0.0.1")
	a, _ := ss.get("/s/"+live, map[string]string{"Accept": accepts["html"]})
	assert.Equal(t, http.StatusOK, a.status, "a live link beside them still opens")

	// A regrant resumes what a lapse suspended: the share was never deleted.
	back := ss.call("POST", "/v1/admin/grant", adm, map[string]any{"principal": "sus", "forest": forestID, "caps": []string{"read"}})
	require.Equal(t, http.StatusOK, back.status, back.body)
	a, _ = ss.get("/v1/share/"+suspended, nil)
	assert.Equal(t, http.StatusOK, a.status, a.body)
}

// TestShareFollowsMove: a moved node is followed when its destination is
// in the issuer's scope (decision 10), and is dead otherwise.
func TestShareFollowsMove(t *testing.T) {
	ss := newShareStation(t, nil)
	_, whole := ss.share("ana", "concepts/swell", nil)
	_, branch := ss.share("lim", "concepts/swell", nil)
	before, _ := ss.get("/v1/share/"+whole, nil)
	require.Equal(t, http.StatusOK, before.status, before.body)
	mv := ss.call("POST", "/v1/forests/"+forestID+"/transplant", ss.owner, map[string]any{"id": "concepts/swell", "new_id": "people/swell"})
	require.Equal(t, http.StatusOK, mv.status, mv.body)
	after, _ := ss.get("/v1/share/"+whole, nil)
	require.Equal(t, http.StatusOK, after.status, after.body)
	assert.Equal(t, before.str("title"), after.str("title"))
	gone, _ := ss.get("/v1/share/"+branch, nil)
	assert.Equal(t, http.StatusNotFound, gone.status, "moved out of lim's scope")
	assert.Contains(t, gone.body, "share not found")
}

func TestShareNeverShowsToken(t *testing.T) {
	ss := newShareStation(t, nil)
	id, token := ss.share("ana", "concepts/tide", nil)
	seen := []string{}
	for _, who := range []string{"ana", "adm"} {
		seen = append(seen, ss.call("GET", "/v1/forests/"+forestID+"/shares", ss.keys[who], nil).body)
	}
	seen = append(seen, ss.call("GET", "/v1/forests/"+forestID+"/shares", ss.owner, nil).body)
	a, _ := ss.get("/v1/share/"+token, nil)
	seen = append(seen, a.body)
	a, _ = ss.get("/s/"+token, map[string]string{"Accept": accepts["html"]})
	seen = append(seen, a.body)
	seen = append(seen, ss.call("DELETE", "/v1/forests/"+forestID+"/shares/"+id, ss.keys["ana"], nil).body)
	require.NoError(t, ss.s.audit.Flush(context.Background()))
	seen = append(seen, ss.call("GET", "/v1/admin/audit?limit=500", ss.owner, nil).body)
	seen = append(seen, ss.call("GET", "/v1/openapi.json", "", nil).body)
	for i, body := range seen {
		assert.NotContains(t, body, token, "answer %d", i)
	}
	assert.Contains(t, seen[0], id, "the listing names the share by id")
	files, _ := filepath.Glob(ss.registry + "*")
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotContains(t, string(data), token, filepath.Base(f))
	}
}

// TestShareVisibility: who lists and who revokes whose shares.
func TestShareVisibility(t *testing.T) {
	ss := newShareStation(t, nil)
	anaID, _ := ss.share("ana", "concepts/tide", nil)
	ruiID, _ := ss.share("rui", "people/lucia-andrade", nil)
	sadmID, _ := ss.share("sadm", "concepts/tide", nil)
	list := func(who string) []string {
		a := ss.call("GET", "/v1/forests/"+forestID+"/shares", ss.keys[who], nil)
		require.Equal(t, http.StatusOK, a.status, "%s: %s", who, a.body)
		var out struct {
			Shares []struct{ ID, Forest, Node, Issuer, Created, Expires string } `json:"shares"`
		}
		require.NoError(t, json.Unmarshal([]byte(a.body), &out))
		ids := []string{}
		for _, s := range out.Shares {
			assert.Equal(t, forestID, s.Forest)
			assert.NotEmpty(t, s.Created)
			ids = append(ids, s.ID)
		}
		return ids
	}
	for _, c := range []struct {
		who  string
		sees []string
	}{
		{"ana", []string{anaID}},
		{"rui", []string{ruiID}},
		{"lim", []string{}},
		{"sadm", []string{sadmID}}, // an admin of one branch is no unrestricted admin
		{"adm", []string{anaID, ruiID, sadmID}},
	} {
		assert.ElementsMatch(t, c.sees, list(c.who), c.who)
	}
	owner := ss.call("GET", "/v1/forests/"+forestID+"/shares", ss.owner, nil)
	for _, id := range []string{anaID, ruiID, sadmID} {
		assert.Contains(t, owner.body, id, "the owner administers every forest whole")
	}
	assert.Equal(t, http.StatusForbidden, ss.call("GET", "/v1/forests/"+forestID+"/shares", ss.keys["nor"], nil).status)

	unknown := ss.call("DELETE", "/v1/forests/"+forestID+"/shares/sh_000000000000", ss.keys["ana"], nil)
	require.Equal(t, http.StatusNotFound, unknown.status)
	assert.Equal(t, `{"error":{"code":"E_NOT_FOUND","message":"share not found","hint":"The link may have expired or been revoked."}}`,
		strings.TrimSpace(unknown.body))
	for _, c := range []struct {
		who, id string
		ok      bool
	}{
		{"rui", anaID, false},  // another reader
		{"sadm", anaID, false}, // a scoped admin
		{"lim", ruiID, false},
		{"ana", anaID, true},  // the issuer
		{"ana", anaID, false}, // already revoked: gone
		{"adm", ruiID, true},  // an unrestricted admin
	} {
		a := ss.call("DELETE", "/v1/forests/"+forestID+"/shares/"+c.id, ss.keys[c.who], nil)
		if c.ok {
			assert.Equal(t, http.StatusOK, a.status, "%s revokes %s: %s", c.who, c.id, a.body)
			continue
		}
		assert.Equal(t, unknown.body, a.body, "%s may not see %s: the share not-found, byte for byte", c.who, c.id)
	}
	assert.ElementsMatch(t, []string{sadmID}, list("adm"))
	require.NoError(t, ss.s.audit.Flush(context.Background()))
	trail := ss.call("GET", "/v1/admin/audit?limit=500&primitive=share.revoked", ss.owner, nil)
	assert.Contains(t, trail.body, `"share":"`+anaID+`"`)
	assert.Contains(t, trail.body, `"node":"people/lucia-andrade"`)
}

// TestShareRateLimit: 5 failures in 60 s from one client host close the
// share window for that host alone, valid links included, with the
// doors' 429; the password doors keep their own window.
func TestShareRateLimit(t *testing.T) {
	ss := newShareStation(t, func(o *Options) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
	_, token := ss.share("ana", "concepts/tide", nil)
	from := func(host string) map[string]string { return map[string]string{"X-Forwarded-For": host} }
	for i := range 5 {
		a, _ := ss.get("/v1/share/guess"+string(rune('a'+i)), from("203.0.113.7"))
		require.Equal(t, http.StatusNotFound, a.status)
	}
	for _, p := range []string{"/v1/share/", "/s/"} {
		a, _ := ss.get(p+token, from("203.0.113.7"))
		assert.Equal(t, http.StatusTooManyRequests, a.status, p)
		assert.Equal(t, `{"error":{"code":"E_FORBIDDEN","message":"too many attempts; try again shortly"}}`, strings.TrimSpace(a.body))
	}
	other, _ := ss.get("/v1/share/"+token, from("198.51.100.2"))
	assert.Equal(t, http.StatusOK, other.status, "another host's window is its own")
	login := ss.call("POST", "/v1/auth/login", "", map[string]string{"username": "olga", "password": "a long owner passphrase"})
	assert.Equal(t, http.StatusOK, login.status, "the doors keep their own window")
	ss.clock.add(61 * time.Second)
	again, _ := ss.get("/v1/share/"+token, from("203.0.113.7"))
	assert.Equal(t, http.StatusOK, again.status, "the window reopens after 60 s")
}

// TestSharePageBehindHostGuard: /s/ rides the REST surface, so its Host
// check applies as on every /v1 route.
func TestSharePageBehindHostGuard(t *testing.T) {
	ss := newShareStation(t, func(o *Options) { o.AllowedHosts = nil })
	_, token := ss.share("ana", "concepts/tide", nil)
	ok, _ := ss.get("/s/"+token, map[string]string{"Host": "localhost", "Accept": accepts["html"]})
	assert.Equal(t, http.StatusOK, ok.status, ok.body)
	for _, p := range []string{"/s/", "/v1/share/"} {
		a, _ := ss.get(p+token, map[string]string{"Host": "evil.example", "Accept": accepts["html"]})
		assert.Equal(t, http.StatusMisdirectedRequest, a.status, p)
		assert.Contains(t, a.body, "E_HOST_NOT_ALLOWED")
	}
}

// TestShareResolvesCachedBody: a node whose body lives in the derived
// cache shows that body (G.7); one whose body is nowhere is a dead link.
func TestShareResolvesCachedBody(t *testing.T) {
	ss := newShareStation(t, nil)
	dir := filepath.Join(ss.root, forestID)
	for id, front := range map[string]string{
		"library/cached-guide": "type: document\ntitle: Cached guide\nsummary: Body in the cache.\ncontent: cached\n",
		"library/lost-guide":   "type: document\ntitle: Lost guide\nsummary: Body nowhere.\ncontent: cached\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(id)+".md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\n"+front+"---\n\nstub\n"), 0o644))
	}
	cached := filepath.Join(dir, "_derived", "bodies", "library", "cached-guide.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(cached), 0o755))
	require.NoError(t, os.WriteFile(cached, []byte("# Guide\n\n## Part one\n\nFull text.\n"), 0o644))

	_, token := ss.share("ana", "library/cached-guide", nil)
	a, _ := ss.get("/v1/share/"+token, nil)
	require.Equal(t, http.StatusOK, a.status, a.body)
	assert.Equal(t, "Cached guide", a.str("title"))
	assert.Contains(t, a.str("markdown"), "Full text.")
	assert.NotContains(t, a.str("markdown"), "stub")
	assert.Equal(t, []any{"Part one"}, a.json["outline"])

	_, lost := ss.share("ana", "library/lost-guide", nil)
	b, _ := ss.get("/v1/share/"+lost, nil)
	assert.Equal(t, http.StatusNotFound, b.status)
	assert.Contains(t, b.body, `"share not found"`)
}
