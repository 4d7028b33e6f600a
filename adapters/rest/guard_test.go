// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// route is one entry of the router (routes.go), with the call a
// legitimate local client makes on it and what that call answers.
type route struct {
	name, method, path, body string
	status                   int
	code                     vine.Code // of an allowed call that the route itself refuses
	harm                     string    // what an attacker would send, if not body
}

const forestPath = "/v1/forests/" + forestID

// primitiveArgs are harmless arguments per served name: reads, a dry
// run, and writes aimed at what refuses them, so allowed calls leave
// nothing in flight.
var primitiveArgs = map[string]struct {
	body   string
	status int
	code   vine.Code
}{
	"answer":     {`{"question":"what are the storm alert thresholds?"}`, 200, ""}, // when a test registered it
	"calendar":   {`{}`, 200, ""},
	"coverage":   {`{}`, 200, ""},
	"graft":      {`{"id":"concepts/no-such","patch":{"set_frontmatter":{"title":"X"}}}`, 404, vine.ENotFound},
	"harvest":    {`{"query":"tide"}`, 200, ""},
	"history":    {`{"id":"concepts/tide"}`, 200, ""},
	"ingest":     {`{"files":[{"name":"guard.md","text":"# Guard\n\nA note."}],"wait":true}`, 200, ""},
	"locate":     {`{"query":"tide"}`, 200, ""},
	"look":       {`{"id":"concepts/tide"}`, 200, ""},
	"move":       {`{"id":"concepts/tide"}`, 200, ""},
	"pick":       {`{"id":"concepts/tide"}`, 200, ""},
	"plant":      {`{"node":{"id":"concepts/x","type":"concept","title":"X","summary":"An x.","parent":"concepts/_index"},"dry_run":true}`, 200, ""},
	"prune":      {`{"id":"concepts/tide"}`, 409, vine.EAnchored},
	"query":      {`{"id":"finance/ledger-2026","sql":"DELETE FROM ledger"}`, 403, vine.EQueryForbidden},
	"scan":       {`{"parent_id":"concepts/_index"}`, 200, ""},
	"sniff":      {`{"terms":"tide"}`, 200, ""},
	"tend":       {`{"id":"concepts/no-such","sql":"DELETE FROM x"}`, 404, vine.ENotFound},
	"transplant": {`{"id":"concepts/no-such","new_id":"concepts/elsewhere"}`, 404, vine.ENotFound},
}

// harm are the writes an attacker would want through: were the guard
// missing, each would change the forest and Unchanged would say so.
var harm = map[string]string{
	"plant":  `{"node":{"id":"concepts/planted","type":"concept","title":"P","summary":"Planted.","parent":"concepts/_index"}}`,
	"graft":  `{"id":"concepts/tide","patch":{"set_frontmatter":{"title":"Owned"}}}`,
	"ingest": `{"files":[{"name":"owned.md","text":"# Owned"}],"wait":true}`,
}

// everyRoute enumerates the router: every literal route, one POST per
// served name (the signature table but view and close_session, plus
// ingest, as the router serves them), and a path no route serves.
func everyRoute(t *testing.T) []route {
	t.Helper()
	rs := []route{
		{"health", "GET", "/v1/health", "", 200, "", ""},
		{"me", "GET", "/v1/me", "", 200, "", ""},
		{"forests", "GET", "/v1/forests", "", 200, "", ""},
		{"payload", "GET", forestPath + "/payload/media/harbour-map", "", 200, "", ""},
		{"export", "GET", forestPath + "/export/concepts/tide", "", 200, "", ""},
		{"jobs", "GET", forestPath + "/jobs", "", 200, "", ""},
		{"job", "GET", forestPath + "/jobs/no-such", "", 404, vine.ENotFound, ""},
		{"cancel", "POST", forestPath + "/jobs/no-such/cancel", "", 404, vine.ENotFound, ""},
		{"reindex", "POST", "/v1/admin/reindex", `{"forest":"` + forestID + `"}`, 200, "", ""},
		{"no endpoint", "GET", "/v1/nowhere", "", 404, vine.ENotFound, ""},
	}
	names := []string{"ingest"}
	for _, sig := range vine.Signatures() {
		if sig.Name != "view" && sig.Name != "close_session" {
			names = append(names, sig.Name)
		}
	}
	for _, name := range names {
		a, ok := primitiveArgs[name]
		require.True(t, ok, "served name %s has no arguments in this suite: add it", name)
		rs = append(rs, route{name, "POST", forestPath + "/" + name, a.body, a.status, a.code, harm[name]})
	}
	return rs
}

