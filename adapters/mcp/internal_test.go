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

func TestSoftRefusal(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		body       string
		wantStatus int
	}{
		{"JSON-RPC error 404 becomes 200", 404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}`, 200},
		{"plain 404 stays", 404, "404 page not found\n", 404},
		{"JSON that is not JSON-RPC stays", 404, `{"error":{"code":"E_NOT_FOUND"}}`, 404},
		{"other statuses pass", 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`, 400},
		{"success passes", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := softRefusal(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
				w.(http.Flusher).Flush()
			}))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			assert.Equal(t, tt.wantStatus, w.Code)
			assert.Equal(t, tt.body, w.Body.String(), "the body is untouched")
		})
	}
}
