// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// withheld reports whether a method belongs to a family this server does
// not serve (spec 08 §4.4): exactly prompts/* and resources/*.
func withheld(method string) bool {
	return strings.HasPrefix(method, "prompts/") || strings.HasPrefix(method, "resources/")
}

// withhold is receiving middleware: withheld families answer JSON-RPC
// "method not found", and a call of an unknown tool answers, as a tool
// result, E_NOT_FOUND naming the served tools, where the SDK would answer
// a bare protocol error a model cannot read.
func (s *server) withhold(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if withheld(method) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
		}
		if call, ok := req.(*sdk.CallToolRequest); ok && call.Params != nil && !slices.Contains(s.tools, call.Params.Name) {
			if strings.HasPrefix(call.Params.Name, "x_") {
				return s.callExtTool(ctx, call), nil
			}
			return s.unknownTool(ctx, call.Params.Name, call.Extra), nil
		}
		res, err := next(ctx, method, req)
		if list, ok := req.(*sdk.ListToolsRequest); ok && err == nil {
			res = s.withExtTools(ctx, res, list.Extra)
		}
		return res, err
	}
}
