// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/recordtest"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestAuditOneRowPerToolCall sends N tool calls on a forest over
// streamable HTTP, refusals included, and expects exactly N rows with
// the fields the call decided (spec 09 §9); forests() and a call without
// a key write none. A keyed write is stamped: history answers by.
func TestAuditOneRowPerToolCall(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	all := []vine.Capability{vine.CapRead, vine.CapWrite}
	table := keyTable{
		"mk_ops": {Name: "ops", Grants: map[string]vine.Policy{"mare-alta": {Allow: []string{"operations/"}, Caps: []vine.Capability{vine.CapRead}}}},
		"mk_w":   {Name: "writer", Grants: map[string]vine.Policy{"mare-alta": {Allow: []string{""}, Caps: all}}},
	}
	tr := &recordtest.Trail{}
	srv := httptest.NewServer(mcp.Handler(reg, &mcp.Options{Keys: table, AllowedHosts: []string{"*"}, Recorder: tr}))
	t.Cleanup(srv.Close)
	connect := func(key string) *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: withKey{key, http.DefaultTransport}}}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	ops, w, anon := connect("mk_ops"), connect("mk_w"), connect("")
	type want struct {
		principal, forest, primitive, args, code string
		commit                                   bool
	}
	plant := map[string]any{"node": map[string]any{"id": "concepts/audited", "type": "concept", "title": "A",
		"summary": "A.", "parent": "concepts/_index", "body": "secret body"}}
	calls := []struct {
		name string
		cs   *sdk.ClientSession
		tool string
		args map[string]any
		want *want
	}{
		{"read", ops, "look", map[string]any{"id": "operations/radio-schedule"},
			&want{"ops", "mare-alta", "look", `{"id":"operations/radio-schedule"}`, "", false}},
		{"hidden", ops, "look", map[string]any{"id": "concepts/tide"},
			&want{"ops", "mare-alta", "look", `{"id":"concepts/tide"}`, "E_NOT_FOUND", false}},
		{"missing cap", ops, "graft", map[string]any{"id": "operations/radio-schedule", "patch": map[string]any{"body": "x"}},
			&want{"ops", "mare-alta", "graft", `{"id":"operations/radio-schedule","patch":"<12 chars>"}`, "E_FORBIDDEN", false}},
		{"schema", ops, "look", map[string]any{"id": 7},
			&want{"ops", "mare-alta", "look", `{"id":"7"}`, "E_SCHEMA", false}},
		{"wrong forest", ops, "look", map[string]any{"forest": "elsewhere", "id": "x"},
			&want{"ops", "elsewhere", "look", `{"id":"x"}`, "E_NOT_FOUND", false}},
		{"write", w, "plant", plant, &want{"writer", "mare-alta", "plant", `{"node":"<117 chars>"}`, "", true}},
		{"forests is no scoped call", ops, "forests", nil, nil},
		{"no key", anon, "look", map[string]any{"id": "operations/radio-schedule"}, nil},
	}
	n := 0
	for _, c := range calls {
		res := call(t, c.cs, c.tool, c.args)
		if c.want != nil {
			n++
		}
		rows := tr.All()
		require.Len(t, rows, n, "%s: one row per call on a forest, recorded before the result is sent", c.name)
		if c.want == nil {
			continue
		}
		row, wt := rows[n-1], c.want
		assert.Equal(t, wt.principal, row.Principal, c.name)
		assert.Equal(t, wt.forest, row.Forest, c.name)
		assert.Equal(t, wt.primitive, row.Primitive, c.name)
		assert.Equal(t, wt.args, row.Args.String(), c.name)
		assert.Equal(t, wt.code, row.ErrorCode, c.name)
		assert.Equal(t, res.IsError, row.Result == record.Error, c.name)
		assert.Equal(t, wt.commit, row.CommitSHA != "", c.name)
		assert.EqualValues(t, len(text(t, res)), row.Size, c.name)
		assert.False(t, row.Time.IsZero(), c.name)
	}
	h := answer(t, call(t, w, "history", map[string]any{"id": "concepts/audited"}))
	entries := h["entries"].([]any)
	require.NotEmpty(t, entries)
	assert.Equal(t, "writer", entries[0].(map[string]any)["by"], "a keyed write carries its principal")
	assert.Equal(t, tr.All()[5].CommitSHA, entries[0].(map[string]any)["commit"], "the row names the write's commit")
}
