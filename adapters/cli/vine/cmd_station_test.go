// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestStationKeyAndGrants(t *testing.T) {
	reg := filepath.Join(t.TempDir(), "station.db")
	code, out, errOut := runCLI(t, "", "station", "key", "--registry", reg, "--principal", "svc-report",
		"--forest", "mare-alta", "--caps", "read,query")
	require.Equal(t, exitOK, code, errOut)
	assert.True(t, strings.HasPrefix(strings.TrimSpace(out), "mk_"), "the secret, printed once: %q", out)
	assert.Contains(t, errOut, "only its digest is kept")

	code, out, errOut = runCLI(t, "", "station", "grants", "--registry", reg, "--principal", "svc-report")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "mare-alta\t")
	assert.Contains(t, out, "query")

	code, _, errOut = runCLI(t, "", "station", "key", "--registry", reg, "--principal", "p", "--forest", "f", "--caps", "root")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "root")
	code, _, _ = runCLI(t, "", "station")
	assert.Equal(t, exitUsage, code)
}

func TestStationServeAnnouncesOpenSetup(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg := filepath.Join(t.TempDir(), "registry", "station.db")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"station", "serve", "--root", filepath.Dir(dir), "--registry", reg, "--port", "0"},
			strings.NewReader(""), &stdout, &stderr)
	}()
	require.Eventually(t, func() bool { return strings.Contains(stdout.String(), "setup is open") },
		10*time.Second, 20*time.Millisecond, "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "station: ")
	assert.Contains(t, stdout.String(), "http://127.0.0.1:")
	cancel()
	assert.Equal(t, exitOK, <-done, stderr.String())
}
