// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// ExtTools are the tools extensions contribute (spec 11 §8), which only
// the host can judge: a tool is published on the forests that enable its
// extension, so each key sees the union over the forests it reaches, and
// anonymous callers see none.
type ExtTools interface {
	// Menu lists the extension tools who may call, sorted by name.
	Menu(ctx context.Context, who *keys.Principal) []ExtTool
	// Call runs tool on forest for who with args. found is false when
	// who does not reach forest, the forest does not enable the tool's
	// extension, or no such tool exists: every one answers as an
	// unknown tool.
	Call(ctx context.Context, who *keys.Principal, tool, forest string, args json.RawMessage) (out json.RawMessage, found bool, err error)
}

// ExtTool is one contributed tool as a menu lists it.
type ExtTool struct {
	Name        string
	Description string
}

// extToolSchema is every extension tool's input: the forest, and the
// tool's own arguments, which its extension validates.
var extToolSchema = &jsonschema.Schema{Type: "object", Required: []string{"forest"},
	Properties: map[string]*jsonschema.Schema{
		"forest": {Type: "string", Description: "the forest; the tool is served only where its extension is enabled"},
		"args":   {Type: "object", Description: "the tool's own arguments"},
	}}

// extMenu is who's menu of extension tools; a call without a valid key
// sees none (the visibility filter fails closed).
func (s *server) extMenu(ctx context.Context, extra *sdk.RequestExtra) []ExtTool {
	if s.ext == nil {
		return nil
	}
	who, ok := s.caller(ctx, extra)
	if !ok || who == nil {
		return nil
	}
	return s.ext.Menu(ctx, who)
}

// withExtTools adds who's extension tools to a tools/list answer.
func (s *server) withExtTools(ctx context.Context, res sdk.Result, extra *sdk.RequestExtra) sdk.Result {
	list, ok := res.(*sdk.ListToolsResult)
	if !ok {
		return res
	}
	for _, t := range s.extMenu(ctx, extra) {
		list.Tools = append(list.Tools, &sdk.Tool{Name: t.Name, Title: t.Name, Description: t.Description,
			InputSchema: extToolSchema, OutputSchema: outputSchema(t.Name)})
	}
	return list
}

// unknownTool is the one answer of a tool this key may not call,
// whether it exists nowhere, on no forest the key reaches, or on a
// forest that does not enable it: its hint is the key's own menu.
func (s *server) unknownTool(ctx context.Context, name string, extra *sdk.RequestExtra) *sdk.CallToolResult {
	served := slices.Clone(s.tools)
	for _, t := range s.extMenu(ctx, extra) {
		served = append(served, t.Name)
	}
	slices.Sort(served)
	return refused(name, &vine.Error{Code: vine.ENotFound, Message: "unknown tool: " + name,
		Hint: "served tools: " + strings.Join(served, ", ")})
}

// callExtTool serves a contributed tool, or answers it as unknown.
func (s *server) callExtTool(ctx context.Context, call *sdk.CallToolRequest) *sdk.CallToolResult {
	name := call.Params.Name
	who, ok := s.caller(ctx, call.Extra)
	if !ok || s.ext == nil {
		return s.unknownTool(ctx, name, call.Extra)
	}
	var a struct {
		Forest string          `json:"forest"`
		Args   json.RawMessage `json:"args"`
	}
	if len(call.Params.Arguments) > 0 {
		if err := json.Unmarshal(call.Params.Arguments, &a); err != nil {
			return refused(name, &vine.Error{Code: vine.ESchema, Message: "arguments must be {forest, args}"})
		}
	}
	if len(a.Args) == 0 {
		a.Args = json.RawMessage("{}")
	}
	out, found, err := s.ext.Call(ctx, who, name, a.Forest, a.Args)
	switch {
	case !found:
		return s.unknownTool(ctx, name, call.Extra)
	case err != nil:
		return s.refuse(name, err)
	}
	return answered(name, out)
}
