// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

// TestCallBindsAnEmbedder: after canopy build, a call with the same
// embedder bound runs hybrid locate; without one it says why not.
func TestCallBindsAnEmbedder(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	code, _, errOut := runCLI(t, "", "canopy", "build", "--forest", dir, "--embedder", "hash", "--dim", "64")
	require.Equal(t, exitOK, code, errOut)
	hybrid := func(extra ...string) map[string]any {
		args := append([]string{"call", "locate", "--forest", dir, `{"query":"storm warning","hybrid":true}`}, extra...)
		code, out, errOut := runCLI(t, "", args...)
		require.Equal(t, exitOK, code, errOut)
		var res map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &res), out)
		return res
	}
	assert.Equal(t, "no-embedder", hybrid()["hybrid_reason"])
	bound := hybrid("--embedder", "hash", "--embed-dim", "64")
	assert.Equal(t, "active", bound["hybrid_reason"], "a bound embedder that matches the index fuses")
	mismatch := hybrid("--embedder", "hash", "--embed-model", "other", "--embed-dim", "64")
	assert.Equal(t, "model-mismatch", mismatch["hybrid_reason"])

	code, _, errOut = runCLI(t, "", "call", "locate", "--forest", dir, `{"query":"x"}`, "--embedder", "llamacpp")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--embed-endpoint")
}
