// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/gardener"
)

// sse writes server-sent events the way llama.cpp's server does, flushing
// after every write so the client sees a real stream.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, f: w.(http.Flusher)}
	s.f.Flush()
	return s
}

func (s *sse) raw(text string) {
	io.WriteString(s.w, text)
	s.f.Flush()
}

func (s *sse) data(v any) {
	b, _ := json.Marshal(v)
	s.raw("data: " + string(b) + "\n\n")
}

func (s *sse) delta(content string) {
	s.data(map[string]any{"model": "test-model", "object": "chat.completion.chunk",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}}})
}

func (s *sse) reasoning(text string) {
	s.data(map[string]any{"choices": []any{map[string]any{"index": 0,
		"delta": map[string]any{"reasoning_content": text}, "finish_reason": nil}}})
}

func (s *sse) finish(reason string) {
	s.data(map[string]any{"model": "test-model", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{},
		"finish_reason": reason}}, "usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 3}})
}

func (s *sse) done() { s.raw("data: [DONE]\n\n") }

// reply streams content in pieces, then the finish reason and [DONE].
func reply(reason string, pieces ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := startSSE(w)
		for _, p := range pieces {
			s.delta(p)
		}
		s.finish(reason)
		s.done()
	}
}

func newClient(t *testing.T, h http.Handler, opts ...Option) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, "test-model", opts...)
	require.NoError(t, err)
	return c
}

var hello = []gardener.Message{{Role: "user", Content: "hello"}}

func TestCompleteReadsAWholeStream(t *testing.T) {
	var got struct {
		path, auth, accept string
		body               map[string]any
	}
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.auth, got.accept = r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Accept")
		require.NoError(t, json.NewDecoder(r.Body).Decode(&got.body))
		reply("stop", "Hel", "lo, ", "forest.")(w, r)
	}))
	r, err := c.Complete(context.Background(), hello, 64)
	require.NoError(t, err)
	assert.Equal(t, &Reply{Content: "Hello, forest.", FinishReason: "stop", Model: "test-model",
		PromptTokens: 12, CompletionTokens: 3}, r)

	assert.Equal(t, "/v1/chat/completions", got.path)
	assert.Equal(t, "Bearer no-key", got.auth)
	assert.Equal(t, "text/event-stream", got.accept)
	assert.Equal(t, "test-model", got.body["model"])
	assert.Equal(t, true, got.body["stream"])
	assert.Equal(t, 0.1, got.body["temperature"])
	assert.Equal(t, float64(64), got.body["max_tokens"])
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "hello"}}, got.body["messages"])

	text, err := c.Chat(context.Background(), hello, 64)
	require.NoError(t, err)
	assert.Equal(t, "Hello, forest.", text)
}

func TestStreamVariantsThatAreStillWhole(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"CRLF line endings and keep-alive comments",
			": ping\r\n\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\r\n\r\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n", "ok"},
		{"usage chunk after the finish and id fields",
			"id: 1\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n" +
				"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", "ok"},
		{"a second choice is not this reply",
			"data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other\"}},{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { startSSE(w).raw(tt.body) }))
			r, err := c.Complete(context.Background(), hello, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Content)
		})
	}
}

