// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
)

// An agent talks to a forest through an MCP client; here the client and
// the server share an in-memory transport. A refusal is a tool result
// the agent reads, not a protocol failure.
func ExampleNewServer() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "vine-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "kb")
	if _, err := vine.Init(ctx, dir, "Team knowledge", nil); err != nil {
		log.Fatal(err)
	}
	reg, err := vine.NewRegistry(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()

	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(reg, nil).Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Wait()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "look", Arguments: map[string]any{"id": "_index", "fields": []string{"title"}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*sdk.TextContent).Text)

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "look", Arguments: map[string]any{"id": 7}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// false {"id":"_index","title":"Team knowledge"}
	// true {"error":{"code":"E_SCHEMA","message":"look: parameter 'id' expects string|string[], got integer"}}
}

// Handler mounts beside other routes on one mux; list every Host name
// clients use to reach the server, with the port they send.
func ExampleHandler() {
	reg, err := vine.NewRegistry("forests", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.Handler(reg, &mcp.Options{AllowedHosts: []string{"localhost:8800", "kb.example.org"}}))
	log.Fatal(http.ListenAndServe("localhost:8800", mux))
}
