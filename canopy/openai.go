// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/monkeyllm/vine/embed"
)

// Defaults of the OpenAI-compatible embedding client (K.2).
const (
	// DefaultModel is the model asked for when none is configured.
	DefaultModel = "bge-m3"
	// DefaultAPIKey is the bearer token sent when none is configured;
	// local servers such as llama.cpp ignore it.
	//
	// Deprecated: the client is adapters/llamacpp, whose default is
	// llamacpp.NoKey.
	DefaultAPIKey = "no-key"
	// HTTPBatch is how many texts go in one request.
	//
	// Deprecated: see llamacpp.DefaultEmbedBatch.
	HTTPBatch = 32
	// HTTPTimeout bounds one request, response included.
	//
	// Deprecated: see llamacpp.DefaultEmbedTimeout.
	HTTPTimeout = 120 * time.Second
)

// Environment variables read by HTTPEmbedderFromEnv.
//
// Deprecated: the library reads no environment; the vine command reads
// these variables (documented there) and passes options.
const (
	EnvEndpoint = "MONKEYLLM_EMBED_ENDPOINT"
	EnvModel    = "MONKEYLLM_EMBED_MODEL"
	EnvAPIKey   = "MONKEYLLM_EMBED_API_KEY"
)

// maxResponseBytes caps what one response may hold: 32 vectors of a few
// thousand numbers are a few megabytes; a server streaming without end
// must not exhaust memory.
const maxResponseBytes = 64 << 20

// HTTPEmbedder embeds through an OpenAI-compatible endpoint: POST
// {endpoint}/embeddings with {"model", "input"}, a bearer key, at most
// HTTPBatch texts per request. Vectors come back in input order (the
// response is re-sorted by its index field) and at unit length.
//
// An HTTPEmbedder is safe for concurrent use.
//
// Deprecated: use the client of adapters/llamacpp (llamacpp.New), which
// speaks the same protocol with an idle limit, a response size limit,
// typed errors and a pinned dimension. HTTPEmbedder stays as a thin
// client over the one decoder, [embed.DecodeOpenAI]: the engine may not
// import an adapter, so it cannot forward to llamacpp.
type HTTPEmbedder struct {
	url    string
	model  string
	apiKey string
	client *http.Client
	dim    atomic.Int64 // learned from the first response
}

// NewHTTPEmbedder returns a client of the OpenAI-compatible server at
// endpoint (for example "http://localhost:8080/v1"). An empty model means
// DefaultModel, an empty apiKey DefaultAPIKey.
//
// Deprecated: use llamacpp.New(endpoint, model, llamacpp.WithAPIKey(key)).
func NewHTTPEmbedder(endpoint, model, apiKey string) *HTTPEmbedder {
	if model == "" {
		model = DefaultModel
	}
	if apiKey == "" {
		apiKey = DefaultAPIKey
	}
	return &HTTPEmbedder{
		url:    strings.TrimRight(endpoint, "/") + "/embeddings",
		model:  model,
		apiKey: apiKey,
		client: &http.Client{Timeout: HTTPTimeout},
	}
}

// HTTPEmbedderFromEnv configures a client from MONKEYLLM_EMBED_ENDPOINT,
// MONKEYLLM_EMBED_MODEL and MONKEYLLM_EMBED_API_KEY. It reports false when
// no endpoint is set: a standalone engine then has no embedder.
//
// Deprecated: library code reads no environment. The vine command reads
// these variables and builds a llamacpp client; a host passes its own
// configuration to llamacpp.New.
func HTTPEmbedderFromEnv() (*HTTPEmbedder, bool) {
	endpoint := strings.TrimSpace(os.Getenv(EnvEndpoint))
	if endpoint == "" {
		return nil, false
	}
	return NewHTTPEmbedder(endpoint, os.Getenv(EnvModel), os.Getenv(EnvAPIKey)), true
}

// Model is the model named in every request.
func (h *HTTPEmbedder) Model() string { return h.model }

// Dimension is the length of the vectors the server returned, or 0 before
// the first successful call.
func (h *HTTPEmbedder) Dimension() int { return int(h.dim.Load()) }

// Embed embeds texts in batches of HTTPBatch. Any failed request fails the
// call; nothing partial is returned.
func (h *HTTPEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += HTTPBatch {
		batch := texts[start:min(len(texts), start+HTTPBatch)]
		vecs, err := h.post(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	if len(out) > 0 {
		h.dim.Store(int64(len(out[0])))
	}
	return out, nil
}

// embeddingsRequest is the wire body, the one of every client.
type embeddingsRequest = embed.OpenAIRequest

func (h *HTTPEmbedder) post(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingsRequest{Model: h.model, Input: batch})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("canopy: embeddings request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+h.apiKey)
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("canopy: embeddings request to %s: %w", h.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("canopy: embeddings endpoint %s answered %s: %s",
			h.url, resp.Status, strings.TrimSpace(string(snippet)))
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, fmt.Errorf("canopy: embeddings endpoint %s: %w", h.url, err)
	}
	vecs, err := embed.DecodeOpenAI(body, len(batch), 0)
	if err != nil {
		return nil, fmt.Errorf("canopy: embeddings endpoint %s: %w", h.url, err)
	}
	return vecs, nil
}

// DecodeEmbeddings reads an OpenAI-compatible embeddings response
// ({"data": [{"index", "embedding"}, ...]}) answering n inputs. It returns
// the vectors in index order, each normalised to unit length, and refuses
// a response that does not hold exactly one finite, non-zero vector per
// input, all of one length.
//
// Deprecated: use [embed.DecodeOpenAI], which this calls.
func DecodeEmbeddings(r io.Reader, n int) ([][]float32, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("malformed embeddings response: %w", err)
	}
	vecs, err := embed.DecodeOpenAI(body, n, 0)
	if err != nil {
		return nil, fmt.Errorf("embeddings response: %w", err)
	}
	return vecs, nil
}
