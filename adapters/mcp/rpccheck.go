// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/monkeyllm/vine/internal/jsonerr"
)

// The SDK answers a malformed JSON-RPC body with a plain-text 400 quoting
// its decoder ("unmarshaling jsonrpc message: json: …", "into a
// *mcp.CallToolParamsRaw"), and an unknown method with a plain-text 400.
// checkBody reads the envelope first, with the few rules the SDK applies,
// and words every failure as a JSON-RPC error with a standard code, in
// the caller's terms: nothing it says names a Go type.

// rpcFault is a JSON-RPC error the mount answers itself.
type rpcFault struct {
	id   json.RawMessage // the request's id as sent; nil when none is known
	code int64
	msg  string
}

// rpcMethod is what the envelope check knows of a method the SDK serves.
type rpcMethod struct {
	notification bool              // sent without an id
	params       bool              // params required
	fields       map[string]string // params field → wire type the SDK decodes it as
}

// meta is every method's optional _meta.
const meta = "_meta"

// rpcMethods are the methods the SDK's server receives (v1.8: its
// serverMethodInfos), with the fields whose types its decoder would
// otherwise refuse in Go words. The withheld families (prompts/*,
// resources/*) are left out, so they answer -32601 here as the
// receiving middleware answers them over stdio. A method missing here is
// answered -32601; a test pins every entry against the SDK.
var rpcMethods = map[string]rpcMethod{
	"initialize": {params: true, fields: map[string]string{
		"protocolVersion": "string", "capabilities": "object", "clientInfo": "object"}},
	"ping":                      {},
	"tools/list":                {fields: map[string]string{"cursor": "string"}},
	"tools/call":                {params: true, fields: map[string]string{"name": "string"}},
	"logging/setLevel":          {params: true, fields: map[string]string{"level": "string"}},
	"completion/complete":       {params: true, fields: map[string]string{"ref": "object", "argument": "object"}},
	"server/discover":           {},
	"subscriptions/listen":      {params: true},
	"notifications/initialized": {notification: true},
	"notifications/cancelled": {notification: true, fields: map[string]string{
		"requestId": "id", "reason": "string"}},
	"notifications/progress": {notification: true, params: true, fields: map[string]string{
		"progressToken": "id", "progress": "number", "total": "number", "message": "string"}},
	"notifications/roots/list_changed": {notification: true},
}

// checkBody validates a POST body: one JSON-RPC message or a batch of
// them. A faulty batch is refused whole, naming the item.
func checkBody(body []byte) *rpcFault {
	if err := jsonerr.Check(body); err != nil {
		return &rpcFault{code: jsonrpc.CodeParseError, msg: err.Error()}
	}
	t := bytes.TrimSpace(body)
	switch t[0] {
	case '{':
		return checkMessage(t)
	case '[':
		return checkBatch(t)
	}
	return invalid(nil, "a JSON-RPC message is an object (or a batch: a list of objects), got "+jsonerr.Kind(t))
}

func checkBatch(t []byte) *rpcFault {
	var items []json.RawMessage
	json.Unmarshal(t, &items) // valid JSON, and a list
	if len(items) == 0 {
		return invalid(nil, "empty batch: send at least one message")
	}
	for i, it := range items {
		f := invalid(nil, fmt.Sprintf("batch item %d is not an object, got %s", i, jsonerr.Kind(it)))
		if bytes.HasPrefix(it, []byte("{")) {
			f = checkMessage(it)
		}
		if f != nil {
			return &rpcFault{code: f.code, msg: fmt.Sprintf("batch item %d: %s", i, f.msg)}
		}
	}
	return nil
}

// checkMessage validates one message (an object): version, id, then a
// request's method and params, or a response's error.
func checkMessage(raw []byte) *rpcFault {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m) // valid JSON, and an object
	id, f := checkID(m["id"])
	if f != nil {
		return f
	}
	if v := m["jsonrpc"]; !bytes.Equal(v, []byte(`"2.0"`)) {
		return invalid(id, `"jsonrpc" must be "2.0", got `+shown(v))
	}
	method, isRequest := m["method"]
	if !isRequest {
		return checkResponse(id, m)
	}
	if jsonerr.Kind(method) != "string" {
		return invalid(id, `"method" must be a string, got `+jsonerr.Kind(method))
	}
	var name string
	json.Unmarshal(method, &name)
	return checkRequest(id, name, m["params"])
}

