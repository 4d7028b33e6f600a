// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"github.com/monkeyllm/vine/internal/testforest"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
)

func TestHealthNeedsNoKeyAndNamesNoForest(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.MCP = hostList{"localhost:8800": true} })
	foreign := httpRequest(http.MethodGet, "/v1/health")
	foreign.Host = "evil.example"
	r := serve(st, foreign)
	require.Equal(t, http.StatusOK, r.status, "health answers a Host the guard refuses: "+r.body)
	assert.Regexp(t, noEngineTiming, r.header.Get("Server-Timing"), "health runs no engine call")
	assert.JSONEq(t, `{"status":"ok","mode":"single","writable":true,"version":"9.9.9-test",
		"forests":{"served":1,"locked":0},"mcp":{"enabled":true,"host_allowed":false},
		"concurrency":{"readers":2,"model":8}}`, r.body)
	assert.NotContains(t, r.body, forestID, "counts, never ids")
	assert.True(t, strings.HasPrefix(r.body, `{"status":`), "wire order")

	req := httpRequest(http.MethodGet, "/v1/health")
	req.Host = "localhost:8800"
	assert.Contains(t, serve(st, req).body, `"mcp":{"enabled":true,"host_allowed":true}`, "this request's Host")

	single := newStation(t, func(o *rest.Options) { o.OpenReader, o.ReadOnly = nil, true })
	assert.Contains(t, single.do(http.MethodGet, "/v1/health", "", "").body,
		`"writable":false,"version":"9.9.9-test","forests":{"served":1,"locked":0},"mcp":{"enabled":false},"concurrency":{"readers":0,`)
}

func TestKeyIsRequired(t *testing.T) {
	st := newStation(t, nil)
	for _, target := range []string{"/v1/forests", "/v1/me", "/v1/forests/mare-alta/payload/media/harbour-map",
		"/v1/forests/mare-alta/jobs"} {
		for _, key := range []string{"", "mk_wrong"} {
			r := st.do(http.MethodGet, target, key, "")
			e := envelope(t, r, http.StatusUnauthorized, vine.EForbidden)
			assert.Equal(t, "missing or invalid API key", e["message"])
			assert.Contains(t, e["hint"], "Authorization: Bearer <key>")
			assert.NotEmpty(t, r.header.Get("WWW-Authenticate"))
			assert.Regexp(t, noEngineTiming, r.header.Get("Server-Timing"), "no engine time before authentication")
		}
	}
	testforest.Unchanged(t, st.dir, func() {
		envelope(t, st.post("", "plant", `{"node":{"id":"concepts/x","type":"concept","title":"X","summary":"An x.","parent":"concepts/_index"}}`),
			http.StatusUnauthorized, vine.EForbidden)
	})
	r := httpRequest(http.MethodPost, "/v1/forests/mare-alta/look")
	r.Header.Set("X-API-Key", keyRead)
	r.Body = ioBody(`{"id":"concepts/tide"}`)
	assert.Equal(t, http.StatusOK, serve(st, r).status, "X-API-Key is a key too")
}

func TestOpenServesTheLocalOwner(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.Keys = nil })
	me := ok(t, st.do(http.MethodGet, "/v1/me", "", ""))
	assert.Equal(t, "local", me["principal"])
	assert.Equal(t, true, me["admin"])
	assert.Equal(t, true, me["owner"])
	ok(t, st.post("", "look", `{"id":"concepts/tide"}`))
}

func TestForestsListing(t *testing.T) {
	st := newStation(t, nil)
	r := st.do(http.MethodGet, "/v1/forests", keyScoped, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, `{"forests":[{"id":"mare-alta","caps":["read","write","query","tend","ingest"],`+
		`"roots":["concepts/_index","operations/_index","media/_index","finance/_index","projects/_index"],"hybrid":false,"active":false}],`+
		`"mode":"single","station":"9.9.9-test"}`, r.body)
	assert.Contains(t, st.do(http.MethodGet, "/v1/forests", keyMasked, "").body, `"caps":["read"],"roots":["_index"]`,
		"the mask applies to the listing")
	assert.JSONEq(t, `{"forests":[],"mode":"single","station":"9.9.9-test"}`, st.do(http.MethodGet, "/v1/forests", keyOther, "").body,
		"only forests the key may use")
}

