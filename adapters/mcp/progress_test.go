// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
	ans "github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/internal/testforest"
)

var registerWalker sync.Once

// walker answers every walk in three turns: a sniff, a pick, the answer.
var walker = ans.ModelFunc(func(_ context.Context, msgs []ans.Message, _ int) (*ans.Reply, error) {
	turns := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			turns++
		}
	}
	replies := []string{
		`{"tool":"sniff","args":{"terms":["2.5"]}}`,
		`{"tool":"pick","args":{"id":"projects/tidewatch/alert-thresholds"}}`,
		`{"tool":"answer","args":{"text":"Above 2.5 m [projects/tidewatch/alert-thresholds]","answer_nodes":["projects/tidewatch/alert-thresholds"]}}`,
	}
	return &ans.Reply{Content: replies[min(turns, len(replies)-1)]}, nil
})

// TestAnswerWalkSendsProgress: a client that gives a progress token sees
// one notification per hop, (n, budget, message), before the result; a
// client that gives none sees none.
func TestAnswerWalkSendsProgress(t *testing.T) {
	registerWalker.Do(func() {
		_, err := ans.Register(walker, nil)
		require.NoError(t, err)
	})
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })

	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(reg, nil).Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		},
	}).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.Contains(t, names, "answer", "a bound model's answer is listed")

	params := &sdk.CallToolParams{Name: "answer", Arguments: map[string]any{"question": "storm alert thresholds?", "hops": 4}}
	params.SetProgressToken("walk-7")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	body := answer(t, res)
	hops, _ := body["hops"].([]any)
	require.Len(t, hops, 2, "a sniff and a pick before the answer")
	// The server sends every notification before the result, but the
	// client SDK hands notifications to the handler on their own
	// goroutines, so one may still be on its way when CallTool returns.
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= 2
	}, 5*time.Second, 5*time.Millisecond, "one notification per hop")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 2, "one notification per hop, and no more")
	slices.SortFunc(got, func(a, b *sdk.ProgressNotificationParams) int { return cmp.Compare(a.Progress, b.Progress) })
	for i, p := range got {
		assert.Equal(t, "walk-7", p.ProgressToken)
		assert.InDelta(t, float64(i+1), p.Progress, 0)
		assert.InDelta(t, 4, p.Total, 0)
	}
	assert.Contains(t, got[1].Message, "pick projects/tidewatch/alert-thresholds")

	got = nil
	mu.Unlock()
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "answer", Arguments: map[string]any{"question": "storm alert thresholds?", "hops": 4}})
	mu.Lock()
	require.NoError(t, err)
	assert.Empty(t, got, "no token, no progress")
}
