// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/internal/testforest"
)

const (
	pilot       = "projects/lighthouse/pilot-results"
	walkPick    = `{"tool":"pick","args":{"id":"projects/lighthouse/pilot-results"}}`
	walkAnswer  = `{"tool":"answer","args":{"text":"212 night trips, zero incidents","answer_nodes":["projects/lighthouse/pilot-results"]}}`
	judgeAnswer = "All explorers agree: 212 night trips and zero incidents [projects/lighthouse/pilot-results]."
)

// troopReply scripts every model role: walkers pick the pilot results
// then answer; the judge cites them.
func troopReply(msgs []answer.Message) string {
	if strings.HasPrefix(msgs[0].Content, "You judge") {
		return judgeAnswer
	}
	turns := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			turns++
		}
	}
	return []string{walkPick, walkAnswer}[min(turns, 1)]
}

// llamaServer speaks llama.cpp's streaming chat protocol with troopReply.
func llamaServer(t *testing.T, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []answer.Message `json:"messages"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		frame := func(v any) { b, _ := json.Marshal(v); fmt.Fprintf(w, "data: %s\n\n", b) }
		frame(map[string]any{"choices": []any{map[string]any{"index": 0,
			"delta": map[string]any{"content": troopReply(req.Messages)}}}})
		frame(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{},
			"finish_reason": "stop"}}, "usage": map[string]any{"prompt_tokens": 500, "completion_tokens": 25}})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestTroopAgainstALlamaServer(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	var calls atomic.Int32
	srv := llamaServer(t, &calls)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--endpoint", srv.URL, "--model", "m", "--forest", dir,
		"--policy", "none", "--n", "3", "--hops", "3", "--json", "How did the Lighthouse pilot go?"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var res Result
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))

	require.Len(t, res.Walkers, 3, "policy none sends every walker")
	entries := map[string]bool{}
	for _, w := range res.Walkers {
		entries[w.Entry] = true
		assert.True(t, w.Confident)
		assert.Equal(t, []string{pilot}, w.Evidence)
		assert.Equal(t, 1, w.Hops)
	}
	assert.Len(t, entries, 3, "distinct entry points")
	assert.Equal(t, 2, res.CacheServed, "the second and third pick came from the shared cache")
	assert.Equal(t, judgeAnswer, res.Answer)
	assert.Equal(t, []string{pilot}, res.Winners)
	assert.Equal(t, 1, res.Rounds)
	assert.Equal(t, 1, res.SoloHops)
	assert.Equal(t, int32(7), calls.Load(), "two turns per walker and one judge")
	assert.Equal(t, 7*525, res.Tokens)
	assert.Contains(t, stderr.String(), "[walker 3 hop 1] pick "+pilot+" ok=true")

	v, err := vine.Open(context.Background(), dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer v.Close()
	h, err := v.Trails().Heat(context.Background(), []string{pilot, "projects/lighthouse/_index"}, "")
	require.NoError(t, err)
	assert.InDelta(t, 0.1, h[pilot], 1e-9, "the winning trail earns persistent heat")
	assert.InDelta(t, 0.1, h["projects/lighthouse/_index"], 1e-9)
	var left int
	require.NoError(t, v.Trails().DB().QueryRow(`SELECT COUNT(*) FROM heat WHERE scope = ?`, res.Session).Scan(&left))
	assert.Zero(t, left, "the session scope is cleared")
}

func TestTroopStopsOnFirstConfidentAnswer(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	var calls atomic.Int32
	m := answer.ModelFunc(func(_ context.Context, msgs []answer.Message, _ int) (*answer.Reply, error) {
		calls.Add(1)
		return &answer.Reply{Content: troopReply(msgs), FinishReason: "stop"}, nil
	})
	a := answer.New(m, nil)
	defer a.Close()
	tr := &Troop{Forest: v, Answerer: a, Judge: m, N: 3, Hops: 2, Policy: StopFirst}
	res, err := tr.Hunt(ctx, "How did the Lighthouse pilot go?")
	require.NoError(t, err)
	assert.Len(t, res.Walkers, 1)
	assert.Equal(t, int32(3), calls.Load())
	assert.Equal(t, []string{pilot}, res.Winners)
}

func TestTroopWalkersShareSessionHeat(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	m := answer.ModelFunc(func(_ context.Context, msgs []answer.Message, _ int) (*answer.Reply, error) {
		return &answer.Reply{Content: troopReply(msgs), FinishReason: "stop"}, nil
	})
	a := answer.New(m, nil)
	defer a.Close()
	var seen []float64
	tr := &Troop{Forest: v, Answerer: a, Judge: m, N: 2, Hops: 2, Policy: StopNone,
		Progress: func(walker int, h answer.Hop) {
			var heat float64
			err := v.Trails().DB().QueryRow(`SELECT COALESCE(MAX(heat), 0) FROM heat WHERE scope LIKE 'troop-%' AND node_id = ?`,
				pilot).Scan(&heat)
			require.NoError(t, err)
			seen = append(seen, heat)
		}}
	_, err = tr.Hunt(ctx, "How did the Lighthouse pilot go?")
	require.NoError(t, err)
	assert.Equal(t, []float64{0.2, 0.4}, seen, "each walker's pick warms the node in the troop's session")
}

func TestTroopUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: troop")
	stderr.Reset()
	assert.Equal(t, 2, run(context.Background(), []string{"--endpoint", "http://x", "--model", "m", "--forest", "f",
		"--policy", "vote", "q"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "--policy must be first, quorum or none")
}
