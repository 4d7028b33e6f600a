// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type embedCall struct {
	path, auth string
	body       embedRequest
}

// embedServer answers /v1/embeddings with vectors built by vec, listed in
// reverse order so the client must re-sort by index.
func embedServer(t *testing.T, vec func(text string) []float64, opts ...Option) (*Client, *[]embedCall) {
	t.Helper()
	var mu sync.Mutex
	var calls []embedCall
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call embedCall
		call.path, call.auth = r.URL.Path, r.Header.Get("Authorization")
		require.NoError(t, json.NewDecoder(r.Body).Decode(&call.body))
		mu.Lock()
		calls = append(calls, call)
		mu.Unlock()
		var data []map[string]any
		for i := len(call.body.Input) - 1; i >= 0; i-- {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec(call.body.Input[i])})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "bge-m3", "data": data})
	}), opts...)
	return c, &calls
}

func TestEmbedOrdersAndNormalises(t *testing.T) {
	c, calls := embedServer(t, func(text string) []float64 { return []float64{float64(len(text)), 0, 0, 1} },
		WithAPIKey("secret"))
	assert.Equal(t, 0, c.Dimension())
	vecs, err := c.Embed(context.Background(), []string{"a", "bbb", "cc"})
	require.NoError(t, err)
	require.Len(t, vecs, 3)
	for i, want := range []float64{1, 3, 2} {
		norm := math.Sqrt(want*want + 1)
		assert.InDelta(t, want/norm, vecs[i][0], 1e-6, "vector %d in input order", i)
		assert.InDelta(t, 1/norm, vecs[i][3], 1e-6)
	}
	assert.Equal(t, 4, c.Dimension())
	require.Len(t, *calls, 1)
	call := (*calls)[0]
	assert.Equal(t, "/v1/embeddings", call.path)
	assert.Equal(t, "Bearer secret", call.auth)
	assert.Equal(t, embedRequest{Model: "test-model", Input: []string{"a", "bbb", "cc"}, EncodingFormat: "float"}, call.body)
}

func TestEmbedBatchesWithProgress(t *testing.T) {
	var seen []int
	c, calls := embedServer(t, func(string) []float64 { return []float64{1, 1} },
		WithEmbedProgress(func(done, total int) {
			assert.Equal(t, 70, total)
			seen = append(seen, done)
		}))
	texts := make([]string, 70)
	for i := range texts {
		texts[i] = fmt.Sprint("text ", i)
	}
	vecs, err := c.Embed(context.Background(), texts)
	require.NoError(t, err)
	assert.Len(t, vecs, 70)
	assert.Equal(t, []int{32, 64, 70}, seen)
	require.Len(t, *calls, 3)
	assert.Len(t, (*calls)[2].body.Input, 6)
}

func TestEmbedNothingSendsNothing(t *testing.T) {
	c, calls := embedServer(t, func(string) []float64 { return []float64{1} })
	vecs, err := c.Embed(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, vecs)
	assert.Empty(t, *calls)
}

func TestEmbedRefusesBadResponses(t *testing.T) {
	tests := []struct {
		name string
		body string
		opts []Option
		want string
	}{
		{"too few vectors", `{"data":[{"index":0,"embedding":[1,0]}]}`, nil, "1 vectors for 2 texts"},
		{"repeated index", `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`, nil, "repeated"},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,0]},{"index":2,"embedding":[0,1]}]}`, nil, "out of range"},
		{"ragged dimensions", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1,0]}]}`, nil, "dimension 3, expected 2"},
		{"declared dimension", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]}`,
			[]Option{WithDimension(1024)}, "dimension 2, expected 1024"},
		{"zero vector", `{"data":[{"index":0,"embedding":[0,0]},{"index":1,"embedding":[0,1]}]}`, nil, "zero vector"},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[0,1]}]}`, nil, "empty vector"},
		{"pooling none (nested)", `{"data":[{"index":0,"embedding":[[1,0]]},{"index":1,"embedding":[[0,1]]}]}`, nil, "not an embeddings response"},
		{"not JSON", `<html>`, nil, "not an embeddings response"},
		{"cut body", `{"data":[{"index":0,"embedding":[1,`, nil, "not an embeddings response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, tt.body)
			}), tt.opts...)
			vecs, err := c.Embed(context.Background(), []string{"a", "b"})
			assert.Nil(t, vecs)
			require.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestEmbedTransportFailures(t *testing.T) {
	t.Run("HTTP status", func(t *testing.T) {
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "model does not support embeddings", http.StatusNotImplemented)
		}))
		_, err := c.Embed(context.Background(), []string{"a"})
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		assert.Equal(t, http.StatusNotImplemented, he.StatusCode)
		assert.Equal(t, "embed", he.Op)
	})
	t.Run("hang", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(nil)
		t.Cleanup(srv.Close)
		srv.Config.Handler = http.HandlerFunc(hangUntil(t))
		srv.Start()
		c, err := New(srv.URL, "bge-m3", WithIdleTimeout(60*time.Millisecond))
		require.NoError(t, err)
		_, err = c.Embed(context.Background(), []string{"a"})
		require.ErrorIs(t, err, ErrIdle)
	})
	t.Run("dropped mid-body", func(t *testing.T) {
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"data":[{"index":0,"embedding":[1,`+strings.Repeat("0,", 5000))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}))
		_, err := c.Embed(context.Background(), []string{"a"})
		require.ErrorIs(t, err, ErrIncomplete)
	})
	t.Run("total timeout per request", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(nil)
		t.Cleanup(srv.Close)
		hang := hangUntil(t)
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for range 100 { // busy, never idle, never done
				io.WriteString(w, " ")
				w.(http.Flusher).Flush()
				time.Sleep(10 * time.Millisecond)
			}
			hang(w, r)
		})
		srv.Start()
		c, err := New(srv.URL, "bge-m3", WithEmbedTimeout(80*time.Millisecond), WithIdleTimeout(time.Second))
		require.NoError(t, err)
		_, err = c.Embed(context.Background(), []string{"a"})
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}
