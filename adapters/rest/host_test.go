// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/rest"
)

func TestHostRoutes(t *testing.T) {
	var srv *rest.Server
	hidden := true
	st := newStation(t, func(o *rest.Options) {
		o.Routes = []rest.Route{
			{Method: "GET", Path: "/v1/host/whoami", Op: "whoami", Summary: "the caller's name", Auth: true,
				Handler: func(w http.ResponseWriter, r *http.Request) {
					srv.WriteJSON(w, "whoami", http.StatusOK, map[string]string{"name": rest.Caller(r.Context()).Name})
				}},
			{Method: "POST", Path: "/v1/host/door", Op: "door", Summary: "a door that may not exist",
				Handler: func(w http.ResponseWriter, r *http.Request) {
					if hidden {
						srv.NoEndpoint(w, r)
						return
					}
					srv.WriteJSON(w, "door", http.StatusOK, map[string]bool{"open": true})
				}},
		}
		o.HealthFields = func(*http.Request) map[string]any { return map[string]any{"setup_required": hidden} }
	})
	srv = st.srv

	r := st.do("GET", "/v1/host/whoami", keyRead, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.JSONEq(t, `{"name":"reader"}`, r.body)
	assert.NotEmpty(t, r.header.Get("Server-Timing"), "timed like every route")
	assert.Equal(t, http.StatusUnauthorized, st.do("GET", "/v1/host/whoami", "", "").status)

	closed := st.do("POST", "/v1/host/door", "", "")
	unrouted := st.do("POST", "/v1/host/nothing", "", "")
	assert.Equal(t, unrouted.status, closed.status)
	assert.Equal(t, `{"error":{"code":"E_NOT_FOUND","message":"no such endpoint: /v1/host/door","hint":"the routes this server serves are listed by GET /v1/openapi.json; primitives are POST /v1/forests/{forest}/{primitive}"}}`, closed.body)
	hidden = false
	assert.Equal(t, http.StatusOK, st.do("POST", "/v1/host/door", "", "").status)

	req := httpRequest("GET", "/v1/host/whoami")
	req.Host = "evil.example"
	assert.Equal(t, http.StatusMisdirectedRequest, serve(st, req).status, "behind the same Host guard")

	h := st.do("GET", "/v1/health", "", "")
	assert.Contains(t, h.body, `"setup_required":false`)
	assert.Contains(t, h.body, `"status":"ok"`)
	assert.Contains(t, st.do("GET", "/v1/openapi.json", "", "").body, "/v1/host/whoami", "listed in the OpenAPI document")
}
