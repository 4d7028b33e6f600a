// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

func TestHeatModeRoutes(t *testing.T) {
	st, _ := maintStation(t)
	q := "?forest=" + forestID
	body := func(mode string) string { return `{"forest":"` + forestID + `","mode":"` + mode + `"}` }
	testforest.Unchanged(t, st.dir, func() {
		g := st.do("GET", "/v1/admin/heat-mode"+q, keyFull, "")
		require.Equal(t, http.StatusOK, g.status, g.body)
		assert.JSONEq(t, `{"forest":"`+forestID+`","heat_mode":"unconditioned"}`, g.body)

		p := st.do("POST", "/v1/admin/heat-mode", keyFull, body("conditioned"))
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.JSONEq(t, `{"forest":"`+forestID+`","heat_mode":"conditioned"}`, p.body)
		g = st.do("GET", "/v1/admin/heat-mode"+q, keyFull, "")
		require.Equal(t, http.StatusOK, g.status, g.body)
		assert.Contains(t, g.body, `"heat_mode":"conditioned"`, "a reader sees the writer's mode")

		for _, c := range []struct {
			name, method, target, key, body string
			status                          int
			code                            vine.Code
			message                         string
		}{
			{"an unknown mode", "POST", "/v1/admin/heat-mode", keyFull, body("warm"), 400, vine.ESchema, "'mode'"},
			{"the mode is required", "POST", "/v1/admin/heat-mode", keyFull, `{"forest":"` + forestID + `"}`, 400, vine.ESchema, "mode"},
			{"the forest is required", "GET", "/v1/admin/heat-mode", keyFull, "", 400, vine.ESchema, "'forest'"},
			{"reading needs admin", "GET", "/v1/admin/heat-mode" + q, keyRead, "", 403, vine.EForbidden, "admin"},
			{"setting needs the whole forest", "POST", "/v1/admin/heat-mode", keyPartAdmin, body("unconditioned"), 403, vine.EForbidden, "whole forest"},
		} {
			t.Run(c.name, func(t *testing.T) {
				env := envelope(t, st.do(c.method, c.target, c.key, c.body), c.status, c.code)
				assert.Contains(t, env["message"], c.message)
			})
		}
		g = st.do("GET", "/v1/admin/heat-mode"+q, keyFull, "")
		assert.Contains(t, g.body, `"heat_mode":"conditioned"`, "a refused call changes nothing")
	})
}
