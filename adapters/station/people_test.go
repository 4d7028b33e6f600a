// SPDX-License-Identifier: Apache-2.0

package station

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/registry"
)

// TestPeopleServesRoles: GET /v1/admin/people carries the role presets
// of 09 §5, narrowest first, so the console's person form reads them
// from the Station rather than keeping a second list.
func TestPeopleServesRoles(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	a := ts.call("GET", "/v1/admin/people", owner, nil)
	require.Equal(t, http.StatusOK, a.status, a.body)
	var got struct {
		Roles []registry.Role `json:"roles"`
	}
	require.NoError(t, json.Unmarshal([]byte(a.body), &got))
	assert.Equal(t, registry.Roles(), got.Roles)
	names := []string{}
	for _, r := range got.Roles {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"reader", "analyst", "editor", "curator", "owner"}, names)
	assert.Contains(t, a.body, `{"name":"reader","caps":["read","answer"]}`, "the wire names are lower case")
}