// attack is one way a request reaches the server from where it should
// not, or without declaring JSON.
type attack struct {
	name    string
	host    string // "" = the local Host
	origin  string
	ctype   string
	body    string // "" = the route's own JSON
	asPost  bool   // sent as POST whatever the route's method (a form post)
	status  int
	code    vine.Code
	message string
}

const multipartAttack = "multipart/form-data; boundary=b"

var attacks = []attack{
	{name: "foreign Host", host: "evil.example", status: 421, code: "E_HOST_NOT_ALLOWED", message: `host not allowed: "evil.example"`},
	{name: "foreign Origin", origin: "http://evil.example", status: 403, code: vine.EForbidden, message: `origin not allowed: "http://evil.example"`},
	{name: "text/plain POST", ctype: "text/plain", asPost: true, status: 415, code: vine.ESchema,
		message: `the body's Content-Type is "text/plain"; expected application/json`},
	{name: "form POST", ctype: "application/x-www-form-urlencoded", body: "node=x", asPost: true, status: 415, code: vine.ESchema,
		message: `"application/x-www-form-urlencoded"; expected application/json`},
	{name: "multipart POST", ctype: multipartAttack, body: "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b--\r\n",
		asPost: true, status: 415, code: vine.ESchema, message: `"multipart/form-data; boundary=b"; expected application/json`},
	{name: "empty POST from a page", origin: "http://" + localHost, ctype: "-", body: "-", asPost: true, status: 415, code: vine.ESchema,
		message: "no Content-Type was sent; expected application/json"},
}

// request builds route rt as attack a sends it. A POST declares JSON
// unless the attack says otherwise ("-": no Content-Type at all).
func (a attack) request(rt route, key string) *http.Request {
	method, body, ctype := rt.method, rt.body, a.ctype
	if rt.harm != "" && a.name != "" {
		body = rt.harm
	}
	if a.asPost {
		method = http.MethodPost
	}
	switch a.body {
	case "":
	case "-":
		body = ""
	default:
		body = a.body
	}
	if ctype == "" && method == http.MethodPost {
		ctype = "application/json"
	}
	r := httpRequest(method, rt.path)
	r.Body, r.ContentLength = ioBody(body), int64(len(body))
	if ctype != "" && ctype != "-" {
		r.Header.Set("Content-Type", ctype)
	}
	if a.host != "" {
		r.Host = a.host
	}
	if a.origin != "" {
		r.Header.Set("Origin", a.origin)
	}
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	return r
}

// TestGuardOnEveryRoute sends every attack to every route, with keys and
// in --open mode: each is refused with its status and code before any
// route runs (Server-Timing with no engine time: before authentication), the refusal
// carries no forest data, and the forest is byte-identical after it.
// Health alone answers a foreign Host or Origin, as spec 08 §5 asks.
// Then the same routes, called as an allowed page calls them, answer
// what they always do.
func TestGuardOnEveryRoute(t *testing.T) {
	for _, mode := range []struct {
		name string
		key  string
		edit func(*rest.Options)
	}{
		{"keys", keyFull, nil},
		{"open", "", func(o *rest.Options) { o.Keys = nil }},
	} {
		t.Run(mode.name, func(t *testing.T) {
			st := newStation(t, mode.edit)
			routes := everyRoute(t)
			for _, rt := range routes {
				for _, a := range attacks {
					t.Run(rt.name+"/"+a.name, func(t *testing.T) { refused(t, st, rt, a, mode.key) })
				}
			}
			for _, rt := range routes {
				t.Run(rt.name+"/allowed page", func(t *testing.T) { allowed(t, st, rt, mode.key) })
			}
		})
	}
}

func refused(t *testing.T, st *station, rt route, a attack, key string) {
	t.Helper()
	if rt.name == "health" && !a.asPost {
		r := serve(st, a.request(rt, key))
		require.Equal(t, http.StatusOK, r.status, "health answers any Host and Origin: "+r.body)
		assert.Contains(t, r.body, `"status":"ok"`)
		assert.NotContains(t, r.body, forestID, "counts, never ids")
		return
	}
	if a.ctype == multipartAttack && strings.HasSuffix(rt.path, "/ingest") {
		// A form upload with a key header is ingest's multipart upload
		// (TestMultipartUpload): no page can add the header without a
		// preflight. The forgery is the form without one, as a page sends it.
		key = ""
	}
	var r reply
	testforest.Unchanged(t, st.dir, func() { r = serve(st, a.request(rt, key)) })
	e := envelope(t, r, a.status, a.code)
	assert.Contains(t, e["message"], a.message)
	assert.Regexp(t, noEngineTiming, r.header.Get("Server-Timing"), "refused before authentication: no engine time")
	for _, data := range []string{forestID, "concepts/", "Tide", "harbour", "ledger"} {
		assert.NotContains(t, r.body, data, "a refusal carries no forest data")
	}
}

