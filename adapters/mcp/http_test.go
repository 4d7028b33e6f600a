// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/internal/testforest"
)

// httpServer mounts Handler at /mcp as vine serve does.
func httpServer(t *testing.T, dir string, opts *mcp.Options) *httptest.Server {
	t.Helper()
	reg, err := vine.NewRegistry(dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.Handler(reg, opts))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPClientSession(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := httpServer(t, dir, nil)
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	require.NoError(t, err)
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, len(vine.Signatures())+1)
	answer(t, call(t, cs, "locate", map[string]any{"query": "tide"}))
	refusal(t, call(t, cs, "look", map[string]any{"id": "no/such-node"}), vine.ENotFound)
	refusal(t, call(t, cs, "teleport", nil), vine.ENotFound)
}

// post sends one JSON-RPC message the way a stateless client does.
func post(t *testing.T, url, host, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestHTTPHostAllowList(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := httpServer(t, dir, &mcp.Options{AllowedHosts: []string{"kb.example.org"}})
	url := srv.URL + "/mcp"

	status, body := post(t, url, "kb.example.org", initialize, nil)
	assert.Equal(t, http.StatusOK, status, body)

	status, body = post(t, url, "", initialize, nil) // Host = 127.0.0.1:port, not listed
	assert.Equal(t, http.StatusMisdirectedRequest, status)
	var env struct {
		Error map[string]string `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &env))
	assert.Equal(t, "E_HOST_NOT_ALLOWED", env.Error["code"])
	assert.Contains(t, env.Error["message"], strings.TrimPrefix(srv.URL, "http://"), "quotes the Host sent")
	assert.Contains(t, env.Error["hint"], "MONKEYLLM_STATION_ALLOWED_HOSTS")
	assert.NotContains(t, body, "kb.example.org", "never reveals the list")

	status, body = post(t, url, "kb.example.org", initialize, map[string]string{"Origin": "https://evil.example"})
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, body, `"code":"E_FORBIDDEN"`)

	status, _ = post(t, url, "kb.example.org", initialize, map[string]string{"Origin": "https://kb.example.org"})
	assert.Equal(t, http.StatusOK, status)
}

func TestHTTPDefaultHostsAreLocal(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := httpServer(t, dir, nil)
	status, body := post(t, srv.URL+"/mcp", "", initialize, nil)
	assert.Equal(t, http.StatusOK, status, body)
	status, _ = post(t, srv.URL+"/mcp", "localhost:1", initialize, nil)
	assert.Equal(t, http.StatusOK, status)
	status, _ = post(t, srv.URL+"/mcp", "attacker.example", initialize, nil)
	assert.Equal(t, http.StatusMisdirectedRequest, status)

	wide := httpServer(t, dir, &mcp.Options{AllowedHosts: []string{"*"}})
	status, _ = post(t, wide.URL+"/mcp", "attacker.example", initialize, map[string]string{"Origin": "http://attacker.example"})
	assert.Equal(t, http.StatusOK, status, `"*" turns both checks off`)
}

// TestHTTPSoftRefusal: at protocol era 2026-07-28 the SDK answers an
// unknown method with HTTP 404; the mount re-sends it as 200, body
// untouched, so a client does not read it as a dead session (§4.4).
func TestHTTPSoftRefusal(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := httpServer(t, dir, nil)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	header := func(method string) map[string]string {
		return map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	}
	for _, method := range []string{"no/such-method", "resources/list", "prompts/list"} {
		status, body := post(t, srv.URL+"/mcp", "", `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":{`+meta+`}}`, header(method))
		assert.Equal(t, http.StatusOK, status, method+": "+body)
		assert.Contains(t, body, `"code":-32601`, method)
	}
	status, body := post(t, srv.URL+"/mcp", "", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{`+meta+`}}`, header("tools/list"))
	assert.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, `"name":"locate"`)

	status, _ = post(t, srv.URL+"/mcp/elsewhere", "", initialize, nil)
	assert.Equal(t, http.StatusNotFound, status, "a bad path under /mcp stays 404")
}

// goWords are what no answer of the mount may contain: Go types, the
// SDK's decoder and packages.
var goWords = regexp.MustCompile(`\*?mcp\.[A-Z]|unmarshal|Go value|Go struct|json: |jsonrpc2|interface \{\}`)

// TestHTTPJSONRPCErrors: every transport failure of the mount is a
// JSON-RPC error object with a standard code and no Go type name; one
// whose request id is known is sent with HTTP 200, one without with a
// 4xx. Malformed JSON, tool arguments included, is "invalid JSON at
// offset N".
func TestHTTPJSONRPCErrors(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := httpServer(t, dir, nil)
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
	}
	tests := []struct {
		name, method, body string
		header             map[string]string
		status             int
		code               int
		id                 any // nil: null
		message            string
	}{
		{"bad JSON", "POST", `{"jsonrpc":"2.0",`, nil, 400, -32700, nil, "invalid JSON at offset 17: unexpected end of input"},
		{"garbage", "POST", `not json`, nil, 400, -32700, nil, "invalid JSON at offset 1: invalid character 'o'"},
		{"malformed tool arguments", "POST", call(`{"name":"look","arguments":{"id":"concepts/tide",}}`), nil, 400, -32700, nil,
			"invalid JSON at offset 104: invalid character '}' looking for beginning of object key string"},
		{"empty body", "POST", ``, nil, 400, -32700, nil, "invalid JSON at offset 0: unexpected end of input"},
		{"not an object", "POST", `42`, nil, 400, -32600, nil, "got integer"},
		{"object id", "POST", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, 400, -32600, nil, `"id" must be a string or an integer`},
		{"old version", "POST", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 200, -32600, 1.0, `"jsonrpc" must be "2.0"`},
		{"unknown method", "POST", `{"jsonrpc":"2.0","id":9,"method":"no/such"}`, nil, 200, -32601, 9.0, `method not found: "no/such"`},
		{"withheld method", "POST", `{"jsonrpc":"2.0","id":"p","method":"prompts/list"}`, nil, 200, -32601, "p", "method not found"},
		{"params a string", "POST", call(`"x"`), nil, 200, -32602, 1.0, `"params" of tools/call must be an object, got string`},
		{"params a list", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`, nil, 200, -32602, 1.0, "got list"},
		{"tool name a number", "POST", call(`{"name":5}`), nil, 200, -32602, 1.0, "params.name of tools/call must be a string, got integer"},
		{"protocol version a number", "POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`, nil,
			200, -32602, 1.0, "params.protocolVersion of initialize must be a string"},
		{"nested params the SDK refuses", "POST",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":1}}}`,
			nil, 200, -32602, 1.0, "invalid params"},
		{"text/plain", "POST", initialize, map[string]string{"Content-Type": "text/plain"}, 415, -32600, nil,
			`the body's Content-Type is "text/plain"; expected application/json`},
		{"no Accept", "POST", initialize, map[string]string{"Accept": "text/html"}, 400, -32600, nil, "Accept must contain"},
		{"GET", "GET", ``, nil, 405, -32600, nil, "Method Not Allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := send(t, tt.method, srv.URL+"/mcp", tt.body, tt.header)
			assert.Equal(t, tt.status, status, body)
			assert.NotRegexp(t, goWords, body)
			var msg struct {
				JSONRPC string `json:"jsonrpc"`
				ID      any    `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &msg), body)
			assert.Equal(t, "2.0", msg.JSONRPC)
			assert.Equal(t, tt.id, msg.ID)
			assert.Equal(t, tt.code, msg.Error.Code)
			assert.Contains(t, msg.Error.Message, tt.message)
		})
	}
}

// TestHTTPToolArgumentsStayToolResults: arguments that are valid JSON
// but no object are the engine's refusal, as a tool result (§4.3 r8).
func TestHTTPToolArgumentsStayToolResults(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := httpServer(t, dir, nil)
	status, body := send(t, "POST", srv.URL+"/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"look","arguments":[1]}}`, nil)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"isError":true`)
	assert.Contains(t, body, `look: arguments must be a JSON object, got list of integer`)
	assert.NotRegexp(t, goWords, body)
}

// send is post with any HTTP method.
func send(t *testing.T, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}
