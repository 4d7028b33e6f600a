// SPDX-License-Identifier: Apache-2.0

package mcp

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
)

func TestPanicAnswersInternalNamingTheTool(t *testing.T) {
	s := newServer(mustRegistry(t), nil)
	h := s.guarded("locate", func(context.Context, *keys.Principal, json.RawMessage) *sdk.CallToolResult {
		panic("secret detail /srv/forest")
	})
	res, err := h(context.Background(), &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: "locate"}})
	require.NoError(t, err, "a panic is a tool result, not a protocol error")
	require.True(t, res.IsError)
	body := res.Content[0].(*sdk.TextContent).Text
	assert.Equal(t, `{"error":{"code":"E_INTERNAL","message":"locate failed: internal panic",`+
		`"hint":"server-side defect, not the caller's mistake; the detail is in the log"}}`, body)
	assert.NotContains(t, body, "secret")
}

func mustRegistry(t *testing.T) *vine.Registry {
	t.Helper()
	reg, err := vine.NewRegistry(t.TempDir(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	return reg
}

func TestSplitForest(t *testing.T) {
	tests := []struct {
		name, raw, forest, rest string
		err                     string
	}{
		{"absent arguments", ``, "", ``, ""},
		{"null arguments", `null`, "", ``, ""},
		{"no forest", `{"query":"x"}`, "", `{"query":"x"}`, ""},
		{"forest taken out", `{"forest":"kb","query":"<x>"}`, "kb", `{"query":"<x>"}`, ""},
		{"forest null is absent", `{"forest":null,"k":1}`, "", `{"k":1}`, ""},
		{"forest list", `{"forest":["kb"]}`, "", ``, "parameter 'forest' expects string, got list of string"},
		{"not an object passes on", `["x"]`, "", `["x"]`, ""},
		{"broken JSON passes on", `{"forest":`, "", `{"forest":`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forest, rest, err := splitForest("locate", json.RawMessage(tt.raw))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Equal(t, vine.ESchema, vine.CodeOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.forest, forest)
			assert.Equal(t, tt.rest, string(rest))
		})
	}
}

func FuzzSplitForest(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"forest":"kb","id":"a"}`, `{"forest":1}`, `[1]`, `{"forest":"a","forest":"b"}`, `"x"`} {
		f.Add(s)
	}
	sig, ok := vine.LookupSignature("look")
	if !ok {
		f.Fatal("look is not in the signature table")
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_, rest, err := splitForest("look", json.RawMessage(raw))
		if err != nil {
			if vine.CodeOf(err) != vine.ESchema {
				t.Fatalf("refusal of %q is %v, want E_SCHEMA", raw, err)
			}
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(rest, &obj) == nil && obj != nil {
			if _, left := obj["forest"]; left {
				t.Fatalf("forest left in %q", rest)
			}
		}
		vine.DecodeArgs(sig, rest) // must not panic whatever arrives
	})
}

// TestRPCWriter: what the SDK answers is cleaned on its way out. A 404
// carrying a JSON-RPC error is re-sent as 200, body untouched (§4.4); a
// plain-text refusal becomes a JSON-RPC error with its status kept; a
// message quoting Go is replaced by its code's name; everything else
// passes byte for byte, an event stream as it is written.
func TestRPCWriter(t *testing.T) {
	leak := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"handling 'tools/call': invalid params: unmarshaling \"5\" into a *mcp.CallToolParamsRaw: json: cannot unmarshal"}}`
	tests := []struct {
		name, ctype string
		status      int
		body        string
		wantStatus  int
		wantBody    string // "" = the body untouched
	}{
		{"JSON-RPC error 404 becomes 200", "application/json", 404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}`, 200, ""},
		{"plain 404 stays 404, as JSON-RPC", "text/plain", 404, "404 page not found\n", 404,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"404 page not found"}}`},
		{"JSON that is not JSON-RPC stays", "application/json", 404, `{"error":{"code":"E_NOT_FOUND"}}`, 404, ""},
		{"other statuses pass", "application/json", 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`, 400, ""},
		{"success passes", "application/json", 200, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"error\":{}}"}]}}`, 200, ""},
		{"accepted notification", "", 202, ``, 202, ""},
		{"plain 405", "text/plain", 405, "Method Not Allowed\n", 405,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method Not Allowed"}}`},
		{"plain 400 quoting Go", "text/plain", 400, "malformed payload: unmarshaling jsonrpc message: json: bad\n", 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`},
		{"plain 500", "text/plain", 500, "failed connection\n", 500,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"failed connection"}}`},
		{"error quoting Go", "application/json", 200, leak, 200,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}`},
		{"batch with an error quoting Go", "application/json", 200, `[` + leak + `,{"jsonrpc":"2.0","id":2,"result":{}}]`, 200,
			`[{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}},{"jsonrpc":"2.0","id":2,"result":{}}]`},
		{"event stream passes", "text/event-stream", 200, "event: message\ndata: {\"jsonrpc\":\"2.0\"}\n\n", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := rpcMount(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
				w.(http.Flusher).Flush()
			}))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/mcp", nil))
			assert.Equal(t, tt.wantStatus, w.Code)
			want := tt.wantBody
			if want == "" {
				want = tt.body
			}
			assert.Equal(t, want, w.Body.String())
			if tt.wantBody != "" {
				assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			}
		})
	}
}
