// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
)

const studio = "https://studio.example.org"

func preflight(st *station, target, origin, method string) reply {
	r := httpRequest(http.MethodOptions, target)
	r.Header.Set("Origin", origin)
	r.Header.Set("Access-Control-Request-Method", method)
	r.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	return serve(st, r)
}

func TestCORS(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.CORSOrigins = []string{studio + "/"} })

	pre := preflight(st, "/v1/forests/mare-alta/locate", studio, "POST")
	require.Equal(t, http.StatusNoContent, pre.status, pre.body)
	assert.Equal(t, studio, pre.header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "OPTIONS, POST", pre.header.Get("Access-Control-Allow-Methods"))
	assert.Contains(t, pre.header.Get("Access-Control-Allow-Headers"), "Authorization")
	assert.Equal(t, "Origin", pre.header.Get("Vary"))
	assert.Regexp(t, noEngineTiming, pre.header.Get("Server-Timing"))

	assert.Equal(t, "GET, HEAD, OPTIONS", preflight(st, "/v1/forests", studio, "GET").header.Get("Access-Control-Allow-Methods"))
	envelope(t, preflight(st, "/v1/nothing", studio, "GET"), http.StatusNotFound, vine.ENotFound)

	r := httpRequest(http.MethodPost, "/v1/forests/mare-alta/locate")
	r.Header.Set("Origin", studio)
	r.Header.Set("Authorization", "Bearer "+keyRead)
	r.Header.Set("Content-Type", "application/json")
	r.Body = ioBody(`{"query":"tide"}`)
	got := serve(st, r)
	require.Equal(t, http.StatusOK, got.status, "an allowed origin passes the Origin guard: "+got.body)
	assert.Equal(t, studio, got.header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, got.header.Get("Access-Control-Expose-Headers"), "Server-Timing")
	assert.Equal(t, studio, got.header.Get("Timing-Allow-Origin"))

	other := preflight(st, "/v1/forests/mare-alta/locate", "https://evil.example", "POST")
	envelope(t, other, http.StatusForbidden, vine.EForbidden)
	assert.Empty(t, other.header.Get("Access-Control-Allow-Origin"), "no grant to an origin not listed")

	foreign := httpRequest(http.MethodOptions, "/v1/forests/mare-alta/locate")
	foreign.Host = "rebound.example"
	foreign.Header.Set("Origin", studio)
	foreign.Header.Set("Access-Control-Request-Method", "POST")
	r2 := serve(st, foreign)
	assert.Equal(t, http.StatusMisdirectedRequest, r2.status, "the Host check still runs: "+r2.body)
	assert.Empty(t, r2.header.Get("Access-Control-Allow-Methods"))
	assert.Empty(t, r2.header.Get("Access-Control-Allow-Origin"), "no grant through a rebound Host")

	none := newStation(t, nil)
	plain := preflight(none, "/v1/forests/mare-alta/locate", studio, "POST")
	envelope(t, plain, http.StatusForbidden, vine.EForbidden)
	assert.Empty(t, plain.header.Get("Access-Control-Allow-Origin"), "no CORS without the option")
}
