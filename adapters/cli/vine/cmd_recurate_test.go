// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

type recurateJSON struct {
	Updated  []string `json:"updated"`
	Planned  int      `json:"planned"`
	Curation struct {
		LLMSummaries int `json:"llm_summaries"`
	} `json:"curation"`
}

func TestRecurateAliasesCommand(t *testing.T) {
	noModelEnv(t)
	dir := newCLIForest(t)
	code, _, errOut := runCLI(t, "", "adopt", sourceTree(t, map[string]string{"ops/7-cache.md": "# Cache\n\nWarm it."}), "--forest", dir)
	require.Equal(t, exitOK, code, errOut)
	cfg := filepath.Join(dir, "_meta", "gardener.yaml")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, append(data, []byte("aliases: {ops: OPS}\n")...), 0o644))
	code, out, errOut := runCLI(t, "", "recurate", "--forest", dir, "--derive", "aliases", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep recurateJSON
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, []string{"ops/7-cache"}, rep.Updated)
	assert.Contains(t, nodeFile(t, dir, "ops/7-cache").Aliases(), "OPS-7")
	code, out, _ = runCLI(t, "", "recurate", "--forest", dir, "--derive", "aliases")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "recurate aliases: 0 updated\n", out, "a second run changes nothing")
}

func TestRecurateScentCommand(t *testing.T) {
	noModelEnv(t)
	for _, streamed := range []bool{false, true} {
		dir := adoptedHarbour(t)
		srv := fakeChatServer(t, streamed, `{"summary": "Pier anchor guide: anchor code AN-4 and its use at the pier.", "tags": ["anchors"], "aliases": ["AN-4", "AN-9"]}`)
		t.Setenv(llmEndpointEnv, srv.URL) // the environment binds the model as the flags do
		t.Setenv(llmModelEnv, "fake")
		code, out, errOut := runCLI(t, "", "recurate", "--forest", dir, "--derive", "scent", "--json")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, errOut, "scent sends 2 documents to fake at "+srv.URL, "the bill comes first")
		var rep recurateJSON
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		assert.Equal(t, 2, rep.Planned)
		assert.Equal(t, 2, rep.Curation.LLMSummaries)
		anchors := nodeFile(t, dir, "harbour/anchors")
		assert.Equal(t, "Pier anchor guide: anchor code AN-4 and its use at the pier.", anchors.Summary())
		assert.Contains(t, anchors.Aliases(), "AN-4")
		assert.NotContains(t, anchors.Aliases(), "AN-9", "an alias must occur in the body")
		assert.NotContains(t, nodeFile(t, dir, "harbour/buoys").Aliases(), "AN-4", "nor in another's")
		noModelEnv(t)
	}
}

func TestRecurateCommandRefusals(t *testing.T) {
	noModelEnv(t)
	dir := adoptedHarbour(t)
	testforest.Unchanged(t, dir, func() {
		code, out, _ := runCLI(t, "", "recurate", "--forest", dir, "--derive", "scent")
		assert.Equal(t, exitFailure, code)
		assert.Contains(t, out, `"code":"E_SCHEMA"`)
		assert.Contains(t, out, "needs a bound model")
		code, out, _ = runCLI(t, "", "recurate", "--forest", dir, "--derive", "origin")
		assert.Equal(t, exitFailure, code)
		assert.Contains(t, out, `"code":"E_SCHEMA"`)
		assert.Contains(t, out, `accepted: [\"aliases\", \"scent\"]`)
		code, _, errOut := runCLI(t, "", "recurate", "--forest", dir)
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errOut, "--derive aliases or --derive scent")
	})
}
