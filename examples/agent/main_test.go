// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// llamaServer streams replies[n] to a request holding n assistant
// turns, with usage that grows by one prompt token a turn.
func llamaServer(t *testing.T, replies ...string) *llamacpptest.Server {
	t.Helper()
	srv := llamacpptest.NewServer(llamacpptest.Script(replies...))
	srv.Model = "test-model"
	srv.Usage = func(r llamacpptest.Request, _ string) (int, int) { return 900 + r.Turn(), 20 }
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
