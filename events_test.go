// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

// eventSink records what Options.OnEvent receives.
type eventSink struct {
	mu     sync.Mutex
	events []HookEvent
}

func (s *eventSink) on(e HookEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

func (s *eventSink) take() []HookEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}

func eventFixture(t *testing.T) (*Vine, *eventSink) {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	sink := &eventSink{}
	return openT(t, dir, &Options{Now: plantClock, OnEvent: sink.on}), sink
}

// TestWritesEmitTheContentEvents is 08 §11: each write emits its
// catalogue entries after it committed, with the rationed data and the
// principal its commit carries; a refusal emits nothing.
func TestWritesEmitTheContentEvents(t *testing.T) {
	v, sink := eventFixture(t)
	ctx := WithPrincipal(context.Background(), "ana")
	tests := []struct {
		name, primitive, args string
		want                  []string
		data                  map[string]any
		meta                  bool
	}{
		{"plant", "plant", `{"node": {"id": "finance/new-note", "type": "note", "title": "New", "summary": "A short valid summary.", "parent": "finance/_index", "body": "secret body text"}}`,
			[]string{EventNodePlanted}, map[string]any{"node": "finance/new-note", "type": "note", "parent": "finance/_index", "source": "agent"}, true},
		{"branch", "plant", `{"node": {"id": "finance/sub/_index", "type": "branch", "title": "Sub", "summary": "A short valid summary.", "parent": "finance/_index"}}`,
			[]string{EventNodePlanted, EventBranchCreated}, map[string]any{"node": "finance/sub/_index", "type": "branch", "parent": "finance/_index"}, true},
		{"dataset", "plant", `{"node": {"id": "finance/catch", "type": "dataset", "title": "Catch", "summary": "A short valid summary.", "parent": "finance/_index", "schema": {"c": {"columns": {"a": "TEXT"}}}, "rows": {"c": [["row text"]]}}}`,
			[]string{EventNodePlanted, EventDatasetCreated}, map[string]any{"node": "finance/catch", "type": "dataset"}, true},
		{"graft", "graft", `{"id": "finance/new-note", "patch": {"append_section": {"header": "More", "body": "graft body text"}}}`,
			[]string{EventNodeGrafted}, map[string]any{"node": "finance/new-note", "operations": []string{"append_section"}}, false},
		{"tend", "tend", `{"id": "finance/ledger-2026", "sql": "DELETE FROM ledger WHERE amount < -100000000"}`,
			[]string{EventDatasetChanged}, map[string]any{"node": "finance/ledger-2026", "rows_affected": int64(0)}, false}, // the passport's date moved: a commit
		{"tend rows", "tend", `{"id": "finance/catch", "sql": "INSERT INTO c VALUES ('x')"}`,
			[]string{EventDatasetChanged}, map[string]any{"node": "finance/catch", "rows_affected": int64(1)}, false},
		{"transplant", "transplant", `{"id": "finance/new-note", "new_id": "operations/new-note"}`,
			[]string{EventNodeTransplanted}, map[string]any{"node": "operations/new-note", "moved_from": "finance/new-note", "backlinks_rewritten": 0}, false},
		{"prune", "prune", `{"id": "operations/new-note"}`,
			[]string{EventNodePruned}, map[string]any{"node": "operations/new-note", "backlinks_removed": 0}, false},
		{"refused", "prune", `{"id": "_index"}`, nil, nil, false},
	}
	for _, tt := range tests {
		_, err := v.Call(ctx, tt.primitive, []byte(tt.args))
		if tt.name == "refused" {
			require.Error(t, err)
		} else {
			require.NoError(t, err, tt.name)
		}
		got := sink.take()
		require.Len(t, got, len(tt.want), tt.name)
		for i, e := range got {
			assert.Equal(t, tt.want[i], e.Name, tt.name)
			assert.Equal(t, "ana", e.Principal, tt.name)
			assert.Equal(t, v.root.Dir()[strings.LastIndex(v.root.Dir(), "/")+1:], e.Forest, tt.name)
			assert.False(t, e.At.IsZero(), tt.name)
			assert.Len(t, e.Data["commit"], 40, tt.name)
			for k, want := range tt.data {
				assert.Equal(t, want, e.Data[k], tt.name+" "+k)
			}
			assert.Equal(t, tt.meta, e.Meta != nil, tt.name)
			raw, err := json.Marshal(e.Data)
			require.NoError(t, err)
			assert.NotContains(t, string(raw), "text", tt.name+": no body, row or SQL text")
			assert.NotContains(t, string(raw), "DELETE", tt.name)
		}
	}
}

// TestPlantMetaIsTitleAndSummary: the metadata a plant held, nothing else.
func TestPlantMetaIsTitleAndSummary(t *testing.T) {
	v, sink := eventFixture(t)
	_, err := v.Call(context.Background(), "plant", []byte(`{"node": {"id": "finance/m", "type": "note", "title": "Title M", "summary": "A short valid summary.", "parent": "finance/_index"}}`))
	require.NoError(t, err)
	got := sink.take()
	require.Len(t, got, 1)
	assert.Equal(t, &EventMeta{Title: "Title M", Summary: "A short valid summary."}, got[0].Meta)
	assert.Equal(t, "", got[0].Principal, "a local call names no principal")
}

// TestEventHookRunsAfterTheWriterIsReleased: the hook may write to the
// same forest from inside itself (it would deadlock if it ran under the
// writer), and a panicking hook never fails the write.
func TestEventHookRunsAfterTheWriterIsReleased(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	var v *Vine
	var inner error
	hook := func(e HookEvent) {
		if e.Data["node"] == "finance/a" {
			_, inner = v.Call(context.Background(), "plant", []byte(`{"node": {"id": "finance/b", "type": "note", "title": "B", "summary": "A short valid summary.", "parent": "finance/_index"}}`))
		}
		if e.Data["node"] == "finance/b" {
			panic("hook failure")
		}
	}
	v = openT(t, dir, &Options{Now: plantClock, OnEvent: hook})
	_, err := v.Call(context.Background(), "plant", []byte(`{"node": {"id": "finance/a", "type": "note", "title": "A", "summary": "A short valid summary.", "parent": "finance/_index"}}`))
	require.NoError(t, err)
	require.NoError(t, inner, "a hook writing to the forest does not deadlock, and its panic fails nothing")
}
