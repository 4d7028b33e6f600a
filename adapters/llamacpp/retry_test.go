// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loading answers 503 as llama.cpp does while it loads a model, n times,
// then hands over to next.
func loading(n int32, calls *atomic.Int32, next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= n {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
			return
		}
		next.ServeHTTP(w, r)
	}
}

func TestRetriesA503ThenAnswers(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, loading(2, &calls, reply("stop", "Hel", "lo")), WithRetries(3, time.Millisecond))
	r, err := c.Complete(context.Background(), hello, 0)
	require.NoError(t, err)
	assert.Equal(t, "Hello", r.Content)
	assert.Equal(t, int32(3), calls.Load(), "503 twice, then 200")

	var embedCalls atomic.Int32
	e := newClient(t, loading(2, &embedCalls, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]}]}`)
	})), WithRetries(3, time.Millisecond))
	vecs, err := e.Embed(context.Background(), []string{"a"})
	require.NoError(t, err, "embeddings are retried too")
	assert.Len(t, vecs, 1)
	assert.Equal(t, int32(3), embedCalls.Load())
}

func TestRetriesAreBounded(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, loading(100, &calls, reply("stop", "x")), WithRetries(2, time.Millisecond))
	_, err := c.Complete(context.Background(), hello, 0)
	var he *HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, http.StatusServiceUnavailable, he.StatusCode)
	assert.Equal(t, int32(3), calls.Load(), "one try and two retries")

	calls.Store(0)
	none := newClient(t, loading(100, &calls, reply("stop", "x")), WithRetries(0, 0))
	_, err = none.Complete(context.Background(), hello, 0)
	require.ErrorAs(t, err, &he)
	assert.Equal(t, int32(1), calls.Load(), "WithRetries(0) never retries")
}

func TestOtherStatusesAreNotRetried(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "bad", http.StatusBadRequest)
	}), WithRetries(3, time.Millisecond))
	_, err := c.Complete(context.Background(), hello, 0)
	require.Error(t, err)
	assert.Equal(t, int32(1), calls.Load())
}

func TestRetryHonoursTheContext(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, loading(100, &calls, reply("stop", "x")), WithRetries(5, time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Complete(ctx, hello, 0)
	var he *HTTPError
	require.ErrorAs(t, err, &he, "the last failure says why")
	assert.Less(t, time.Since(start), 5*time.Second, "no wait outlives the caller")
	assert.Equal(t, int32(1), calls.Load())
}

func TestRetryAfterIsHonoured(t *testing.T) {
	var calls atomic.Int32
	var gap atomic.Int64
	var last atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		if prev := last.Swap(now); prev != 0 {
			gap.Store(now - prev)
		}
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		reply("stop", "ok")(w, r)
	})
	c := newClient(t, h, WithRetries(1, time.Millisecond))
	_, err := c.Complete(context.Background(), hello, 0)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Duration(gap.Load()), 900*time.Millisecond, "the server's Retry-After, not the 1 ms base")
}

func TestConnectionFailuresAreRetried(t *testing.T) {
	// A listener that is there, then refuses, then serves: the address
	// is reserved first so the client aims at a port nothing answers yet.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	started := make(chan struct{})
	var srv *httptest.Server
	go func() {
		time.Sleep(150 * time.Millisecond)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			close(started)
			return
		}
		srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: reply("stop", "up")}}
		srv.Start()
		close(started)
	}()
	t.Cleanup(func() {
		<-started
		if srv != nil {
			srv.Close()
		}
	})
	c, err := New("http://"+addr, "test-model", WithRetries(6, 50*time.Millisecond))
	require.NoError(t, err)
	r, err := c.Complete(context.Background(), hello, 0)
	<-started
	if srv == nil {
		t.Skip("the port was taken meanwhile")
	}
	require.NoError(t, err)
	assert.Equal(t, "up", r.Content)
}

func TestNonStreamedReplyIsAccepted(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"proxied",
			"choices":[{"index":0,"message":{"role":"assistant","content":"<think>hm</think>Whole answer"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":7,"completion_tokens":2}}`)
	}))
	r, err := c.Complete(context.Background(), hello, 0)
	require.NoError(t, err)
	assert.Equal(t, "Whole answer", r.Content)
	assert.Equal(t, "stop", r.FinishReason)
	assert.Equal(t, "proxied", r.Model)
	assert.True(t, r.ReasoningStripped)
	assert.Equal(t, 7, r.PromptTokens)
	assert.False(t, r.Truncated)

	cut := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"message":{"content":"The ans"},"finish_reason":"length"}]}`)
	}))
	text, err := cut.Chat(context.Background(), hello, 0)
	assert.ErrorIs(t, err, ErrTruncated, "a cut is a cut, streamed or not")
	assert.Empty(t, text)
}
