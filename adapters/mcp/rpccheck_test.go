// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckBody(t *testing.T) {
	tests := []struct {
		name, body string
		code       int64  // 0: passes
		id         string // the id the fault answers to; "" = none
		msg        string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, "", ""},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"ping"}`, 0, "", ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "", ""},
		{"response", `{"jsonrpc":"2.0","id":3,"result":{}}`, 0, "", ""},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`, 0, "", ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, 0, "", ""},
		{"tool call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"look","arguments":[1]}}`, 0, "", ""},

		{"truncated", `{"jsonrpc":"2.0","id":1,"method":`, jsonrpc.CodeParseError, "", "invalid JSON at offset 33: unexpected end of input"},
		{"empty", ``, jsonrpc.CodeParseError, "", "invalid JSON at offset 0: unexpected end of input"},
		{"not JSON", `not json`, jsonrpc.CodeParseError, "", "invalid JSON at offset 1: invalid character 'o'"},
		{"a string", `"ping"`, jsonrpc.CodeInvalidRequest, "", "a JSON-RPC message is an object (or a batch: a list of objects), got string"},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "", "empty batch"},
		{"batch of numbers", `[1]`, jsonrpc.CodeInvalidRequest, "", "batch item 0: batch item 0 is not an object, got integer"},
		{"batch with a bad item", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"no/such"}]`,
			jsonrpc.CodeMethodNotFound, "", `batch item 1: method not found: "no/such"`},
		{"old version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "1", `"jsonrpc" must be "2.0", got "1.0"`},
		{"no version", `{"id":1,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "1", `"jsonrpc" must be "2.0", got nothing`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", `"id" must be a string or an integer, got object`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "got number"},
		{"huge id", `{"jsonrpc":"2.0","id":123456789012345678901,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "within ±2^53"},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, jsonrpc.CodeInvalidRequest, "1", `"method" must be a string, got integer`},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"no/such"}`, jsonrpc.CodeMethodNotFound, "7", `method not found: "no/such"`},
		{"withheld family", `{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":5}}`, jsonrpc.CodeMethodNotFound, `"r"`, "method not found"},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/nope"}`, jsonrpc.CodeMethodNotFound, "", "method not found"},
		{"call without id", `{"jsonrpc":"2.0","method":"tools/list"}`, jsonrpc.CodeInvalidRequest, "", `tools/list is a request: it needs an "id"`},
		{"notification with id", `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`, jsonrpc.CodeInvalidRequest, "1", "send it without"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":1}`, jsonrpc.CodeInvalidRequest, "1", `needs "result" or "error"`},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, "", `a response needs "id"`},
		{"error not an object", `{"jsonrpc":"2.0","id":1,"error":"x"}`, jsonrpc.CodeInvalidRequest, "1", `"error" must be an object`},
		{"params a list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`, jsonrpc.CodeInvalidParams, "1", `"params" of tools/list must be an object, got list`},
		{"params a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`, jsonrpc.CodeInvalidParams, "1", "got string"},
		{"params missing", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, jsonrpc.CodeInvalidParams, "1", `tools/call needs "params", an object`},
		{"tool name a number", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, jsonrpc.CodeInvalidParams, "1",
			"params.name of tools/call must be a string, got integer"},
		{"protocol version a number", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`, jsonrpc.CodeInvalidParams, "1",
			"params.protocolVersion of initialize must be a string, got integer"},
		{"meta a list", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":[]}}`, jsonrpc.CodeInvalidParams, "1", "params._meta of ping must be an object"},
		{"progress token", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":true,"progress":1}}`,
			jsonrpc.CodeInvalidParams, "", "must be a string or an integer, got boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := checkBody([]byte(tt.body))
			if tt.code == 0 {
				assert.Nil(t, f)
				return
			}
			require.NotNil(t, f)
			assert.Equal(t, tt.code, f.code)
			assert.Equal(t, tt.id, string(f.id))
			assert.Contains(t, f.msg, tt.msg)
			assert.False(t, leaky(f.msg), f.msg)
		})
	}
}

// minimalParams are params each listed method accepts.
var minimalParams = map[string]string{
	"initialize":              `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`,
	"tools/call":              `{"name":"forests"}`,
	"logging/setLevel":        `{"level":"info"}`,
	"completion/complete":     `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}`,
	"subscriptions/listen":    `{}`,
	"notifications/progress":  `{"progressToken":1,"progress":1}`,
	"notifications/cancelled": `{"requestId":1}`,
}

// TestRPCMethodsAreTheSDKs pins rpcMethods against the SDK: each listed
// method, sent as the table says (id or none, params or none), gets past
// the SDK's own method check, never its plain "not handled".
func TestRPCMethodsAreTheSDKs(t *testing.T) {
	h := Handler(mustRegistry(t), nil)
	for name, m := range rpcMethods {
		t.Run(name, func(t *testing.T) {
			assert.False(t, withheld(name), "a withheld family is never listed")
			msg := map[string]any{"jsonrpc": "2.0", "method": name}
			if !m.notification {
				msg["id"] = 1
			}
			if p, ok := minimalParams[name]; ok {
				msg["params"] = json.RawMessage(p)
			}
			body, _ := json.Marshal(msg)
			require.Nil(t, checkBody(body), "the table's own shape passes the check")
			r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
			r.Host = "localhost"
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.NotContains(t, w.Body.String(), "not handled", "the SDK serves %s", name)
			assert.Contains(t, []int{http.StatusOK, http.StatusAccepted}, w.Code, w.Body.String())
		})
	}
}

// FuzzCheckBody: whatever arrives, checkBody either passes a body the
// SDK's decoder reads, or answers a standard JSON-RPC code with a message
// free of Go words, rendered as valid JSON.
func FuzzCheckBody(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"look","arguments":{"id":"a"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":1,"method":`, `[]`, `"x"`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
	} {
		f.Add([]byte(s))
	}
	codes := []int64{jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams}
	f.Fuzz(func(t *testing.T, body []byte) {
		fault := checkBody(body)
		if fault == nil {
			sdkReads(t, body)
			return
		}
		if !slices.Contains(codes, fault.code) || fault.msg == "" || leaky(fault.msg) {
			t.Fatalf("fault %+v for %q", fault, body)
		}
		if fault.id != nil && !json.Valid(fault.id) {
			t.Fatalf("id %q is not JSON", fault.id)
		}
		if !json.Valid(faultBody(fault)) {
			t.Fatalf("fault body %q is not JSON", faultBody(fault))
		}
	})
}

// sdkReads fails unless the SDK's decoder reads every message of body.
func sdkReads(t *testing.T, body []byte) {
	t.Helper()
	t2 := bytes.TrimSpace(body)
	msgs := []json.RawMessage{t2}
	if t2[0] == '[' {
		msgs = nil
		if err := json.Unmarshal(t2, &msgs); err != nil {
			t.Fatalf("passed batch %q does not decode: %v", body, err)
		}
	}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			t.Fatalf("passed %q, which the SDK refuses: %v", m, err)
		}
	}
}
