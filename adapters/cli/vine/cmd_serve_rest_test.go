// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/studio"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestServeRESTBehindKeys issues a key with vine keys add, starts vine
// serve --http --keys on it, and uses REST and MCP on the one listener.
func TestServeRESTBehindKeys(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	code, out, stderr := runCLI(t, "", "keys", "add", "--keys", keysFile, "--label", "ops-bot", "--forest", "mare-alta",
		"--allow", "operations/", "--caps", "read,query")
	require.Equal(t, exitOK, code, stderr)
	var added struct {
		Secret, Prefix, SHA256 string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &added))
	require.Regexp(t, `^mk_[A-Za-z0-9_-]{43}$`, added.Secret)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log lockedBuffer
	done := make(chan int, 1)
	t.Setenv(readersEnv, "2")
	go func() {
		done <- run(ctx, []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--keys", keysFile},
			strings.NewReader(""), io.Discard, &log)
	}()
	mcpURL := waitForURL(t, &log, done)
	base := strings.TrimSuffix(mcpURL, "/mcp")

	get := func(path, key string) (int, http.Header, string) {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	post := func(path, key, body string) (int, http.Header, string) {
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}

	status, _, body := get("/v1/health", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"concurrency":{"readers":2,"model":8}`)
	assert.Contains(t, body, `"mcp":{"enabled":true,"host_allowed":true}`)

	status, _, _ = get("/v1/forests", "")
	assert.Equal(t, http.StatusUnauthorized, status)
	status, _, body = get("/v1/forests", added.Secret)
	assert.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, `"caps":["read","query"],"roots":["operations/_index"]`)

	status, h, body := post("/v1/forests/mare-alta/look", added.Secret, `{"id":"operations/radio-schedule"}`)
	assert.Equal(t, http.StatusOK, status, body)
	assert.Regexp(t, `^vine;dur=\d+\.\d{3}, host;dur=\d+\.\d{3}$`, h.Get("Server-Timing"))
	status, _, body = post("/v1/forests/mare-alta/look", added.Secret, `{"id":"concepts/tide"}`)
	assert.Equal(t, http.StatusNotFound, status, "outside the grant: %s", body)
	status, _, body = post("/v1/forests/mare-alta/graft", added.Secret, `{"id":"operations/radio-schedule","patch":{"set_frontmatter":{"title":"x"}}}`)
	assert.Equal(t, http.StatusForbidden, status, body)
	status, _, body = get("/v1/forests/mare-alta/payload/../../../etc/passwd", added.Secret)
	assert.Equal(t, http.StatusNotFound, status, "a path with .. is no endpoint, never a redirect: %s", body)

	// The Studio is served from the one binary, behind the one policy.
	page, err := http.NewRequest(http.MethodGet, base+"/f/mare-alta/read", nil)
	require.NoError(t, err)
	page.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(page)
	require.NoError(t, err)
	shell, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(shell), "<html")
	assert.Equal(t, studio.ContentSecurityPolicy(), resp.Header.Get("Content-Security-Policy"))
	status, h, _ = get("/v1/health", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "DENY", h.Get("X-Frame-Options"), "the API answers behind the same headers")

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: mcpURL, HTTPClient: &http.Client{Transport: keyed{added.Secret}}}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "look", Arguments: map[string]any{"id": "concepts/tide"}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "MCP sees through the same key")
	cs.Close()

	// Revoked while the server runs: refused within a couple of seconds.
	code, _, stderr = runCLI(t, "", "keys", "revoke", "--keys", keysFile, "--key", added.SHA256)
	require.Equal(t, exitOK, code, stderr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _, _ = get("/v1/forests", added.Secret)
		if status == http.StatusUnauthorized || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	assert.Equal(t, http.StatusUnauthorized, status, "a revocation takes effect without a restart")

	cancel()
	assert.Equal(t, exitOK, <-done, log.String())
}

// TestServeKeepsKeysWhenTheKeysFileBreaks breaks the keys file under a
// running server: the error is logged naming the file, and the key that
// worked keeps working instead of every caller getting 401.
func TestServeKeepsKeysWhenTheKeysFileBreaks(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	code, out, stderr := runCLI(t, "", "keys", "add", "--keys", keysFile, "--label", "bot", "--forest", "mare-alta",
		"--allow", "operations/")
	require.Equal(t, exitOK, code, stderr)
	var added struct{ Secret string }
	require.NoError(t, json.Unmarshal([]byte(out), &added))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--keys", keysFile, "--no-warm"},
			strings.NewReader(""), io.Discard, &log)
	}()
	base := strings.TrimSuffix(waitForURL(t, &log, done), "/mcp")
	forests := func() int {
		req, err := http.NewRequest(http.MethodGet, base+"/v1/forests", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+added.Secret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, forests())

	require.NoError(t, os.WriteFile(keysFile, []byte("keys: [half an edit"), 0o600))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), "keys file not reloaded") && time.Now().Before(deadline) {
		forests() // a request is what makes the store look at its file
		time.Sleep(100 * time.Millisecond)
	}
	assert.Contains(t, log.String(), "level=ERROR msg=\"keys file not reloaded")
	assert.Contains(t, log.String(), "file="+keysFile)
	assert.Equal(t, http.StatusOK, forests(), "the keys already loaded stay in force")

	cancel()
	assert.Equal(t, exitOK, <-done, log.String())
}

// TestServeRESTGuard starts vine serve --http --open --allow-host and
// checks that REST stands behind the same guard as MCP: the cross-site
// plant and the rebinding read of the finding are refused, and health
// still answers a foreign Host.
func TestServeRESTGuard(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--open", "--allow-host", "kb.example.org", "--no-warm"},
			strings.NewReader(""), io.Discard, &log)
	}()
	base := strings.TrimSuffix(waitForURL(t, &log, done), "/mcp")
	send := func(method, path, host string, header map[string]string, body string) (int, string) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Host = host
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	plant := `{"node":{"id":"concepts/csrf","type":"concept","title":"C","summary":"Planted cross-site.","parent":"concepts/_index"}}`
	testforest.Unchanged(t, dir, func() {
		status, body := send("POST", "/v1/forests/mare-alta/plant", "kb.example.org",
			map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, plant)
		assert.Equal(t, http.StatusForbidden, status, body)
		status, body = send("POST", "/v1/forests/mare-alta/plant", "kb.example.org", map[string]string{"Content-Type": "text/plain"}, plant)
		assert.Equal(t, http.StatusUnsupportedMediaType, status, body)
		status, body = send("POST", "/v1/forests/mare-alta/look", "evil.example",
			map[string]string{"Content-Type": "application/json"}, `{"id":"concepts/tide"}`)
		assert.Equal(t, http.StatusMisdirectedRequest, status)
		assert.NotContains(t, body, "Tide")
	})
	status, body := send("GET", "/v1/health", "evil.example", nil, "")
	assert.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, `"mcp":{"enabled":true,"host_allowed":false}`)
	status, body = send("POST", "/v1/forests/mare-alta/look", "kb.example.org",
		map[string]string{"Origin": "https://kb.example.org", "Content-Type": "application/json; charset=utf-8"}, `{"id":"concepts/tide"}`)
	assert.Equal(t, http.StatusOK, status, body)
	cancel()
	assert.Equal(t, exitOK, <-done, log.String())
}

type keyed struct{ key string }

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

func TestIngestRoots(t *testing.T) {
	served := t.TempDir()
	inside := filepath.Join(served, "kb")
	require.NoError(t, os.MkdirAll(inside, 0o755))
	docs := t.TempDir()
	roots, err := ingestRoots(docs+string(os.PathListSeparator), served)
	require.NoError(t, err)
	assert.Len(t, roots, 1)
	_, err = ingestRoots(filepath.Dir(served), served)
	assert.ErrorContains(t, err, "outside them", "an ancestor of the served directory is never a root")
	_, err = ingestRoots(served, served)
	assert.Error(t, err)
	_, err = ingestRoots(filepath.Join(docs, "missing"), served)
	assert.ErrorContains(t, err, "does not exist")
	roots, err = ingestRoots("", served)
	require.NoError(t, err)
	assert.Empty(t, roots)
}

func TestEnvInt(t *testing.T) {
	t.Setenv(readersEnv, "")
	assert.Equal(t, 4, envInt(readersEnv, 4))
	t.Setenv(readersEnv, "0")
	assert.Equal(t, 0, envInt(readersEnv, 4), "0 is the single lane")
	t.Setenv(readersEnv, "six")
	assert.Equal(t, 4, envInt(readersEnv, 4), "unparsable keeps the default")
	t.Setenv(readersEnv, "-2")
	assert.Equal(t, 4, envInt(readersEnv, 4))
}

func TestWarm(t *testing.T) {
	t.Setenv(warmEnv, "")
	assert.True(t, warm(serveConfig{}), "on by default")
	for _, off := range []string{"0", "false", "NO", " off "} {
		t.Setenv(warmEnv, off)
		assert.False(t, warm(serveConfig{}), off)
	}
	assert.True(t, warm(serveConfig{warmSet: true}), "an explicit flag beats the environment")
	t.Setenv(warmEnv, "")
	assert.False(t, warm(serveConfig{noWarm: true, warmSet: true}))
	c, ok := parseServe([]string{"--forest", "x", "--http", ":0", "--open", "--no-warm"}, io.Discard)
	require.True(t, ok)
	assert.True(t, c.noWarm && c.warmSet)
}