func TestMe(t *testing.T) {
	st := newStation(t, nil)
	assert.Equal(t, `{"principal":"svc-scoped","grants":[{"forest":"mare-alta","caps":["read","write","query","tend","ingest"],`+
		`"allow":["concepts/","operations/","media/","finance/","projects/"],"deny":["projects/lighthouse/"],"tables":{},`+
		`"roots":["concepts/_index","operations/_index","media/_index","finance/_index","projects/_index"]}],"admin":false,"owner":false}`,
		st.do(http.MethodGet, "/v1/me", keyScoped, "").body)
	masked := ok(t, st.do(http.MethodGet, "/v1/me", keyMasked, ""))
	assert.Equal(t, false, masked["admin"], "a masked key without admin is admin nowhere")
	assert.Equal(t, false, masked["owner"], "the owner bit needs admin in the mask")
	assert.Equal(t, []any{"read"}, masked["grants"].([]any)[0].(map[string]any)["caps"])
	full := ok(t, st.do(http.MethodGet, "/v1/me", keyFull, ""))
	assert.Equal(t, true, full["owner"])
	assert.Len(t, full["grants"].([]any)[0].(map[string]any)["caps"], 7, "admin expands to every capability")
}

func TestNoSuchEndpoint(t *testing.T) {
	st := newStation(t, nil)
	for _, c := range []struct{ method, target string }{
		{http.MethodGet, "/v1/nothing"},
		{http.MethodGet, "/v1/forests/mare-alta"},
		{http.MethodDelete, "/v1/admin"},
		{http.MethodGet, "/v1/forests/mare-alta/teleport"}, // no primitive of that name
		{http.MethodGet, "/v1/forests/mare-alta/payload/../../../etc/passwd"},
		{http.MethodGet, "/v1//forests"},
	} {
		r := st.do(c.method, c.target, keyFull, "")
		e := envelope(t, r, http.StatusNotFound, vine.ENotFound)
		assert.True(t, strings.HasPrefix(e["message"].(string), "no such endpoint: /v1/"), e["message"])
		assert.Contains(t, e["hint"], "POST /v1/forests/{forest}/{primitive}")
	}
}

func TestUnservedPrimitive(t *testing.T) {
	st := newStation(t, nil)
	for _, name := range []string{"teleport", "view", "close_session"} {
		e := envelope(t, st.post(keyFull, name, `{}`), http.StatusNotFound, vine.ENotFound)
		assert.Equal(t, "unknown primitive: "+name, e["message"])
		hint := e["hint"].(string)
		for _, served := range []string{"locate", "look", "plant", "ingest", "harvest"} {
			assert.Contains(t, hint, served)
		}
		assert.NotContains(t, hint, "view", "view is MCP's: REST serves payload bytes instead")
	}
}

func TestUnknownAndUngrantedForestAnswerAlike(t *testing.T) {
	st := newStation(t, nil)
	other := st.do(http.MethodPost, "/v1/forests/mare-alta/look", keyOther, `{"id":"concepts/tide"}`)
	absent := st.do(http.MethodPost, "/v1/forests/nowhere/look", keyOther, `{"id":"concepts/tide"}`)
	e := envelope(t, other, http.StatusNotFound, vine.ENotFound)
	assert.Equal(t, "unknown forest: mare-alta", e["message"])
	assert.Equal(t, strings.ReplaceAll(absent.body, "nowhere", forestID), other.body, "no enumeration oracle")
	for _, target := range []string{"/v1/forests/mare-alta/payload/media/harbour-map", "/v1/forests/mare-alta/export/concepts/tide",
		"/v1/forests/mare-alta/jobs"} {
		envelope(t, st.do(http.MethodGet, target, keyOther, ""), http.StatusNotFound, vine.ENotFound)
	}
	e = envelope(t, st.do(http.MethodPost, "/v1/forests/nowhere/look", keyFull, `{"id":"concepts/tide"}`),
		http.StatusNotFound, vine.ENotFound)
	assert.Contains(t, e["hint"], `"mare-alta"`, "a key granted the one served forest is told its name")
}

func TestBodies(t *testing.T) {
	st := newStation(t, nil)
	ok(t, st.post(keyFull, "coverage", ``)) // empty body = {}
	for _, c := range []struct{ body, want string }{
		{`{"query":`, "locate: invalid JSON at offset 9: unexpected end of input"},
		{`{"query":"tide"}}`, "locate: invalid JSON at offset 16: invalid character '}' after top-level value"},
		{`["tide"]`, "arguments must be a JSON object, got list"},
		{`null`, "arguments must be a JSON object, got null"},
		{`{"query":"tide","bogus":1}`, "unknown parameter 'bogus'"},
		{`{"query":3}`, "parameter 'query' expects string, got integer"},
	} {
		e := envelope(t, st.post(keyFull, "locate", c.body), http.StatusBadRequest, vine.ESchema)
		assert.Contains(t, e["message"], c.want)
	}
	big := newStation(t, func(o *rest.Options) { o.MaxBody = 64 })
	e := envelope(t, big.post(keyFull, "locate", `{"query":"`+strings.Repeat("x", 100)+`"}`), http.StatusBadRequest, vine.ESchema)
	assert.Contains(t, e["message"], "over the 64-byte limit")
}

