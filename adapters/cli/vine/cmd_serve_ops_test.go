// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

// TestServeOperability starts vine serve --http with the operator's
// flags: JSON logs with an access line per request, Prometheus metrics
// that move with calls, CORS for one origin, and a per-key rate limit.
func TestServeOperability(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--open",
			"--log-format", "json", "--log-level", "debug", "--access-log", "--metrics",
			"--cors-origin", "https://studio.example", "--rate-limit", "1", "--rate-burst", "3"},
			strings.NewReader(""), io.Discard, &log)
	}()
	base := strings.TrimSuffix(waitForURL(t, &log, done), "/mcp")
	do := func(method, path, body string, header map[string]string) *http.Response {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}

	pre := do(http.MethodOptions, "/v1/forests", "", map[string]string{
		"Origin": "https://studio.example", "Access-Control-Request-Method": "POST"})
	assert.Equal(t, "https://studio.example", pre.Header.Get("Access-Control-Allow-Origin"), "the named origin is allowed")

	statuses := map[int]int{}
	for range 6 {
		resp := do(http.MethodPost, "/v1/forests/mare-alta/look", `{"id":"operations/radio-schedule"}`,
			map[string]string{"X-Request-Id": "req-ops-1"})
		statuses[resp.StatusCode]++
		if resp.StatusCode == http.StatusTooManyRequests {
			assert.NotEmpty(t, resp.Header.Get("Retry-After"))
		}
	}
	assert.Positive(t, statuses[http.StatusOK])
	assert.Positive(t, statuses[http.StatusTooManyRequests], "the burst of 3 runs out: %v", statuses)

	resp, err := http.Get(base + "/v1/metrics")
	require.NoError(t, err)
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(metrics), "go_goroutines", "the Go collector is registered")
	assert.Regexp(t, `(?m)^vine_\S*look\S* [1-9]`, string(metrics), "a counter moved for look")

	cancel()
	assert.Equal(t, exitOK, <-done, log.String())
	var access int
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "every log line is JSON: %s", line)
		if rec["request_id"] == "req-ops-1" {
			access++
		}
	}
	assert.Equal(t, 6, access, "one access line per request, with the caller's request id")
}

func TestServeLogFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--log-level", "loud"},
		{"--log-format", "xml"},
		{"--metrics"}, // HTTP only
		{"--http", "127.0.0.1:0", "--open", "--rate-limit", "-1"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"serve", "--forest", t.TempDir()}, args...)...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "vine serve: --", "%v names the flag", args)
	}
}
