// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMapRoutes(t *testing.T) {
	st := newStation(t, nil)
	base := "/v1/forests/" + forestID
	var g struct {
		Nodes []struct {
			ID     string `json:"id"`
			Degree int    `json:"degree"`
		} `json:"nodes"`
		Edges     []struct{ Src, Dst string } `json:"edges"`
		Truncated bool                        `json:"truncated"`
		Derived   bool                        `json:"derived"`
	}
	full := st.do("GET", base+"/graph", keyFull, "")
	require.Equal(t, http.StatusOK, full.status, full.body)
	require.NoError(t, json.Unmarshal([]byte(full.body), &g))
	assert.True(t, g.Derived)
	whole := len(g.Nodes)

	scoped := st.do("GET", base+"/graph", keyScoped, "")
	require.Equal(t, http.StatusOK, scoped.status, scoped.body)
	require.NoError(t, json.Unmarshal([]byte(scoped.body), &g))
	assert.Less(t, len(g.Nodes), whole)
	for _, n := range g.Nodes {
		for _, h := range []string{"people/", "library/", "projects/lighthouse/"} {
			assert.False(t, strings.HasPrefix(n.ID, h), "%s is hidden from the scoped key", n.ID)
		}
	}

	limited := st.do("GET", base+"/graph?limit=3&scope=concepts", keyFull, "")
	require.Equal(t, http.StatusOK, limited.status, limited.body)
	require.NoError(t, json.Unmarshal([]byte(limited.body), &g))
	assert.Len(t, g.Nodes, 3)
	assert.True(t, g.Truncated)

	tr := st.do("GET", base+"/trails?scope=concepts/_index", keyRead, "")
	assert.Equal(t, http.StatusOK, tr.status, tr.body)
	assert.Contains(t, tr.body, `"derived":true`)

	for _, c := range []struct {
		target, key, code string
		status            int
	}{
		{base + "/graph?limit=many", keyFull, "E_SCHEMA", http.StatusBadRequest},
		{base + "/graph?depth=2", keyFull, "E_SCHEMA", http.StatusBadRequest},
		{base + "/trails?scope=people", keyScoped, "E_NOT_FOUND", http.StatusNotFound},
		{base + "/graph", keyOther, "E_NOT_FOUND", http.StatusNotFound},
		{base + "/graph", "", "E_FORBIDDEN", http.StatusUnauthorized},
	} {
		got := st.do("GET", c.target, c.key, "")
		assert.Equal(t, c.status, got.status, "%s: %s", c.target, got.body)
		assert.Contains(t, got.body, c.code, c.target)
	}
	hidden := st.do("GET", base+"/graph?scope=people", keyScoped, "")
	absent := st.do("GET", base+"/graph?scope=nowhere", keyScoped, "")
	assert.Equal(t, absent.body, strings.ReplaceAll(hidden.body, "people", "nowhere"), "a hidden branch answers like an absent one")
}