// Every way a stream can fall short is a typed error and no reply.
func TestIncompleteStreamsAreErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		kind    error
		detail  string
	}{
		{"ends before [DONE]", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.delta("PATH notes/seed.txt\nse")
		}, ErrIncomplete, ""},
		{"finish reason but no [DONE]", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.delta("whole?")
			s.finish("stop")
		}, ErrIncomplete, ""},
		{"[DONE] without a finish reason", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.delta("whole?")
			s.done()
		}, ErrIncomplete, "without a finish_reason"},
		{"[DONE] without its blank line", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.delta("x")
			s.finish("stop")
			s.raw("data: [DONE]\n")
		}, ErrIncomplete, ""},
		{"last line without its newline", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.delta("x")
			s.finish("stop")
			s.raw("data: [DO")
		}, ErrIncomplete, ""},
		{"dropped socket", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.delta("PATH notes/seed.txt\nse")
			panic(http.ErrAbortHandler) // the server drops the connection mid-body
		}, ErrIncomplete, ""},
		{"malformed frame", func(w http.ResponseWriter, r *http.Request) {
			startSSE(w).raw("data: {\"choices\": [\n\n")
		}, ErrMalformed, "not a JSON chunk"},
		{"frame of the wrong shape", func(w http.ResponseWriter, r *http.Request) {
			startSSE(w).raw("data: {\"choices\": \"nope\"}\n\n")
		}, ErrMalformed, ""},
		{"llama.cpp error line", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.delta("par")
			s.raw("error: {\"code\":500,\"message\":\"context shift disabled\"}\n\n")
		}, ErrServer, "context shift disabled"},
		{"OpenAI error object", func(w http.ResponseWriter, r *http.Request) {
			startSSE(w).raw("data: {\"error\":{\"message\":\"slot unavailable\"}}\n\n")
		}, ErrServer, "slot unavailable"},
		{"neither an event stream nor JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html>proxy login</html>`)
		}, ErrMalformed, "expected text/event-stream or application/json"},
		{"JSON without a finish reason", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices":[{"message":{"content":"x"}}]}`)
		}, ErrMalformed, "without a finish_reason"},
		{"JSON that is not a completion", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices": "nope"}`)
		}, ErrMalformed, "not a JSON chat completion"},
		{"JSON error object", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"error":{"message":"slot unavailable"}}`)
		}, ErrServer, "slot unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.handler)
			r, err := c.Complete(context.Background(), hello, 0)
			require.Error(t, err)
			assert.Nil(t, r, "no partial reply")
			assert.ErrorIs(t, err, tt.kind)
			var se *StreamError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, "chat", se.Op)
			assert.Contains(t, err.Error(), tt.detail)
			assert.False(t, se.Timeout())

			text, err := c.Chat(context.Background(), hello, 0)
			assert.ErrorIs(t, err, tt.kind)
			assert.Empty(t, text)
		})
	}
}

// hangUntil blocks a handler until the client goes away or the test
// ends; the release runs before the server's Close, which waits for it.
func hangUntil(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
}

func TestIdleTimeouts(t *testing.T) {
	tests := []struct {
		name    string
		handler func(hang http.HandlerFunc) http.HandlerFunc
	}{
		{"before the headers", func(hang http.HandlerFunc) http.HandlerFunc { return hang }},
		{"mid-stream", func(hang http.HandlerFunc) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				s := startSSE(w)
				s.delta("PATH notes/seed.txt\nse")
				hang(w, r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(nil)
			t.Cleanup(srv.Close) // registered first, so it runs after the hang is released
			srv.Config.Handler = tt.handler(hangUntil(t))
			srv.Start()
			c, err := New(srv.URL, "test-model", WithIdleTimeout(80*time.Millisecond))
			require.NoError(t, err)
			start := time.Now()
			r, err := c.Complete(context.Background(), hello, 0)
			assert.Nil(t, r)
			require.ErrorIs(t, err, ErrIdle)
			var se *StreamError
			require.ErrorAs(t, err, &se)
			assert.True(t, se.Timeout())
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

// The limit is per read: a slow stream that keeps sending is not idle,
// however long it takes in total.
func TestIdleTimerIsPerRead(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := startSSE(w)
		for range 12 { // ~360 ms in all, never 250 ms silent
			time.Sleep(30 * time.Millisecond)
			s.raw(": keep-alive\n\n")
		}
		s.delta("slow but whole")
		s.finish("stop")
		s.done()
	}), WithIdleTimeout(250*time.Millisecond))
	r, err := c.Complete(context.Background(), hello, 0)
	require.NoError(t, err)
	assert.Equal(t, "slow but whole", r.Content)
}

func TestCallerCancellation(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	t.Cleanup(srv.Close)
	hang := hangUntil(t)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := startSSE(w)
		s.delta("x")
		hang(w, r)
	})
	srv.Start()
	c, err := New(srv.URL, "test-model")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.Complete(ctx, hello, 0)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, ErrIncomplete)
}

func TestTooLargeResponse(t *testing.T) {
	c := newClient(t, reply("stop", strings.Repeat("x", 4096)), WithMaxBytes(1024))
	_, err := c.Complete(context.Background(), hello, 0)
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestHTTPErrorStatus(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"the request exceeds the available context size"}}`, http.StatusBadRequest)
	}))
	_, err := c.Complete(context.Background(), hello, 0)
	var he *HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, http.StatusBadRequest, he.StatusCode)
	assert.Contains(t, he.Body, "exceeds the available context size")
	assert.Contains(t, err.Error(), "inference endpoint 400")
}

