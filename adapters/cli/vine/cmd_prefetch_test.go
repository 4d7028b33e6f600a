// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// remoteForest is the fixture with two datasets under finance whose
// payloads are file:// URIs: one intact, one whose passport hash is wrong.
func remoteForest(t *testing.T) string {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	data, err := os.ReadFile(filepath.Join(dir, "finance", "ledger-2026.db"))
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	uris := map[string]string{}
	for _, name := range []string{"ledger.db", "stale.db"} {
		p := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		uris[name] = (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	}

	ctx := context.Background()
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	for _, n := range []struct{ id, uri, hash string }{
		{"finance/ledger-remote", uris["ledger.db"], hex.EncodeToString(sum[:])},
		{"finance/ledger-stale", uris["stale.db"], hex.EncodeToString(make([]byte, 32))},
	} {
		_, err := v.Plant(ctx, vine.NodeSpec{ID: n.id, Type: "dataset", Title: "Ledger " + filepath.Base(n.id), Parent: "finance/_index",
			Summary: "The cooperative ledger kept outside the forest and read through the payload cache.",
			Payload: n.uri, PayloadType: "sqlite", PayloadHash: n.hash}, vine.PlantOptions{})
		require.NoError(t, err)
	}
	return dir
}

func TestPrefetch(t *testing.T) {
	dir := remoteForest(t)
	code, stdout, stderr := runCLI(t, "", "prefetch", "finance", "--forest", dir, "--json")
	assert.Equal(t, exitFailure, code, "one payload failed: %s", stdout)
	assert.Contains(t, stderr, "prefetch: 2/2", "the progress bar ran")
	var res struct {
		Scope        string   `json:"scope"`
		Fetched      []string `json:"fetched"`
		AlreadyLocal int      `json:"already_local"`
		Errors       []string `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	assert.Equal(t, "finance", res.Scope)
	assert.Equal(t, []string{"finance/ledger-remote"}, res.Fetched)
	assert.Zero(t, res.AlreadyLocal)
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0], "finance/ledger-stale: ")
	assert.Contains(t, res.Errors[0], "payload_hash")

	code, stdout, _ = runCLI(t, "", "prefetch", "--forest", dir, "finance/ledger-remote")
	assert.Equal(t, exitOK, code, stdout)
	assert.Equal(t, "finance/ledger-remote: 0 fetched, 1 already local, 0 failed\n", stdout)

	code, stdout, _ = runCLI(t, "", "prefetch", "--forest", dir)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, "_index: 0 fetched, 1 already local, 1 failed\n")
	assert.Contains(t, stdout, "error finance/ledger-stale: ")
}

func TestPrefetchUsageAndRefusals(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	code, stdout, _ := runCLI(t, "", "prefetch", "--forest", dir, "finance")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "finance: 0 fetched, 0 already local, 0 failed\n", stdout, "local payloads are not prefetch's business")

	code, stdout, _ = runCLI(t, "", "prefetch", "--forest", dir, "nowhere")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, `"code":"E_NOT_FOUND"`)

	code, _, stderr := runCLI(t, "", "prefetch", "--forest", dir, "a", "b")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "at most one branch")
	code, _, stderr = runCLI(t, "", "prefetch", "finance")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--forest DIR is required")
}
