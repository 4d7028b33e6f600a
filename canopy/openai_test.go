// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// embedServer is an OpenAI-compatible /embeddings endpoint that answers
// each input with a vector derived from its length, in reverse index
// order, and records the requests it served.
type embedServer struct {
	mu       sync.Mutex
	requests []embeddingsRequest
	auth     []string
	status   int    // non-zero: answer this status with body
	body     string // raw body instead of vectors, when set
}

// seen returns the requests served and their Authorization headers.
func (s *embedServer) seen() ([]embeddingsRequest, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]embeddingsRequest(nil), s.requests...), append([]string(nil), s.auth...)
}

func (s *embedServer) set(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

func (s *embedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req embeddingsRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	status, body := s.status, s.body
	s.mu.Unlock()
	if status != 0 {
		http.Error(w, body, status)
		return
	}
	if body != "" {
		fmt.Fprint(w, body)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- { // out of order on purpose
		data = append(data, item{Index: i, Embedding: []float32{float32(len(req.Input[i])), 1, 0}})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

func TestHTTPEmbedder(t *testing.T) {
	srv := &embedServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	h := NewHTTPEmbedder(ts.URL+"/v1/", "", "")
	assert.Equal(t, DefaultModel, h.Model())
	assert.Equal(t, 0, h.Dimension(), "unknown before the first call")

	texts := make([]string, 70)
	for i := range texts {
		texts[i] = strings.Repeat("x", i)
	}
	vecs, err := h.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, 70)
	for i, v := range vecs {
		want := []float32{float32(i), 1, 0}
		Normalize(want)
		assert.InDeltaSlice(t, want, v, 1e-6, "text %d comes back in input order, unit length", i)
	}
	assert.Equal(t, 3, h.Dimension())
	reqs, auth := srv.seen()
	require.Len(t, reqs, 3, "batches of 32")
	assert.Len(t, reqs[0].Input, 32)
	assert.Len(t, reqs[1].Input, 32)
	assert.Equal(t, texts[64:], reqs[2].Input)
	assert.Equal(t, DefaultModel, reqs[0].Model)
	assert.Equal(t, "Bearer "+DefaultAPIKey, auth[0])

	keyed := NewHTTPEmbedder(ts.URL+"/v1", "nomic", "s3cret")
	_, err = keyed.Embed(context.Background(), []string{"a"})
	require.NoError(t, err)
	reqs, auth = srv.seen()
	assert.Equal(t, "Bearer s3cret", auth[3])
	assert.Equal(t, "nomic", reqs[3].Model)

	none, err := h.Embed(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, none)
	reqs, _ = srv.seen()
	assert.Len(t, reqs, 4, "nothing to embed, no request")
}

func TestHTTPEmbedderFailures(t *testing.T) {
	srv := &embedServer{status: http.StatusServiceUnavailable, body: "model loading"}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	h := NewHTTPEmbedder(ts.URL+"/v1", "m", "")
	_, err := h.Embed(context.Background(), []string{"a"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "503")
	assert.Contains(t, err.Error(), "model loading")

	srv.set(0, `{"data": [{"index": 0, "embedding": [1, 0]}]}`)
	_, err = h.Embed(context.Background(), []string{"a", "b"})
	assert.ErrorContains(t, err, "1 vectors for 2 texts")

	_, err = NewHTTPEmbedder(ts.URL+"/nowhere", "m", "").Embed(context.Background(), []string{"a"})
	assert.ErrorContains(t, err, "404")

	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release) // before Close, which waits for the handler
	_, err = NewHTTPEmbedder(slow.URL, "m", "").Embed(ctx, []string{"a"})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestHTTPEmbedderFromEnv(t *testing.T) {
	t.Setenv(EnvEndpoint, "")
	_, ok := HTTPEmbedderFromEnv()
	assert.False(t, ok, "no endpoint, no embedder")

	srv := &embedServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	t.Setenv(EnvEndpoint, ts.URL+"/v1")
	t.Setenv(EnvModel, "")
	t.Setenv(EnvAPIKey, "k1")
	h, ok := HTTPEmbedderFromEnv()
	require.True(t, ok)
	assert.Equal(t, DefaultModel, h.Model())
	_, err := h.Embed(context.Background(), []string{"a"})
	require.NoError(t, err)
	_, auth := srv.seen()
	assert.Equal(t, "Bearer k1", auth[0])
	t.Setenv(EnvModel, "e5")
	h, _ = HTTPEmbedderFromEnv()
	assert.Equal(t, "e5", h.Model())
}

func TestDecodeEmbeddings(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		n          int
		want       [][]float32
		err        string
	}{
		{"reordered", `{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}]}`, 2,
			[][]float32{{0.6, 0.8}, {0, 1}}, ""},
		{"no index: input order", `{"data":[{"embedding":[1,0]},{"embedding":[0,1]}]}`, 2,
			[][]float32{{1, 0}, {0, 1}}, ""},
		{"not json", `<html>`, 1, nil, "malformed"},
		{"count", `{"data":[]}`, 1, nil, "0 vectors for 1 texts"},
		{"index out of range", `{"data":[{"index":5,"embedding":[1]}]}`, 1, nil, "index 5, out of range"},
		{"negative index", `{"data":[{"index":-1,"embedding":[1]}]}`, 1, nil, "index -1, out of range"},
		{"repeated index", `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, 2, nil, "or repeated"},
		{"empty vector", `{"data":[{"index":0,"embedding":[]}]}`, 1, nil, "empty vector"},
		{"mixed lengths", `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,0]}]}`, 2, nil, "dimension 2, expected 1"},
		{"zero", `{"data":[{"index":0,"embedding":[0,0]}]}`, 1, nil, "zero vector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeEmbeddings(strings.NewReader(tc.body), tc.n)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, len(tc.want))
			for i := range got {
				assert.InDeltaSlice(t, tc.want[i], got[i], 1e-6)
			}
		})
	}
}
