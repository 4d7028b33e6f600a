// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
)

func TestRateLimitPerKey(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.RateLimit = &rest.RateLimit{PerSecond: 0.01, Burst: 2} })
	for range 2 {
		ok(t, st.post(keyRead, "look", `{"id":"concepts/tide"}`))
	}
	r := st.post(keyRead, "look", `{"id":"concepts/tide"}`)
	e := envelope(t, r, http.StatusTooManyRequests, vine.EForbidden)
	assert.Equal(t, "too many requests for this key", e["message"])
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	require.NoError(t, err, r.header.Get("Retry-After"))
	assert.InDelta(t, 100, secs, 2, "one token every 100 s")
	assert.Regexp(t, serverTiming, r.header.Get("Server-Timing"))

	ok(t, st.post(keyFull, "look", `{"id":"concepts/tide"}`))
	assert.Equal(t, http.StatusOK, st.do(http.MethodGet, "/v1/health", "", "").status, "health is not limited")
	assert.Equal(t, http.StatusOK, st.do(http.MethodGet, "/v1/openapi.json", "", "").status)
	assert.Equal(t, http.StatusUnauthorized, st.post("mk_wrong", "look", `{}`).status, "a bad key is refused as such, never limited")
	assert.Equal(t, http.StatusTooManyRequests, st.do(http.MethodGet, "/v1/me", keyRead, "").status,
		"one bucket per key over every route")
}
