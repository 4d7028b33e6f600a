// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/internal/testforest"
)

type keyTable map[string]*keys.Principal

func (k keyTable) Resolve(_ context.Context, secret string) (*keys.Principal, bool) {
	p, ok := k[secret]
	return p, ok
}

type withKey struct {
	key  string
	next http.RoundTripper
}

func (w withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if w.key != "" {
		r.Header.Set("Authorization", "Bearer "+w.key)
	}
	return w.next.RoundTrip(r)
}

// TestKeysPerRequest serves MCP behind keys: initialize and tools/list
// need none, every tool call is authenticated by its own request's key
// and sees the forest through that key's policy.
func TestKeysPerRequest(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	table := keyTable{"mk_ops": {Name: "ops", Grants: map[string]vine.Policy{
		"mare-alta": {Allow: []string{"operations/"}, Caps: []vine.Capability{vine.CapRead}},
	}}}
	srv := httptest.NewServer(mcp.Handler(reg, &mcp.Options{Keys: table, AllowedHosts: []string{"*"}}))
	t.Cleanup(srv.Close)
	connect := func(key string) *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: withKey{key, http.DefaultTransport}}}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	anon := connect("")
	tools, err := anon.ListTools(context.Background(), nil)
	require.NoError(t, err, "tools/list needs no key")
	assert.Len(t, tools.Tools, len(vine.Signatures())+1, "scoping narrows content, never shape")
	for _, tool := range []string{"look", "forests"} {
		e := refusal(t, call(t, anon, tool, map[string]any{"id": "operations/radio-schedule"}), vine.EForbidden)
		assert.Equal(t, "missing or invalid API key", e["message"])
		assert.Contains(t, e["hint"], "Authorization: Bearer <key>")
	}
	refusal(t, call(t, connect("mk_forged"), "look", map[string]any{"id": "operations/radio-schedule"}), vine.EForbidden)

	ops := connect("mk_ops")
	got := answer(t, call(t, ops, "forests", nil))
	b, _ := json.Marshal(got["forests"])
	assert.JSONEq(t, `[{"id":"mare-alta","caps":["read"],"roots":["operations/_index"],"hybrid":false}]`, string(b))
	answer(t, call(t, ops, "look", map[string]any{"id": "operations/radio-schedule"}))
	hidden := refusal(t, call(t, ops, "look", map[string]any{"id": "concepts/tide"}), vine.ENotFound)
	absent := refusal(t, call(t, ops, "look", map[string]any{"id": "concepts/no-such"}), vine.ENotFound)
	assert.Equal(t, absent["hint"], hidden["hint"])
	assert.Equal(t, "node not found: concepts/tide", hidden["message"])
	e := refusal(t, call(t, ops, "graft", map[string]any{"id": "operations/radio-schedule",
		"patch": map[string]any{"set_frontmatter": map[string]any{"title": "Radio"}}}), vine.EForbidden)
	assert.Equal(t, "graft needs the write capability", e["message"])
	assert.Equal(t, "this key holds: read", e["hint"])
}
