// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestConcurrentCalls runs reads and writes side by side on one session
// (the SDK handles calls concurrently); run it with -race.
func TestConcurrentCalls(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, _ := serve(t, dir, nil, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			args := map[string]any{"query": "tide"}
			name := "locate"
			if i%4 == 0 {
				name, args = "plant", map[string]any{"node": map[string]any{
					"id": "operations/concurrent-" + string(rune('a'+i)), "type": "note", "title": "Concurrent",
					"summary": "Planted while reads run.", "parent": "operations/_index"}}
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
			if assert.NoError(t, err) {
				assert.False(t, res.IsError, res.Content)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkLocate compares a locate called on the engine with the same
// call through the MCP server over an in-memory transport: the difference
// is the adapter's and the SDK's cost per call.
func BenchmarkLocate(b *testing.B) {
	dir, _ := testforest.Fixture(b)
	reg, err := vine.NewRegistry(dir, &vine.Options{ReadOnly: true})
	require.NoError(b, err)
	b.Cleanup(func() { reg.Close() })
	args := json.RawMessage(`{"query": "storm surge at the breakwater", "k": 5}`)
	ctx := context.Background()

	b.Run("engine", func(b *testing.B) {
		v, err := reg.Forest(ctx, "")
		require.NoError(b, err)
		for b.Loop() {
			if _, err := v.Call(ctx, "locate", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		cs := connect(b, mcp.NewServer(reg, nil))
		for b.Loop() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "locate", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