// checkID accepts what the SDK can echo back unchanged: a string or an
// integer (it reads numbers as float64, so 1.5 would come back as 1).
// null and absent are no id.
func checkID(v json.RawMessage) (json.RawMessage, *rpcFault) {
	switch k := jsonerr.Kind(v); k {
	case "nothing", "null":
		return nil, nil
	case "string":
		return v, nil
	case "integer":
		var n float64
		if json.Unmarshal(v, &n) == nil && math.Abs(n) < 1<<53 {
			return v, nil
		}
		return nil, invalid(nil, `"id" must be a string or an integer within ±2^53, got `+shown(v))
	default:
		return nil, invalid(nil, `"id" must be a string or an integer, got `+k)
	}
}

// checkResponse validates a message without a method: a client's answer
// to a server request, which needs an id and a result or an error object.
func checkResponse(id json.RawMessage, m map[string]json.RawMessage) *rpcFault {
	if id == nil {
		return invalid(nil, `a request needs "method"; a response needs "id"`)
	}
	e, hasErr := m["error"]
	if _, hasResult := m["result"]; !hasErr && !hasResult {
		return invalid(id, `a message without "method" is a response, and needs "result" or "error"`)
	}
	if !hasErr {
		return nil
	}
	var we struct {
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
	}
	if jsonerr.Kind(e) != "object" || json.Unmarshal(e, &we) != nil || jsonerr.Kind(we.Code) != "integer" ||
		(len(we.Message) > 0 && jsonerr.Kind(we.Message) != "string") {
		return invalid(id, `"error" must be an object with an integer "code" and a string "message"`)
	}
	return nil
}

// checkRequest validates a request's method and params against
// rpcMethods; the withheld families are not served at all.
func checkRequest(id json.RawMessage, name string, params json.RawMessage) *rpcFault {
	info, known := rpcMethods[name]
	if !known {
		return &rpcFault{id: id, code: jsonrpc.CodeMethodNotFound, msg: "method not found: " + shown(quoteJSON(name))}
	}
	if info.notification && id != nil {
		return invalid(id, name+` is a notification: send it without "id"`)
	}
	if !info.notification && id == nil {
		return invalid(nil, name+` is a request: it needs an "id"`)
	}
	return checkParams(id, name, info, params)
}

func checkParams(id json.RawMessage, name string, info rpcMethod, params json.RawMessage) *rpcFault {
	switch k := jsonerr.Kind(params); k {
	case "nothing", "null":
		if info.params {
			return badParams(id, name+` needs "params", an object`)
		}
		return nil
	case "object":
	default:
		return badParams(id, fmt.Sprintf(`"params" of %s must be an object, got %s`, name, k))
	}
	var p map[string]json.RawMessage
	json.Unmarshal(params, &p)
	if v, ok := p[meta]; ok && !fits(v, "object") {
		return badParams(id, fmt.Sprintf("params.%s of %s must be an object, got %s", meta, name, jsonerr.Kind(v)))
	}
	for field, want := range info.fields {
		if v, ok := p[field]; ok && !fits(v, want) {
			return badParams(id, fmt.Sprintf("params.%s of %s must be %s, got %s", field, name, article(want), jsonerr.Kind(v)))
		}
	}
	return nil
}

// fits reports whether v has the wire type the SDK decodes the field as;
// null is absent, as the decoder reads it. "id" is a request id or
// progress token: a string or an integer.
func fits(v json.RawMessage, want string) bool {
	k := jsonerr.Kind(v)
	switch {
	case k == "null" || k == want:
		return true
	case want == "number":
		return k == "integer"
	case want == "id":
		return k == "string" || k == "integer"
	}
	return false
}

func article(want string) string {
	switch want {
	case "id":
		return "a string or an integer"
	case "object", "integer":
		return "an " + want
	}
	return "a " + want
}

func invalid(id json.RawMessage, msg string) *rpcFault {
	return &rpcFault{id: id, code: jsonrpc.CodeInvalidRequest, msg: msg}
}

func badParams(id json.RawMessage, msg string) *rpcFault {
	return &rpcFault{id: id, code: jsonrpc.CodeInvalidParams, msg: msg}
}

// shown is a value the caller sent, bounded, for a message.
func shown(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if s == "" {
		return "nothing"
	}
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}

func quoteJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
