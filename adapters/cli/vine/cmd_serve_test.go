// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/payload"
)

// lockedBuffer is a stderr the server goroutine writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServeUsage(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	require.NoError(t, os.WriteFile(broken, []byte("keys:\n  - label: a\n    sha256: "+strings.Repeat("a", 64)+
		"\n    expires_at: 2099-01-01T00:00:00Z\n    grants: {acme: {allow: [sales/*], caps: [read]}}\n"), 0o600))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no forest", []string{"serve"}, exitUsage, "exactly one of --forest DIR or --forests DIR"},
		{"both", []string{"serve", "--forest", dir, "--forests", dir}, exitUsage, "exactly one"},
		{"allow-host without http", []string{"serve", "--forest", dir, "--allow-host", "a"}, exitUsage, "--http only"},
		{"stray argument", []string{"serve", "--forest", dir, "extra"}, exitUsage, `unexpected argument "extra"`},
		{"forests on a forest", []string{"serve", "--forests", dir}, exitFailure, "serve it with --forest"},
		{"forest on a plain directory", []string{"serve", "--forest", t.TempDir()}, exitFailure, "not a forest"},
		{"http without keys or open", []string{"serve", "--forest", dir, "--http", "127.0.0.1:0"}, exitUsage, "exactly one of --keys FILE"},
		{"http with keys and open", []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--open", "--keys", "k.yaml"}, exitUsage, "exactly one of --keys FILE"},
		{"keys on stdio", []string{"serve", "--forest", dir, "--keys", "k.yaml"}, exitUsage, "--http only"},
		{"missing keys file", []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--keys", filepath.Join(t.TempDir(), "none.yaml")}, exitFailure, "--keys"},
		{"keys file that does not parse", []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--keys", broken}, exitFailure,
			"--keys: " + broken + `: keys file: entry 1 (label "a"): grants.acme.allow "sales/*" is a glob`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

// TestServeStdio drives vine serve over its standard streams with the
// SDK client, as an agent host does.
func TestServeStdio(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"serve", "--forest", dir, "--read-only"}, inR, outW, &stderr)
		outW.Close()
	}()
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, len(vine.Signatures())+1)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "plant", Arguments: map[string]any{
		"node": map[string]any{"id": "operations/x", "type": "note", "title": "T", "summary": "A short valid summary.", "parent": "operations/_index"}}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, `"code":"E_READONLY"`)
	require.NoError(t, cs.Close())
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not end when the client hung up")
	}
}

// TestServeHTTP starts vine serve --http on a free port, talks to it with
// the SDK client, checks the Host guard, then stops it by cancelling.
func TestServeHTTP(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--forest", dir, "--http", "127.0.0.1:0", "--open"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	url := waitForURL(t, &stderr, done)

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "locate", Arguments: map[string]any{"query": "tide"}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	cs.Close()

	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
	require.NoError(t, err)
	req.Host = "rebound.example"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
	assert.Contains(t, string(body), `"code":"E_HOST_NOT_ALLOWED"`)
	assert.Contains(t, stderr.String(), "local only", "boot warns about a local-only allow-list")

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not shut down on cancel")
	}
	assert.Contains(t, stderr.String(), "shutting down")
}

var servingURL = regexp.MustCompile(`url"?[=:]"?(http://[^\s"]+/mcp)`)

func waitForURL(t *testing.T, stderr *lockedBuffer, done <-chan int) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingURL.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve never said where it listens: %s", stderr.String())
	return ""
}

func TestEffectiveHosts(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8800}
	t.Setenv(wire.HostsEnv, "")
	assert.Equal(t, []string{"localhost", "localhost:8800", "127.0.0.1", "127.0.0.1:8800", "[::1]", "[::1]:8800"},
		effectiveHosts(nil, addr))
	t.Setenv(wire.HostsEnv, "kb.example.org, kb.example.org:443")
	assert.Equal(t, []string{"kb.example.org", "kb.example.org:443"}, effectiveHosts(nil, addr))
	assert.Equal(t, []string{"flag.example"}, effectiveHosts([]string{"flag.example"}, addr), "the flag beats the environment")
}

func TestServeRegistryModeOverHTTP(t *testing.T) {
	root := t.TempDir()
	_, err := vine.Init(context.Background(), filepath.Join(root, "kb"), "KB", nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--forests", root, "--http", "127.0.0.1:0", "--allow-host", "*", "--open"},
			strings.NewReader(""), io.Discard, &stderr)
	}()
	url := waitForURL(t, &stderr, done)
	assert.Contains(t, stderr.String(), "checks are off", `boot warns about "*"`)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "look", Arguments: map[string]any{"id": "_index"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "parameter 'forest' is required")
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "look", Arguments: map[string]any{"id": "_index", "forest": "kb"}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	cs.Close()
	cancel()
	assert.Equal(t, exitOK, <-done)
}

func TestServeModelFlagsGoTogether(t *testing.T) {
	var stderr bytes.Buffer
	_, ok := parseServe([]string{"--forest", "x", "--model-endpoint", "http://127.0.0.1:8080"}, &stderr)
	assert.False(t, ok)
	assert.Contains(t, stderr.String(), "--model-endpoint and --model go together")
	c, ok := parseServe([]string{"--forest", "x", "--model-endpoint", "http://127.0.0.1:8080", "--model", "qwen"}, &stderr)
	require.True(t, ok)
	assert.Equal(t, "qwen", c.model)
}

// TestServedFetcherConfinesFileURIs: a served forest fetches file:// only
// below --file-root, and not at all without it.
func TestServedFetcherConfinesFileURIs(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "in.db"), []byte("inside"), 0o644))
	outside := filepath.Join(t.TempDir(), "out.db")
	require.NoError(t, os.WriteFile(outside, []byte("outside"), 0o644))

	off := servedFetcher("")
	var b bytes.Buffer
	err := off.Fetch(context.Background(), "file://"+filepath.ToSlash(filepath.Join(root, "in.db")), &b)
	var se *payload.SchemeError
	require.ErrorAs(t, err, &se, "no file:// without --file-root")
	assert.False(t, payload.Confined(off, "file"))

	on := servedFetcher(root)
	assert.True(t, payload.Confined(on, "file"))
	require.NoError(t, on.Fetch(context.Background(), "file://"+filepath.ToSlash(filepath.Join(root, "in.db")), &b))
	assert.Equal(t, "inside", b.String())
	err = on.Fetch(context.Background(), "file://"+filepath.ToSlash(outside), &b)
	assert.ErrorIs(t, err, fs.ErrNotExist, "outside the root reads as absent")

	_, ok := parseServe([]string{"--forest", root, "--file-root", filepath.Join(root, "missing")}, io.Discard)
	assert.False(t, ok, "a --file-root that is not a directory is refused at start")
}