func TestLengthFinishIsTruncatedNotAnAnswer(t *testing.T) {
	c := newClient(t, reply("length", `{"summary": "Tide tables for Maré Alta, March 2026, with`))
	r, err := c.Complete(context.Background(), hello, 16)
	require.NoError(t, err, "a cut reply is still a complete stream")
	assert.True(t, r.Truncated)
	assert.Equal(t, "length", r.FinishReason)

	text, err := c.Chat(context.Background(), hello, 16)
	assert.Empty(t, text, "a truncated reply is never returned as an answer")
	require.ErrorIs(t, err, ErrTruncated)
	require.ErrorIs(t, err, gardener.ErrTruncated)
	var te *gardener.TruncatedError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, `{"summary": "Tide tables for Maré Alta, March 2026, with`, te.Partial)
}

func TestOtherFinishReasonsAreReported(t *testing.T) {
	c := newClient(t, reply("content_filter", "partial"))
	r, err := c.Complete(context.Background(), hello, 0)
	require.NoError(t, err)
	assert.Equal(t, "content_filter", r.FinishReason)
	assert.False(t, r.Truncated)
}

func TestReasoningIsStripped(t *testing.T) {
	tests := []struct {
		name      string
		handler   http.HandlerFunc
		content   string
		truncated bool
	}{
		{"think block split across deltas", reply("stop", "<thi", "nk>plan the reply</th", "ink>\n\nThe answer."),
			"The answer.", false},
		{"reasoning_content deltas", func(w http.ResponseWriter, r *http.Request) {
			s := startSSE(w)
			s.reasoning("let me think")
			s.delta("The answer.")
			s.finish("stop")
			s.done()
		}, "The answer.", false},
		{"template-opened block", reply("stop", "hidden plan</think>The answer."), "The answer.", false},
		{"unclosed block empties the reply", reply("stop", "<think>still thinking"), "", true},
		{"unclosed block cut by length", reply("length", "<think>still thinking"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.handler)
			r, err := c.Complete(context.Background(), hello, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.content, r.Content)
			assert.True(t, r.ReasoningStripped)
			assert.Equal(t, tt.truncated, r.Truncated)
		})
	}
}

func TestNewValidates(t *testing.T) {
	for _, tt := range []struct{ endpoint, model, want string }{
		{"http://127.0.0.1:8080", "m", "http://127.0.0.1:8080/v1"},
		{"http://127.0.0.1:8080/", "m", "http://127.0.0.1:8080/v1"},
		{"https://llm.example/openai/v1/", "m", "https://llm.example/openai/v1"},
	} {
		c, err := New(tt.endpoint, tt.model)
		require.NoError(t, err)
		assert.Equal(t, tt.want, c.Endpoint())
		assert.Equal(t, "m", c.Model())
	}
	for _, bad := range []struct{ endpoint, model string }{
		{"127.0.0.1:8080", "m"}, {"ftp://host/v1", "m"}, {"http:///v1", "m"}, {"http://host", " "},
	} {
		_, err := New(bad.endpoint, bad.model)
		assert.Error(t, err, bad)
	}
	_, err := New("http://host", "m", WithIdleTimeout(-1))
	assert.Error(t, err)
}

func TestConcurrentCompletions(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		reply("stop", fmt.Sprint("reply ", n))(w, r)
	}))
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			r, err := c.Complete(context.Background(), hello, 0)
			if err == nil && !strings.HasPrefix(r.Content, "reply ") {
				err = errors.New("unexpected content " + r.Content)
			}
			errs <- err
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}
