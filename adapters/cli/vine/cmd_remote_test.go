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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/gittest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// remote set, push, clone, pull and --prefer from the command line, over
// an HTTP remote whose token comes from the environment.
func TestRemoteCommands(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	bare := gittest.Bare(t)
	srv := gittest.NewServer(t, filepath.Dir(bare))
	srv.Token = "cli-token"
	url := srv.RepoURL(filepath.Base(bare))
	t.Setenv(gitTokenEnv, srv.Token)

	code, out, errOut := runCLI(t, "", "remote", "set", "origin", url, "--forest", dir)
	require.Equal(t, exitOK, code, out+errOut)
	code, out, _ = runCLI(t, "", "remote", "--forest", dir, "--json")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, url)
	code, out, errOut = runCLI(t, "", "push", "--forest", dir, "--json")
	require.Equal(t, exitOK, code, out+errOut)

	replica := filepath.Join(t.TempDir(), "replica")
	code, out, errOut = runCLI(t, "", "clone", url, replica, "--json")
	require.Equal(t, exitOK, code, out+errOut)
	var cloned struct {
		Nodes           int      `json:"nodes"`
		PayloadsMissing []string `json:"payloads_missing"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &cloned))
	assert.Positive(t, cloned.Nodes)
	assert.Contains(t, cloned.PayloadsMissing, "finance/ledger-2026")
	cfg, err := os.ReadFile(filepath.Join(replica, ".git", "config"))
	require.NoError(t, err)
	assert.NotContains(t, string(cfg), srv.Token, "the token is never stored")

	code, out, _ = runCLI(t, "", "call", "plant", "--forest", dir,
		`{"node": {"id": "operations/cli-remote", "type": "note", "title": "CLI remote", "summary": "Planted to travel through push and pull.", "parent": "operations/_index"}}`)
	require.Equal(t, exitOK, code, out)
	code, out, errOut = runCLI(t, "", "push", "--forest", dir)
	require.Equal(t, exitOK, code, out+errOut)
	code, out, errOut = runCLI(t, "", "pull", "--forest", replica, "--json")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"fast-forward"`)
	assert.Contains(t, out, "operations/cli-remote")

	code, out, _ = runCLI(t, "", "pull", "--forest", replica, "--prefer", "sideways")
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, out, "E_SCHEMA")
}

// serve --follow clones the origin into --forest, serves it read-only,
// follows pushes, and reports the origin in health.
func TestServeFollowsAnOrigin(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	bare := gittest.Bare(t)
	url := gittest.FileURL(bare)
	code, out, errOut := runCLI(t, "", "remote", "set", "origin", url, "--forest", dir)
	require.Equal(t, exitOK, code, out+errOut)
	code, out, errOut = runCLI(t, "", "push", "--forest", dir)
	require.Equal(t, exitOK, code, out+errOut)

	replica := filepath.Join(t.TempDir(), "replica")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--forest", replica, "--follow", url, "--every", "50ms",
			"--http", "127.0.0.1:0", "--open"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	mcpURL := waitForURL(t, &stderr, done)
	base := strings.TrimSuffix(mcpURL, "/mcp")

	code, out, _ = runCLI(t, "", "call", "plant", "--forest", dir,
		`{"node": {"id": "operations/followed", "type": "note", "title": "Followed", "summary": "Planted on the origin for the served replica.", "parent": "operations/_index"}}`)
	require.Equal(t, exitOK, code, out)
	code, out, errOut = runCLI(t, "", "push", "--forest", dir, "--json")
	require.Equal(t, exitOK, code, out+errOut)
	var pushed struct {
		Commit string `json:"commit"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &pushed))

	var health struct {
		Writable bool `json:"writable"`
		Origin   *struct {
			Commit string `json:"commit"`
			Head   string `json:"head"`
		} `json:"origin"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/v1/health")
		require.NoError(t, err)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&health))
		resp.Body.Close()
		if health.Origin != nil && health.Origin.Head == pushed.Commit {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NotNil(t, health.Origin, stderr.String())
	assert.Equal(t, pushed.Commit, health.Origin.Commit)
	assert.Equal(t, pushed.Commit, health.Origin.Head, "the replica caught up: %s", stderr.String())
	assert.False(t, health.Writable, "a replica serves reads only")

	resp, err := http.Post(base+"/v1/forests/replica/look", "application/json", strings.NewReader(`{"id": "operations/followed"}`))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not shut down on cancel")
	}
}

// A replica that records another origin is not silently followed.
func TestServeFollowRefusesAnotherOrigin(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	code, out, errOut := runCLI(t, "", "remote", "set", "origin", gittest.FileURL(gittest.Bare(t)), "--forest", dir)
	require.Equal(t, exitOK, code, out+errOut)
	code, out, _ = runCLI(t, "", "serve", "--forest", dir, "--follow", gittest.FileURL(gittest.Bare(t)))
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, out, "does not record")
}
