// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
)

// serve opens a registry over root and connects an in-memory client.
func serve(t *testing.T, root string, vopts *vine.Options, opts *mcp.Options) (*sdk.ClientSession, *vine.Registry) {
	t.Helper()
	reg, err := vine.NewRegistry(root, vopts)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	return connect(t, mcp.NewServer(reg, opts)), reg
}

func connect(t testing.TB, srv *sdk.Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool; args is anything that marshals (json.RawMessage for
// arguments that are not an object).
func call(t *testing.T, cs *sdk.ClientSession, tool string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "a tool call never fails at the protocol level")
	return res
}

// text is the result's first block as text.
func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*sdk.TextContent)
	require.True(t, ok, "first block is text, got %T", res.Content[0])
	return tc.Text
}

// answer asserts a successful call and decodes its one text block.
func answer(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	body := text(t, res)
	require.False(t, res.IsError, body)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	_, isErr := m["error"]
	assert.False(t, isErr, "isError ⇔ top-level error")
	sameStructured(t, res, body)
	return m
}

// sameStructured asserts structuredContent is the text block's JSON: one
// result, two encodings, for new clients and old.
func sameStructured(t *testing.T, res *sdk.CallToolResult, body string) {
	t.Helper()
	require.NotNil(t, res.StructuredContent, "every result carries structuredContent")
	got, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	assert.JSONEq(t, body, string(got))
}

// refusal asserts an isError result whose only block is exactly the
// envelope {"error":{code,message[,hint]}}, and returns the inner object.
func refusal(t *testing.T, res *sdk.CallToolResult, code vine.Code) map[string]any {
	t.Helper()
	require.True(t, res.IsError, "expected a refusal, got %v", res.Content)
	require.Len(t, res.Content, 1)
	var env map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(text(t, res)), &env))
	require.Len(t, env, 1, "the body is the envelope and nothing else")
	e := env["error"]
	require.NotNil(t, e)
	assert.Equal(t, string(code), e["code"], e["message"])
	assert.NotEmpty(t, e["message"])
	for k := range e {
		assert.Contains(t, []string{"code", "message", "hint", "moved_to", "anchors", "anchor_count", "holder"}, k)
	}
	sameStructured(t, res, text(t, res))
	return e
}
