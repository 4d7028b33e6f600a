// SPDX-License-Identifier: Apache-2.0

package station

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roles are the callers of the capability matrix, by key.
type roles map[string]string

// matrixRoles sets up one caller per role: the owner, an administrator
// of the forest, an editor, a reader, the owner's paired key (masked to
// read, ingest, answer: no owner bit) and nobody.
func matrixRoles(t *testing.T, ts *testStation) roles {
	owner := ts.owner()
	r := roles{"owner": owner, "anonymous": ""}
	for name, caps := range map[string][]string{"admin": {"admin"}, "editor": {"read", "write"}, "reader": {"read"}} {
		a := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": name, "issue_key": true,
			"grant": map[string]any{"forest": forestID, "caps": caps}})
		require.Equal(t, http.StatusOK, a.status, a.body)
		r[name] = a.str("api_key")
	}
	p := ts.call("POST", "/v1/auth/pair", "", map[string]string{"username": "olga", "password": "a long owner passphrase"})
	require.Equal(t, http.StatusOK, p.status, p.body)
	r["paired-owner"] = p.str("api_key")
	return r
}

// TestCapabilityMatrix calls every admin and map route as every role and
// checks allow or deny, and that no /v1/admin route the OpenAPI document
// lists is missing from the table (a new admin route must be swept here
// on purpose).
func TestCapabilityMatrix(t *testing.T) {
	ts := newTestStation(t, nil)
	who := matrixRoles(t, ts)
	q := "?forest=" + forestID
	forestBody := map[string]any{"forest": forestID}
	// allowed lists the roles that get a 2xx; every other role is refused
	// (401 anonymous, 403 or 404 the rest).
	cases := []struct {
		method, path string
		body         any
		allowed      []string
	}{
		{"GET", "/v1/admin/keys", nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/keys", map[string]any{"principal": "reader"}, []string{"owner", "admin"}},
		{"POST", "/v1/admin/grant", map[string]any{"principal": "newcomer", "forest": forestID}, []string{"owner", "admin"}},
		{"POST", "/v1/admin/password", map[string]any{"principal": "reader", "password": "reader's new passphrase"}, []string{"owner", "admin"}},
		{"GET", "/v1/admin/principals", nil, []string{"owner", "admin"}},
		{"GET", "/v1/admin/people", nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/people", map[string]any{"principal": "editor", "grant": map[string]any{"forest": forestID, "caps": []string{"read", "write"}}}, []string{"owner", "admin"}},
		{"GET", "/v1/admin/audit", nil, []string{"owner", "admin"}},
		{"GET", "/v1/admin/cache" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/cache", map[string]any{"forest": forestID, "max_entries": 100}, []string{"owner", "admin"}},
		{"POST", "/v1/admin/forests", map[string]any{"id": "f-{role}", "title": "New"}, []string{"owner", "admin"}},
		{"GET", "/v1/admin/health" + q, nil, []string{"owner", "admin"}},
		{"GET", "/v1/admin/locks" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/unlock", forestBody, []string{"owner", "admin"}},
		{"GET", "/v1/admin/snapshots" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/snapshots", forestBody, []string{"owner", "admin"}},
		{"GET", "/v1/admin/snapshots/" + forestID + "/none.forest", nil, []string{}}, // 404 for the owner: no such file
		{"GET", "/v1/admin/canopy" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/canopy", forestBody, []string{}}, // no embedder: E_SCHEMA for every admin
		{"GET", "/v1/admin/heat-mode" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/heat-mode", map[string]any{"forest": forestID, "mode": "unconditioned"}, []string{"owner", "admin"}},
		{"POST", "/v1/admin/reindex", forestBody, []string{"owner", "admin"}},
		{"POST", "/v1/admin/recurate", map[string]any{"forest": forestID, "derive": []string{"aliases"}}, []string{"owner", "admin"}},
		{"GET", "/v1/admin/remotes" + q, nil, []string{"owner", "admin"}},
		// A public address literal: CI machines resolve no names.
		{"POST", "/v1/admin/remotes", map[string]any{"forest": forestID, "name": "backup", "url": "https://9.9.9.9/forest.git"}, []string{"owner", "admin"}},
		{"POST", "/v1/admin/push", map[string]any{"forest": forestID, "remote": "none"}, []string{}}, // no such remote: E_NOT_FOUND for every admin
		{"POST", "/v1/admin/pull", map[string]any{"forest": forestID, "remote": "none"}, []string{}},
		{"GET", "/v1/forests/" + forestID + "/graph", nil, []string{"owner", "admin", "editor", "reader"}},  // the paired owner key carries no owner bit, and the owner holds no grant
		{"GET", "/v1/forests/" + forestID + "/trails", nil, []string{"owner", "admin", "editor", "reader"}}, // the paired owner key carries no owner bit, and the owner holds no grant
		{"POST", "/v1/forests/" + forestID + "/share", map[string]any{"node": "concepts/tide"}, []string{"owner", "admin", "editor", "reader"}},
		{"GET", "/v1/forests/" + forestID + "/shares", nil, []string{"owner", "admin", "editor", "reader"}},
		{"GET", "/v1/forests/" + forestID + "/webhooks", nil, []string{"owner", "admin"}},
		// After the forests row: the admin made f-admin and administers no
		// f-owner, so only the owner governs the whole deployment.
		{"GET", "/v1/admin/providers", nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/providers", map[string]any{"name": "p-{role}", "endpoint": "https://models.example.org/v1"}, []string{"owner"}},
		{"POST", "/v1/admin/providers/test", map[string]any{"endpoint": "http://127.0.0.1:9/v1"}, []string{}}, // loopback: E_SCHEMA for the owner
		{"GET", "/v1/admin/models" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/models", map[string]any{"forest": forestID, "role": "answer", "provider": "p-owner", "model": "m"}, []string{"owner", "admin"}},
		// No install home here: the loader is inert, so installs and
		// settings are refused even to the owner; listing and a forest's
		// enablement are an admin's.
		{"GET", "/v1/admin/extensions", nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/extensions", map[string]any{"action": "plan", "source": "/nowhere"}, []string{}},
		{"GET", "/v1/admin/extensions/enablement" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/extensions/enablement", map[string]any{"forest": forestID, "ext": "org", "enabled": false}, []string{"owner", "admin"}},
		{"GET", "/v1/admin/extensions/config?ext=org", nil, []string{}},
		{"POST", "/v1/admin/extensions/config", map[string]any{"ext": "org", "values": map[string]any{}}, []string{}},
		{"GET", "/v1/admin/extensions/jobs" + q, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/extensions/jobs", map[string]any{"forest": forestID, "job": "none"}, []string{}},
		{"GET", "/v1/admin/extensions/quota?ext=org&forest=" + forestID, nil, []string{"owner", "admin"}},
		{"POST", "/v1/admin/extensions/quota", map[string]any{"ext": "org", "forest": forestID, "ceiling": 1}, []string{}}, // not installed: 404 for the owner, 403 for the rest
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.method+" "+strings.Split(strings.Split(c.path, "?")[0], "/"+forestID+"/")[0]] = true
		for role, key := range who {
			var body any = c.body
			if m, ok := c.body.(map[string]any); ok {
				data, _ := json.Marshal(m)
				_ = json.Unmarshal([]byte(strings.ReplaceAll(string(data), "{role}", role)), &body)
			}
			a := ts.call(c.method, c.path, key, body)
			ok := a.status >= 200 && a.status < 300
			if slices.Contains(c.allowed, role) {
				assert.True(t, ok, "%s %s as %s: %d %s", c.method, c.path, role, a.status, a.body)
				continue
			}
			assert.False(t, ok, "%s %s as %s must be refused: %s", c.method, c.path, role, a.body)
			if role == "anonymous" {
				assert.Equal(t, http.StatusUnauthorized, a.status, "%s %s anonymous", c.method, c.path)
			}
		}
	}
	doc := ts.call("GET", "/v1/openapi.json", "", nil)
	paths, _ := doc.json["paths"].(map[string]any)
	require.NotEmpty(t, paths)
	for p, item := range paths {
		if !strings.HasPrefix(p, "/v1/admin/") {
			continue
		}
		for method := range item.(map[string]any) {
			key := strings.ToUpper(method) + " " + strings.Split(p, "/{forest}/")[0]
			if strings.HasPrefix(p, "/v1/admin/snapshots/{forest}") {
				key = strings.ToUpper(method) + " /v1/admin/snapshots"
			}
			assert.True(t, covered[key], "%s %s is in no row of the matrix", method, p)
		}
	}
}
