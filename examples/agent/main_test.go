// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

// llamaServer speaks llama.cpp's streaming chat protocol: the reply to a
// request is picked by how many assistant turns it already holds, and
// streamed in two deltas, a finish reason with usage, and [DONE].
func llamaServer(t *testing.T, replies ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		text := replies[min(n, len(replies)-1)]
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		frame := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			f.Flush()
		}
		half := len(text) / 2
		for _, piece := range []string{text[:half], text[half:]} {
			frame(map[string]any{"model": "test-model", "choices": []any{map[string]any{"index": 0,
				"delta": map[string]any{"content": piece}, "finish_reason": nil}}})
		}
		frame(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{},
			"finish_reason": "stop"}}, "usage": map[string]any{"prompt_tokens": 900 + n, "completion_tokens": 20}})
		fmt.Fprint(w, "data: [DONE]\n\n")
		f.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAgentWalksAgainstALlamaServer(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := llamaServer(t,
		`<think>the pilot results node should say</think>{"tool":"locate","args":{"query":"Lighthouse pilot results"}}`,
		`{"tool":"pick","args":{"id":"projects/lighthouse/pilot-results"}}`,
		`{"tool":"answer","args":{"text":"212 night trips, zero incidents [projects/lighthouse/pilot-results]",`+
			`"answer_nodes":["projects/lighthouse/pilot-results"]}}`,
	)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--endpoint", srv.URL + "/v1", "How did the", "--model", "test-model",
		"Lighthouse pilot go?", "--forest", dir, "--hops", "4"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "212 night trips, zero incidents [projects/lighthouse/pilot-results]")
	assert.Contains(t, out, "Lighthouse pilot results [projects/lighthouse/pilot-results]")
	assert.Contains(t, out, "2 hops, 3 model calls, 2703+60 tokens")
	progress := stderr.String()
	assert.Contains(t, progress, `[hop 1/4] locate "Lighthouse pilot results" (ok,`)
	assert.Contains(t, progress, "[hop 2/4] pick projects/lighthouse/pilot-results (ok,")
}

func TestAgentJSON(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := llamaServer(t,
		`{"tool":"pick","args":{"id":"finance/nowhere"}}`,
		`{"tool":"answer","args":{"text":"I could not find it.","answer_nodes":[]}}`)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--endpoint", srv.URL, "--model", "m", "--forest", dir, "--json",
		"--hops", "2", "Where is nowhere?"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var res map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
	assert.Equal(t, "I could not find it.", res["answer"])
	hops := res["hops"].([]any)
	require.Len(t, hops, 1)
	assert.Equal(t, "E_NOT_FOUND", hops[0].(map[string]any)["out"].(map[string]any)["error"])
	assert.Contains(t, stderr.String(), "pick finance/nowhere (E_NOT_FOUND")
}

func TestAgentUsage(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--model", "m", "--forest", "f", "question"},
		{"--endpoint", "http://x", "--model", "m", "--forest", "f"},
		{"--no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &stdout, &stderr), "%v", args)
		assert.Empty(t, stdout.String())
		assert.True(t, strings.Contains(stderr.String(), "usage: agent") || strings.Contains(stderr.String(), "flag provided"),
			stderr.String())
	}
}

func TestAgentFailures(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--endpoint", "ftp://x", "--model", "m", "--forest", dir, "q"},
		&stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "endpoint must be an http(s) URL")

	stderr.Reset()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	code = run(context.Background(), []string{"--endpoint", down.URL, "--model", "m", "--forest", dir, "q"},
		&stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "answer failed")
}