// TestStatusPerCode checks the transport table (spec 08 §3) on real
// refusals, each leaving the forest as it was.
func TestStatusPerCode(t *testing.T) {
	st := newStation(t, nil)
	cases := []struct {
		name, key, primitive, body string
		status                     int
		code                       vine.Code
	}{
		{"not found", keyFull, "look", `{"id":"concepts/no-such"}`, http.StatusNotFound, vine.ENotFound},
		{"schema", keyFull, "move", `{"id":"concepts/tide","direction":"sideways"}`, http.StatusBadRequest, vine.ESchema},
		{"anchored", keyFull, "prune", `{"id":"concepts/tide"}`, http.StatusConflict, vine.EAnchored},
		{"query forbidden", keyFull, "query", `{"id":"finance/ledger-2026","sql":"DELETE FROM ledger"}`, http.StatusForbidden, vine.EQueryForbidden},
		{"capability", keyRead, "plant", `{"node":{"id":"concepts/x","type":"concept","title":"X","summary":"An x.","parent":"concepts/_index"}}`,
			http.StatusForbidden, vine.EForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testforest.Unchanged(t, st.dir, func() {
				e := envelope(t, st.post(c.key, c.primitive, c.body), c.status, c.code)
				assert.NotContains(t, e["message"], st.dir, "no server path on the wire")
			})
		})
	}
}

func TestReadOnlyRegistry(t *testing.T) {
	dir, man := fixtureDir(t)
	reg, err := vine.NewRegistry(dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	srv := rest.New(reg, &rest.Options{Keys: testKeys(), ReadOnly: true})
	t.Cleanup(func() { srv.Close() })
	st := &station{t: t, dir: dir, man: man, reg: reg, srv: srv}
	testforest.Unchanged(t, dir, func() {
		envelope(t, st.post(keyFull, "graft", `{"id":"concepts/tide","patch":{"set_frontmatter":{"title":"Tides"}}}`),
			http.StatusForbidden, vine.EReadOnly)
	})
	ok(t, st.post(keyFull, "look", `{"id":"concepts/tide"}`))
}

func TestWriteAndReadBack(t *testing.T) {
	st := newStation(t, nil)
	before := testforest.Head(t, st.dir)
	r := st.post(keyFull, "plant", `{"node":{"id":"concepts/rip-current","type":"concept","title":"Rip current",`+
		`"summary":"A narrow seaward current.","parent":"concepts/_index"}}`)
	ok(t, r)
	assert.NotEqual(t, before, testforest.Head(t, st.dir), "a write is a commit")
	look := ok(t, st.post(keyRead, "look", `{"id":"concepts/rip-current"}`))
	assert.Equal(t, "Rip current", look["title"], "a reader sees the write once it is committed")

	var plain map[string]any
	require.NoError(t, json.Unmarshal([]byte(st.post(keyRead, "look", `{"id":"concepts/tide"}`).body), &plain))
	assert.Equal(t, "concepts/tide", plain["id"])
}

// TestWrongMethod: a path some route serves, asked with another method,
// is 405 with Allow naming what it serves (the envelope keeps the code of
// a path no route serves), for every route of the map.
func TestWrongMethod(t *testing.T) {
	st := newStation(t, nil)
	post := []string{"POST"}
	get := []string{"GET", "HEAD"}
	for _, c := range []struct {
		method, target string
		allow          []string
	}{
		{http.MethodGet, "/v1/forests/mare-alta/look", post},                              // primitives are POST
		{http.MethodPut, "/v1/forests/mare-alta/ingest", []string{"GET", "HEAD", "POST"}}, // status and ingest
		{http.MethodPost, "/v1/health", get},
		{http.MethodPost, "/v1/openapi.json", get},
		{http.MethodPost, "/v1/me", get},
		{http.MethodPost, "/v1/forests", get},
		{http.MethodDelete, "/v1/forests/mare-alta/jobs", get},
		{http.MethodPost, "/v1/forests/mare-alta/jobs/ing-1", get},
		{http.MethodGet, "/v1/forests/mare-alta/jobs/ing-1/cancel", post},
		{http.MethodPost, "/v1/forests/mare-alta/payload/media/harbour-map", get},
		{http.MethodDelete, "/v1/forests/mare-alta/export/concepts/tide", get},
		{http.MethodGet, "/v1/admin/reindex", post},
	} {
		r := st.do(c.method, c.target, keyFull, "")
		e := envelope(t, r, http.StatusMethodNotAllowed, vine.ENotFound)
		assert.Equal(t, strings.Join(c.allow, ", "), r.header.Get("Allow"), c.target)
		assert.Equal(t, `method not allowed: "`+c.method+`"`, e["message"])
		assert.Contains(t, e["hint"], "this route answers "+strings.Join(c.allow, ", "))
	}
	r := st.do(http.MethodGet, "/v1/forests/mare-alta/look", "", "")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status, "the route map is public: no key needed to learn it")
}
