// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestStdioAnswersMalformedMessagesCleanly: over stdio, as over HTTP, a
// bad message gets a JSON-RPC error with a standard code and no Go type
// names, and a good one still reaches the server.
func TestStdioAnswersMalformedMessagesCleanly(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = NewServer(reg, nil).Run(ctx, StdioTransport(inR, outW))
		outW.Close()
	}()
	replies := bufio.NewScanner(outR)
	send := func(line string) map[string]any {
		t.Helper()
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
		done := make(chan bool, 1)
		go func() { done <- replies.Scan() }()
		select {
		case ok := <-done:
			require.True(t, ok, "no reply to %s", line)
		case <-time.After(10 * time.Second):
			t.Fatalf("no reply to %s", line)
		}
		text := replies.Text()
		for _, goWord := range []string{"*mcp.", "unmarshal", "json: cannot", "Go value"} {
			assert.NotContains(t, text, goWord, line)
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &m), text)
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	assert.Equal(t, float64(-32700), code(send(`{"jsonrpc": "2.0", "id": 1, "method": `)), "bad JSON")
	assert.Equal(t, float64(-32601), code(send(`{"jsonrpc": "2.0", "id": 2, "method": "no/such"}`)), "unknown method")
	assert.Equal(t, float64(-32602), code(send(`{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 7}}`)), "params of the wrong type")
	init := send(`{"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}`)
	assert.Nil(t, init["error"], "a good message still reaches the server")
	assert.True(t, strings.Contains(replies.Text(), `"serverInfo"`))
}
