// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/mcp"
)

// surface is one way a caller reaches the engine. call answers the body
// a caller reads: REST's response body, MCP's text block, the library's
// result or envelope rendered by the shared encoder. For the same call
// all three are the same bytes.
type surface struct {
	name string
	call func(t *testing.T, key, tool, args string) (refused bool, body string)
}

// surfaces are REST, MCP over streamable HTTP, and the library through
// vine.Scoped, all over the station's registry.
func (st *station) surfaces(t *testing.T, resolver keys.Resolver) []surface {
	t.Helper()
	if resolver == nil {
		resolver = testKeys()
	}
	return []surface{
		{"rest", func(t *testing.T, key, tool, args string) (bool, string) {
			r := st.post(key, tool, args)
			return r.status != http.StatusOK, r.body
		}},
		{"mcp", st.mcpSurface(t, resolver)},
		{"library", func(t *testing.T, key, tool, args string) (bool, string) {
			p, ok := resolver.Resolve(context.Background(), key)
			require.True(t, ok, "library callers are principals the host resolved")
			pol, granted := p.Policy(forestID)
			require.True(t, granted)
			v, err := st.reg.Forest(context.Background(), forestID)
			require.NoError(t, err)
			sc, err := v.Scoped(pol)
			require.NoError(t, err)
			out, err := sc.Call(context.Background(), tool, []byte(args))
			if err != nil {
				return true, string(wire.Refusal(tool, err))
			}
			if view, ok := out.(*vine.ViewResult); ok { // MCP sends a header and the image, never the path
				out = map[string]any{"id": view.ID}
			}
			b, err := wire.Encode(out)
			require.NoError(t, err)
			return false, string(b)
		}},
	}
}

// mcpSurface serves MCP over HTTP with the same keys and one client per
// key, each sending its key on every request.
func (st *station) mcpSurface(t *testing.T, resolver keys.Resolver) func(t *testing.T, key, tool, args string) (bool, string) {
	srv := httptest.NewServer(mcp.Handler(st.reg, &mcp.Options{Keys: resolver, AllowedHosts: []string{"*"}}))
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	clients := map[string]*sdk.ClientSession{}
	session := func(t *testing.T, key string) *sdk.ClientSession {
		mu.Lock()
		defer mu.Unlock()
		if cs, ok := clients[key]; ok {
			return cs
		}
		transport := &sdk.StreamableClientTransport{Endpoint: srv.URL,
			HTTPClient: &http.Client{Transport: bearer{key: key, next: http.DefaultTransport}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), transport, nil)
		require.NoError(t, err, "initialize needs no key")
		t.Cleanup(func() { cs.Close() })
		clients[key] = cs
		return cs
	}
	return func(t *testing.T, key, tool, args string) (bool, string) {
		res, err := session(t, key).CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		require.NoError(t, err, "a tool call never fails at the protocol level")
		require.NotEmpty(t, res.Content)
		text := res.Content[0].(*sdk.TextContent).Text
		if tool == "view" && !res.IsError {
			var head map[string]any
			require.NoError(t, json.Unmarshal([]byte(text), &head))
			b, _ := wire.Encode(map[string]any{"id": head["id"]})
			text = string(b)
		}
		return res.IsError, text
	}
}

// bearer sends a key with every request, when there is one.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.next.RoundTrip(r)
}

// refusalOf decodes an envelope body.
func refusalOf(t *testing.T, body string) map[string]any {
	t.Helper()
	var env map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &env), body)
	require.Contains(t, env, "error", body)
	return env["error"]
}

// visibleUnder reports what scopedPolicy lets its key see.
func visibleUnder(id string) bool {
	if strings.HasPrefix(id, "projects/lighthouse/") {
		return false
	}
	for _, p := range scopedPolicy.Allow {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}
