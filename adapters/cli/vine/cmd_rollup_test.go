// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func adoptedHarbour(t *testing.T) string {
	t.Helper()
	dir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"harbour/anchors.md": "# Anchors\n\nAnchor code AN-4 for the pier.", "harbour/buoys.md": "# Buoys\n\nBuoy colours."})
	code, _, errOut := runCLI(t, "", "adopt", src, "--forest", dir)
	require.Equal(t, exitOK, code, errOut)
	return dir
}

func TestRollupCommand(t *testing.T) {
	noModelEnv(t)
	dir := adoptedHarbour(t)
	code, out, errOut := runCLI(t, "", "rollup", "--forest", dir, "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep struct{ Rolled, Fallbacks, Skipped int }
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 1, rep.Fallbacks, "no model: the region summary")
	assert.Equal(t, "Region 'harbour': Anchors, Buoys.", nodeFile(t, dir, "harbour/_index").Summary())

	for _, streamed := range []bool{false, true} {
		srv := fakeChatServer(t, streamed, "")
		code, out, errOut = runCLI(t, "", "rollup", "--forest", dir, "--model-endpoint", srv.URL, "--model", "fake")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "rollup: ")
		assert.Contains(t, errOut, "rollup: 1/1", "the progress bar")
		assert.Equal(t, "Harbour guides: anchors and buoys for the pier crews.", nodeFile(t, dir, "harbour/_index").Summary())
	}
}

func TestRollupCommandUsage(t *testing.T) {
	noModelEnv(t)
	dir := adoptedHarbour(t)
	testforest.Unchanged(t, dir, func() {
		code, _, errOut := runCLI(t, "", "rollup", "--forest", dir, "--model-endpoint", "http://127.0.0.1:1/v1")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errOut, "--model-endpoint needs --model NAME")
		code, _, errOut = runCLI(t, "", "rollup", "--forest", dir, "--model", "m")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errOut, "--model needs --model-endpoint")
		code, _, _ = runCLI(t, "", "rollup", "--forest", dir, "extra")
		assert.Equal(t, exitUsage, code)
	})
}