func allowed(t *testing.T, st *station, rt route, key string) {
	t.Helper()
	page := attack{origin: "http://" + localHost}
	r := serve(st, page.request(rt, key))
	require.Equal(t, rt.status, r.status, r.body)
	if rt.code != "" {
		envelope(t, r, rt.status, rt.code)
		return
	}
	assert.NotContains(t, r.body, `"error":{"code"`, r.body)
}

// TestGuardBodyTypeHoldsWithWildcard: "*" turns the Host and Origin
// checks off, never the body type, which is then what stops a form on
// any page from planting a node.
func TestGuardBodyTypeHoldsWithWildcard(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.AllowedHosts = []string{"*"}; o.Keys = nil })
	plant := `{"node":{"id":"concepts/planted","type":"concept","title":"P","summary":"Planted.","parent":"concepts/_index"}}`
	for _, ctype := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"} {
		testforest.Unchanged(t, st.dir, func() {
			a := attack{host: "evil.example", origin: "http://evil.example", ctype: ctype, body: plant}
			envelope(t, serve(st, a.request(route{method: "POST", path: forestPath + "/plant"}, "")), 415, vine.ESchema)
		})
	}
	a := attack{host: "evil.example", origin: "http://evil.example"}
	r := serve(st, a.request(route{method: "POST", path: forestPath + "/plant", body: plant}, ""))
	assert.Equal(t, http.StatusOK, r.status, `"*" serves any Host and Origin that declares JSON: `+r.body)
}

// TestGuardHostList: the allow-list is the option's, exact with its
// port; nil serves local names on any port; an empty list serves only
// health.
func TestGuardHostList(t *testing.T) {
	tests := []struct {
		name  string
		hosts []string
		host  string
		want  int
	}{
		{"default, localhost any port", nil, "localhost:1234", 200},
		{"default, loopback", nil, "127.0.0.1", 200},
		{"default, IPv6 loopback", nil, "[::1]:8800", 200},
		{"default, a name", nil, "kb.example.org", 421},
		{"listed", []string{"kb.example.org"}, "KB.example.org", 200},
		{"listed without the port sent", []string{"kb.example.org"}, "kb.example.org:8443", 421},
		{"not listed", []string{"kb.example.org"}, "localhost", 421},
		{"empty list", []string{}, "localhost", 421},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStation(t, func(o *rest.Options) { o.AllowedHosts = tt.hosts })
			r := httpRequest(http.MethodGet, "/v1/me")
			r.Host = tt.host
			r.Header.Set("Authorization", "Bearer "+keyFull)
			got := serve(st, r)
			assert.Equal(t, tt.want, got.status, got.body)
			if tt.want == 421 {
				assert.NotContains(t, got.body, "kb.example.org\"", "the list is never revealed")
				health := httpRequest(http.MethodGet, "/v1/health")
				health.Host = tt.host
				assert.Equal(t, http.StatusOK, serve(st, health).status, "health still answers")
			}
		})
	}
}

// TestGuardEmptyPostWithoutType: curl -X POST with no body still works;
// the served names are what everyRoute enumerates.
func TestGuardEmptyPostWithoutType(t *testing.T) {
	st := newStation(t, nil)
	r := st.do(http.MethodPost, forestPath+"/coverage", keyFull, "")
	ok(t, r)
	e := envelope(t, st.post(keyFull, "bogus", `{}`), http.StatusNotFound, vine.ENotFound)
	served := strings.Split(strings.TrimPrefix(e["hint"].(string), "served: "), ", ")
	var listed []string
	for _, rt := range everyRoute(t) {
		if rt.method == "POST" && strings.HasPrefix(rt.path, forestPath+"/") && !strings.Contains(rt.path, "/jobs/") {
			listed = append(listed, strings.TrimPrefix(rt.path, forestPath+"/"))
		}
	}
	slices.Sort(listed)
	assert.Equal(t, served, listed, "the suite covers every name the router serves")
}
