// SPDX-License-Identifier: Apache-2.0

package llamacpp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/budget"
)

// curatorServer is a fake OpenAI-compatible chat server that plays the
// model Curator's three parts, told apart by their system prompts:
// document scent, edge proposals and branch summaries. streamed picks
// server-sent events or one application/json completion.
type curatorServer struct {
	streamed bool
	scent    string // the reply to a document's scent request
	mu       sync.Mutex
	kinds    []string
}

func (f *curatorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []gardener.Message `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	system := req.Messages[0].Content
	var kind, reply string
	switch {
	case strings.Contains(system, "closed list of candidates"):
		kind, reply = "proposal", f.proposal(req.Messages[1].Content)
	case strings.Contains(system, "branch (a folder)"):
		kind, reply = "branch", `{"summary": "Harbour operations: tide tables and boat care for the pier crews."}`
	default:
		kind, reply = "scent", f.scent
	}
	f.mu.Lock()
	f.kinds = append(f.kinds, kind)
	f.mu.Unlock()
	f.write(w, reply)
}

// proposal links to the first candidate offered and to an id nobody
// offered.
func (f *curatorServer) proposal(user string) string {
	_, rest, ok := strings.Cut(user, "Candidates:\n- id: ")
	if !ok {
		return `{"related": []}`
	}
	id, _, _ := strings.Cut(rest, " |")
	return fmt.Sprintf(`{"related": [{"id": %q, "note": "same pier"}, {"id": "invented/node", "note": "not offered"}]}`, id)
}

func (f *curatorServer) write(w http.ResponseWriter, reply string) {
	content, _ := json.Marshal(reply)
	if !f.streamed {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"model":"fake","choices":[{"index":0,"message":{"content":%s},"finish_reason":"stop"}]}`, content)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	half := len(reply) / 2
	for _, part := range []string{reply[:half], reply[half:]} {
		chunk, _ := json.Marshal(part)
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", chunk)
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

func (f *curatorServer) count(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, k := range f.kinds {
		if k == kind {
			n++
		}
	}
	return n
}

// curatedForest is a new forest with a tide table adopted without a
// model, so edge proposals have a candidate.
func curatedForest(t *testing.T) *vine.Vine {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "forest")
	_, err := vine.Init(context.Background(), dir, "Harbour", nil)
	require.NoError(t, err)
	v, err := vine.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	_, err = gardener.New(v, nil).Adopt(context.Background(), sourceTree(t, map[string]string{
		"harbour/tides.md": "# Pier tide table\n\nPier tide table: high water times for the pier, March 2026.",
	}), "")
	require.NoError(t, err)
	return v
}

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

func readNode(t *testing.T, v *vine.Vine, id string) *forest.Node {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(v.Dir(), filepath.FromSlash(id)+forest.NodeExt))
	require.NoError(t, err)
	n, err := forest.Parse(id, data)
	require.NoError(t, err)
	return n
}

const (
	ropeScent = `{"summary": "Rope care at the pier: dry ropes after tide work, coil them under code RC-12.", ` +
		`"tags": ["ropes", "pier", "not a tag"], "aliases": ["RC-12", "RC-99"]}`
	longScent = `{"summary": "Rope care at the pier covering drying, coiling, inspection and storage of every mooring line. ` +
		`It names the code RC-12 and the weekly inspection of splices, whippings and chafe guards on all lines. ` +
		`Storage rules cover the shed, the racks and the rotation of spare lines through each season of the year."}`
)

func curatorModes(t *testing.T, run func(t *testing.T, streamed bool)) {
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[streamed], func(t *testing.T) { run(t, streamed) })
	}
}

// Adopt with the model Curator over a real client: the summary replaces
// the derived one, a tag breaking the rule is dropped, an alias absent
// from the body is dropped, a proposed id nobody offered is dropped.
func TestModelCuratorAdopt(t *testing.T) {
	curatorModes(t, func(t *testing.T, streamed bool) {
		srv := &curatorServer{streamed: streamed, scent: ropeScent}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		client, err := llamacpp.New(ts.URL, "fake")
		require.NoError(t, err)
		v := curatedForest(t)
		g := gardener.New(v, &gardener.Options{Curator: gardener.NewModelCurator(client)})
		rep, err := g.Adopt(context.Background(), sourceTree(t, map[string]string{
			"harbour/rope.md": "# Rope care\n\nDry the ropes after tide work at the pier; coil them. Code RC-12.",
		}), "")
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Curation.LLMSummaries)
		assert.Equal(t, 1, rep.Curation.LinksProposed)
		rope := readNode(t, v, "harbour/rope")
		assert.Equal(t, "Rope care at the pier: dry ropes after tide work, coil them under code RC-12.", rope.Summary())
		assert.Contains(t, rope.Tags(), "ropes")
		assert.NotContains(t, rope.Tags(), "not a tag")
		assert.Contains(t, rope.Aliases(), "RC-12")
		assert.NotContains(t, rope.Aliases(), "RC-99", "an alias must occur in the body")
		var targets []string
		for _, l := range rope.Links() {
			targets = append(targets, l.Target)
		}
		assert.Equal(t, []string{"harbour/tides"}, targets, "ids not offered are dropped")
		assert.Positive(t, srv.count("proposal"))
	})
}

// Rollup and recurate over a real client: the branch summary is the
// model's, the over-long scent is trimmed to the 60-token contract.
func TestModelCuratorRollupAndRecurate(t *testing.T) {
	curatorModes(t, func(t *testing.T, streamed bool) {
		srv := &curatorServer{streamed: streamed, scent: longScent}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		client, err := llamacpp.New(ts.URL, "fake")
		require.NoError(t, err)
		v := curatedForest(t)
		g := gardener.New(v, &gardener.Options{Curator: gardener.NewModelCurator(client)})

		roll, err := g.Rollup(context.Background(), gardener.RollupOptions{})
		require.NoError(t, err)
		assert.Equal(t, 1, roll.Curation.BranchRollups)
		assert.Equal(t, "Harbour operations: tide tables and boat care for the pier crews.", readNode(t, v, "harbour/_index").Summary())

		rec, err := g.Recurate(context.Background(), gardener.RecurateOptions{Derive: []string{"scent"}})
		require.NoError(t, err)
		assert.Equal(t, []string{"harbour/tides"}, rec.Updated)
		assert.Equal(t, 1, rec.Curation.Repaired)
		s := readNode(t, v, "harbour/tides").Summary()
		assert.LessOrEqual(t, budget.EstimateTokens(s), forest.SummaryMaxTokens, s)
		assert.True(t, strings.HasPrefix(s, "Rope care at the pier covering"), s)
		assert.Equal(t, 3, srv.count("scent"), "three attempts, then the repair")
	})
}
