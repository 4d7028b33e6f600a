// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp"
)

// sseReply serves one streamed completion the way llama.cpp does.
func sseReply(content, finish string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		frame := func(v any) { b, _ := json.Marshal(v); fmt.Fprintf(w, "data: %s\n\n", b) }
		frame(map[string]any{"model": "served-model", "choices": []any{map[string]any{"index": 0,
			"delta": map[string]any{"content": content}}}})
		frame(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{},
			"finish_reason": finish}}, "usage": map[string]any{"prompt_tokens": 321, "completion_tokens": 45}})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

func TestLlamaCppAdapter(t *testing.T) {
	for _, c := range []struct {
		name, content, finish string
		want                  turn
	}{
		{"whole", "<think>plan</think>The answer [a/b]", "stop",
			turn{text: "The answer [a/b]", finish: "stop", stripped: true, model: "served-model", prompt: 321, complete: 45}},
		{"cut", "The ans", "length",
			turn{text: "The ans", finish: "length", truncated: true, model: "served-model", prompt: 321, complete: 45}},
		{"unclosed reasoning", "<think>still going", "stop",
			turn{text: "", finish: "stop", truncated: true, stripped: true, model: "served-model", prompt: 321, complete: 45}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(sseReply(c.content, c.finish))
			defer srv.Close()
			client, err := llamacpp.New(srv.URL, "qwen3-4b")
			require.NoError(t, err)
			r, err := LlamaCpp(client).Complete(context.Background(), []Message{{Role: "user", Content: "q"}}, 64)
			require.NoError(t, err)
			assert.Equal(t, c.want, read(r))
		})
	}
}

func TestBindingNamesTheModel(t *testing.T) {
	client, err := llamacpp.New("http://127.0.0.1:1/v1", "qwen3-4b")
	require.NoError(t, err)
	a := New(LlamaCpp(client), &Options{Binding: Binding{Provider: "llamacpp"}})
	assert.Equal(t, Binding{Provider: "llamacpp", Model: "qwen3-4b", MaxTokens: DefaultMaxTokens}, a.Binding())
	b := New(LlamaCpp(client), &Options{Binding: Binding{Model: "alias", MaxTokens: 600, Reasoning: "on"}})
	assert.Equal(t, Binding{Model: "alias", MaxTokens: 600, Reasoning: "on"}, b.Binding(), "a named binding wins")
}
