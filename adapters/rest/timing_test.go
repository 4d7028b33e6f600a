// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerTiming checks spec 08 §10: every response past
// authentication carries the header, refusals and unknown forests
// included, in the stated shape and nothing else; and, as the README
// says, so does every response before it, with no engine time.
func TestServerTiming(t *testing.T) {
	st := newStation(t, nil)
	cases := []struct {
		name string
		r    func() reply
		want int
	}{
		{"success", func() reply { return st.post(keyFull, "locate", `{"query":"tide"}`) }, http.StatusOK},
		{"refusal", func() reply { return st.post(keyFull, "look", `{"id":"concepts/no-such"}`) }, http.StatusNotFound},
		{"schema refusal", func() reply { return st.post(keyFull, "look", `{}`) }, http.StatusBadRequest},
		{"unknown forest", func() reply { return st.do(http.MethodPost, "/v1/forests/nowhere/look", keyFull, `{"id":"x"}`) }, http.StatusNotFound},
		{"ungranted forest", func() reply { return st.post(keyOther, "look", `{"id":"concepts/tide"}`) }, http.StatusNotFound},
		{"capability", func() reply { return st.post(keyRead, "prune", `{"id":"concepts/tide"}`) }, http.StatusForbidden},
		{"unknown primitive", func() reply { return st.post(keyFull, "teleport", `{}`) }, http.StatusNotFound},
		{"payload", func() reply {
			return st.do(http.MethodGet, "/v1/forests/mare-alta/payload/"+st.man.Media, keyFull, "")
		}, http.StatusOK},
		{"listing", func() reply { return st.do(http.MethodGet, "/v1/forests", keyFull, "") }, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.r()
			require.Equal(t, c.want, r.status, r.body)
			h := r.header.Get("Server-Timing")
			m := serverTiming.FindStringSubmatch(h)
			require.NotNil(t, m, "Server-Timing %q", h)
		})
	}
	r := st.post(keyFull, "locate", `{"query":"tide"}`)
	m := serverTiming.FindStringSubmatch(r.header.Get("Server-Timing"))
	require.NotNil(t, m)
	engine, _ := strconv.ParseFloat(m[1], 64)
	assert.Greater(t, engine, 0.0, "vine is the engine's own time, reported by the observer")

	for _, target := range []string{"/v1/health", "/v1/nothing", "/v1/openapi.json"} {
		assert.Regexp(t, noEngineTiming, st.do(http.MethodGet, target, keyFull, "").header.Get("Server-Timing"), target)
	}
	assert.Regexp(t, noEngineTiming, st.post("", "look", `{"id":"concepts/tide"}`).header.Get("Server-Timing"),
		"before authentication too, with no engine time: the README says every response")
}
