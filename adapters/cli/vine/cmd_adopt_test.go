// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// sourceTree writes a small document tree and returns its directory.
func sourceTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "source")
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// newCLIForest initialises an empty forest through the CLI.
func newCLIForest(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kb")
	code, out, _ := runCLI(t, "", "init", "--forest", dir, "--title", "Ingest test")
	require.Equal(t, exitOK, code, out)
	return dir
}

type cliReport struct {
	Planted      []string `json:"planted"`
	Branches     []string `json:"branches"`
	Updated      []string `json:"updated"`
	Unchanged    []string `json:"unchanged"`
	Stale        []string `json:"stale"`
	Unsupported  []string `json:"unsupported"`
	Errors       []string `json:"errors"`
	Consumed     []string `json:"consumed"`
	Drafts       []struct{ ID string }
	Mode         string  `json:"mode"`
	CommitBefore string  `json:"commit_before"`
	Commit       *string `json:"commit"`
	Preview      bool    `json:"preview"`
	Curation     map[string]any
}

func decodeReport(t *testing.T, out string) cliReport {
	t.Helper()
	var rep cliReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	return rep
}

func TestAdoptCommand(t *testing.T) {
	forestDir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"ops/a.md": "# A\n\nAbout anchors.", "ops/b.txt": "About buoys.", "x.xyz": "?"})
	digest := testforest.TreeDigest(t, forestDir)

	code, out, errOut := runCLI(t, "", "adopt", src, "--forest", forestDir, "--dry-run", "--json")
	assert.Equal(t, exitOK, code, errOut)
	rep := decodeReport(t, out)
	assert.True(t, rep.Preview)
	assert.Nil(t, rep.Commit, "a preview has no commit")
	assert.Len(t, rep.Drafts, 2)
	assert.Equal(t, digest, testforest.TreeDigest(t, forestDir), "a dry run writes nothing")

	code, out, errOut = runCLI(t, "", "adopt", "--forest", forestDir, src, "--dest", "inbox", "--json")
	assert.Equal(t, exitOK, code, errOut)
	rep = decodeReport(t, out)
	assert.Equal(t, "adopt", rep.Mode)
	assert.Equal(t, []string{"inbox/ops/a", "inbox/ops/b"}, rep.Planted)
	assert.Equal(t, []string{"inbox/_index", "inbox/ops/_index"}, rep.Branches)
	assert.Equal(t, []string{"x.xyz"}, rep.Unsupported)
	require.NotNil(t, rep.Commit)
	assert.NotEqual(t, rep.CommitBefore, *rep.Commit)
	assert.Contains(t, errOut, "adopt: 3/3", "the progress bar draws on stderr")

	code, out, _ = runCLI(t, "", "validate", "--forest", forestDir)
	assert.Equal(t, exitOK, code, out)

	// The human summary, and a refusal as an envelope.
	code, out, _ = runCLI(t, "", "adopt", src, "--forest", forestDir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "adopt: 0 planted, 0 branches, 0 updated, 2 unchanged")
	assert.Contains(t, out, "unsupported x.xyz")
	code, out, _ = runCLI(t, "", "adopt", src, "--forest", forestDir, "--dest", "a/b/c")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"code":"E_SCHEMA"`)
}

func TestAdoptUsage(t *testing.T) {
	for _, args := range [][]string{{"adopt"}, {"adopt", "--forest", "x"}, {"adopt", "a", "b", "--forest", "x"}, {"adopt", "src"}} {
		code, _, _ := runCLI(t, "", args...)
		assert.Equal(t, exitUsage, code, args)
	}
}

type curatedReport struct {
	Planted  []string              `json:"planted"`
	Bound    bool                  `json:"bound"`
	Curated  bool                  `json:"curated"`
	Rollup   *struct{ Rolled int } `json:"rollup"`
	Curation struct {
		LLMSummaries  int `json:"llm_summaries"`
		BranchRollups int `json:"branch_rollups"`
	} `json:"curation"`
}

func TestAdoptAndSyncCurate(t *testing.T) {
	noModelEnv(t)
	const scent = `{"summary": "Anchor guide for the pier: code AN-4 and holding ground.", "tags": ["anchors", "two words"], "aliases": ["AN-4", "AN-9"]}`
	for _, streamed := range []bool{false, true} {
		srv := fakeChatServer(t, streamed, scent)
		dir := newCLIForest(t)
		src := sourceTree(t, map[string]string{"harbour/anchors.md": "# Anchors\n\nAnchor code AN-4 for the pier."})
		code, out, errOut := runCLI(t, "", "adopt", src, "--forest", dir, "--curate", "--model-endpoint", srv.URL, "--model", "fake", "--json")
		require.Equal(t, exitOK, code, errOut)
		var rep curatedReport
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		assert.True(t, rep.Bound)
		assert.True(t, rep.Curated)
		assert.Equal(t, 1, rep.Curation.LLMSummaries)
		assert.Equal(t, 1, rep.Curation.BranchRollups, "the branch is rolled up after the batch")
		require.NotNil(t, rep.Rollup)
		anchors := nodeFile(t, dir, "harbour/anchors")
		assert.Equal(t, "Anchor guide for the pier: code AN-4 and holding ground.", anchors.Summary())
		assert.Equal(t, []string{"anchors"}, anchors.Tags(), "a tag breaking the rule is dropped")
		assert.Contains(t, anchors.Aliases(), "AN-4")
		assert.NotContains(t, anchors.Aliases(), "AN-9", "an alias must occur in the body")
		assert.Equal(t, "Harbour guides: anchors and buoys for the pier crews.", nodeFile(t, dir, "harbour/_index").Summary())

		require.NoError(t, os.WriteFile(filepath.Join(src, "harbour/buoys.md"), []byte("# Buoys\n\nBuoy code AN-4 too."), 0o644))
		code, out, errOut = runCLI(t, "", "sync", "--forest", dir, "--curate", "--model-endpoint", srv.URL, "--model", "fake", "--json")
		require.Equal(t, exitOK, code, errOut)
		rep = curatedReport{}
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		assert.Equal(t, []string{"harbour/buoys"}, rep.Planted)
		assert.Equal(t, 1, rep.Curation.LLMSummaries, "sync curates the new document only")
		assert.Equal(t, "Anchor guide for the pier: code AN-4 and holding ground.", nodeFile(t, dir, "harbour/buoys").Summary())
	}
}

func TestAdoptCurateUsage(t *testing.T) {
	noModelEnv(t)
	dir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"a.md": "# A\n\nText."})
	testforest.Unchanged(t, dir, func() {
		code, _, errOut := runCLI(t, "", "adopt", src, "--forest", dir, "--curate")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errOut, "--curate needs --model-endpoint URL --model NAME")
		code, _, errOut = runCLI(t, "", "sync", "--forest", dir, "--model-endpoint", "http://127.0.0.1:1/v1", "--model", "m")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errOut, "add --curate")
	})
}

// fakeChatServer is an OpenAI-compatible chat server on 127.0.0.1 that
// answers a branch summary to the rollup prompt, nothing to edge
// proposals and scent to everything else; streamed picks server-sent
// events over one JSON completion.
func fakeChatServer(t *testing.T, streamed bool, scent string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		reply := scent
		switch system := req.Messages[0].Content; {
		case strings.Contains(system, "branch (a folder)"):
			reply = `{"summary": "Harbour guides: anchors and buoys for the pier crews."}`
		case strings.Contains(system, "closed list of candidates"):
			reply = `{"related": []}`
		}
		content, _ := json.Marshal(reply)
		if !streamed {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"content":%s},"finish_reason":"stop"}]}`, content)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", content)
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// noModelEnv clears the chat model environment for the test.
func noModelEnv(t *testing.T) {
	t.Setenv(llmEndpointEnv, "")
	t.Setenv(llmModelEnv, "")
	t.Setenv(llmAPIKeyEnv, "")
}

func nodeFile(t *testing.T, dir, id string) *forest.Node {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt))
	require.NoError(t, err)
	n, err := forest.Parse(id, data)
	require.NoError(t, err)
	return n
}
