// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/internal/testforest"
)

func canopyJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	return m
}

func TestCanopyBuildStatusRefresh(t *testing.T) {
	t.Setenv(canopy.EnvEndpoint, "")
	dir, man := testforest.Fixture(t)
	nodes := float64(len(man.Nodes))

	code, out, _ := runCLI(t, "", "canopy", "status", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	st := canopyJSON(t, out)
	assert.Equal(t, "no-embedder", st["state"])
	assert.Nil(t, st["index_model"])
	assert.Nil(t, st["query_model"])

	code, out, errOut := runCLI(t, "", "canopy", "build", "--forest", dir, "--embedder", "hash", "--dim", "64")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Equal(t, map[string]any{"nodes": nodes, "model": "hash", "dim": 64.0}, canopyJSON(t, out))
	assert.Contains(t, errOut, "canopy build", "progress goes to stderr")

	code, out, _ = runCLI(t, "", "canopy", "--embedder", "hash", "--dim", "64", "status", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	assert.Equal(t, map[string]any{"state": "active", "active": true, "index_model": "hash", "query_model": "hash",
		"vectors": nodes, "stale": 0.0}, canopyJSON(t, out), "flags and the action interleave")

	code, out, _ = runCLI(t, "", "canopy", "status", "--forest", dir, "--embedder", "hash", "--dim", "32")
	require.Equal(t, exitOK, code)
	assert.Equal(t, "model-mismatch", canopyJSON(t, out)["state"], "same name, another dimension")

	code, out, _ = runCLI(t, "", "canopy", "refresh", "--forest", dir, "--embedder", "hash", "--dim", "64")
	require.Equal(t, exitOK, code, out)
	ref := canopyJSON(t, out)
	assert.Equal(t, 0.0, ref["refreshed"])
	assert.Equal(t, "active", ref["state"])
}

func TestCanopyRefusalsAndUsage(t *testing.T) {
	t.Setenv(canopy.EnvEndpoint, "")
	dir, _ := testforest.Fixture(t)
	digest := testforest.TreeDigest(t, dir)

	code, out, _ := runCLI(t, "", "canopy", "build", "--forest", dir)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `{"error":{"code":"E_SCHEMA"`)
	assert.Contains(t, out, "no embedder")
	code, out, _ = runCLI(t, "", "canopy", "refresh", "--forest", dir, "--embedder", "hash")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, "no-index")
	assert.Equal(t, digest, testforest.TreeDigest(t, dir), "refusals leave the forest as it was")

	for _, args := range [][]string{
		{"canopy", "--forest", dir},
		{"canopy", "rebuild", "--forest", dir},
		{"canopy", "build", "status", "--forest", dir},
		{"canopy", "build"},
		{"canopy", "build", "--forest", dir, "--embedder", "openai"},
		{"canopy", "build", "--forest", dir, "--embedder", "hash", "--dim", "0"},
		{"canopy", "build", "--forest", dir, "--embedder", "llamacpp"},
		{"canopy", "build", "--forest", dir, "--endpoint", "http://localhost:1"},
	} {
		code, _, errOut := runCLI(t, "", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.NotEmpty(t, errOut, "%v says why", args)
	}
}

// embeddingsServer answers OpenAI-compatible /embeddings requests with a
// vector per input derived from its length.
func embeddingsServer(t *testing.T, requests *atomic.Int64) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			data[i] = map[string]any{"index": i, "embedding": []float64{float64(len(in)), 1, 2}}
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data, "model": req.Model})
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestCanopyLlamacppEmbedder(t *testing.T) {
	dir, man := testforest.Fixture(t)
	var requests atomic.Int64
	ts := embeddingsServer(t, &requests)

	code, out, errOut := runCLI(t, "", "canopy", "build", "--forest", dir, "--embedder", "llamacpp", "--endpoint", ts.URL+"/v1")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Equal(t, map[string]any{"nodes": float64(len(man.Nodes)), "model": canopy.DefaultModel, "dim": 3.0}, canopyJSON(t, out))
	assert.Equal(t, int64((len(man.Nodes)+31)/32), requests.Load(), "batches of 32")

	// The environment names the server when no flag does.
	t.Setenv(canopy.EnvEndpoint, ts.URL+"/v1")
	t.Setenv(canopy.EnvModel, "")
	code, out, _ = runCLI(t, "", "canopy", "status", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	st := canopyJSON(t, out)
	assert.Equal(t, canopy.DefaultModel, st["query_model"])
	assert.Equal(t, "active", st["state"])
}
