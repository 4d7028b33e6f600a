// SPDX-License-Identifier: Apache-2.0

// Package llamacpp is a client for a llama.cpp server's OpenAI-compatible
// HTTP API: streamed chat completions and embeddings, over net/http alone.
//
// A reply is whole or it is nothing. A chat stream is read to the end in
// memory and counts as complete only when the server's terminal event
// (data: [DONE]) arrived after a finish reason; a stream that ends early,
// a dropped connection, a malformed frame or a read idle past the limit is
// a *StreamError, never a shorter reply. Reasoning (<think> blocks and
// reasoning_content deltas) is stripped from the content, and a reply cut
// by max_tokens is flagged Truncated by Complete and is a
// *gardener.TruncatedError from Chat.
//
// A 503 (llama.cpp loading its model) and a failed connection are tried
// again with a doubling backoff (WithRetries), within the caller's
// context. A server or proxy that ignores stream: true and answers one
// application/json completion is read as a whole reply.
//
// Client implements embed.Embedder, gardener.Chat and model.Describer
// (the image as a data URL content part), so one server can back the
// Gauntlet, the model Curator and the media describer:
//
//	c, err := llamacpp.New("http://127.0.0.1:8080/v1", "qwen3-4b")
//	curator := gardener.NewModelCurator(c)
package llamacpp

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults.
const (
	// DefaultIdleTimeout abandons a response that sends nothing for this
	// long: the wait for the first byte (prompt processing) and every gap
	// between frames.
	DefaultIdleTimeout = 120 * time.Second
	// DefaultEmbedTimeout bounds one embeddings request (§5.2).
	DefaultEmbedTimeout = 120 * time.Second
	// DefaultEmbedBatch is the number of texts per embeddings request.
	DefaultEmbedBatch = 32
	// DefaultMaxBytes bounds one response body held in memory.
	DefaultMaxBytes = 16 << 20
	// DefaultTemperature is the sampling temperature of every chat call.
	DefaultTemperature = 0.1
	// NoKey is the bearer token sent when none is configured, as
	// OpenAI-compatible servers without authentication expect.
	NoKey = "no-key"
)

// Client talks to one llama.cpp server (or any OpenAI-compatible
// endpoint) about one model. It is safe for concurrent use.
type Client struct {
	base         string // ends in /v1, no trailing slash
	model        string
	apiKey       string
	http         *http.Client
	idle         time.Duration
	embedTimeout time.Duration
	embedBatch   int
	maxBytes     int64
	temperature  float64
	progress     func(done, total int)
	retries      int           // attempts after the first, on 503 and connection failures
	retryBase    time.Duration // the first backoff; it doubles per attempt
	dim          atomic.Int64  // known embedding dimension; 0 until seen or declared
}

// Option configures New.
type Option func(*Client)

// WithAPIKey sets the bearer token; the default is NoKey.
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithHTTPClient sets the HTTP client. Its own Timeout, if any, applies
// on top of the idle limit; leave it zero for long generations.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithIdleTimeout sets the per-read idle limit: the time the server may
// stay silent before the first byte and between any two reads.
func WithIdleTimeout(d time.Duration) Option { return func(c *Client) { c.idle = d } }

// WithEmbedTimeout sets the total limit of one embeddings request.
func WithEmbedTimeout(d time.Duration) Option { return func(c *Client) { c.embedTimeout = d } }

// WithEmbedBatch sets the number of texts sent per embeddings request.
func WithEmbedBatch(n int) Option { return func(c *Client) { c.embedBatch = n } }

// WithMaxBytes bounds a response body held in memory.
func WithMaxBytes(n int64) Option { return func(c *Client) { c.maxBytes = n } }

// Retry defaults: llama.cpp answers 503 while it loads a model, which
// takes seconds; a few doubling waits cover it without hiding a server
// that is down.
const (
	DefaultRetries   = 3
	DefaultRetryBase = 500 * time.Millisecond
)

// WithRetries sets how many times a request is tried again after a 503
// or a connection failure (0: never), and the first wait, which doubles
// per attempt (a Retry-After in seconds from the server wins; one wait
// is at most 10 s). The caller's context bounds the whole.
func WithRetries(n int, base time.Duration) Option {
	return func(c *Client) { c.retries, c.retryBase = n, base }
}

// WithTemperature sets the sampling temperature of chat calls.
func WithTemperature(t float64) Option { return func(c *Client) { c.temperature = t } }

// WithDimension declares the embedding dimension up front; a server that
// returns another is refused.
func WithDimension(n int) Option { return func(c *Client) { c.dim.Store(int64(n)) } }

// WithEmbedProgress receives progress of Embed, batch by batch: texts
// embedded so far and in all. It is called from Embed's goroutine and
// must not block.
func WithEmbedProgress(f func(done, total int)) Option { return func(c *Client) { c.progress = f } }

// New returns a client for the OpenAI-compatible API at endpoint, the
// base URL the /chat/completions and /embeddings paths hang from, such as
// "http://127.0.0.1:8080/v1". A bare server address (no path) gets "/v1".
// model is sent with every request and names the embedding model to
// canopy.
func New(endpoint, model string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llamacpp: endpoint must be an http(s) URL such as http://127.0.0.1:8080/v1, got %q", endpoint)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if u.Path == "" {
		u.Path = "/v1"
	}
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("llamacpp: model must name the served model (llama.cpp accepts any name; an embedding index records it)")
	}
	c := &Client{base: u.String(), model: model, apiKey: NoKey, http: http.DefaultClient,
		idle: DefaultIdleTimeout, embedTimeout: DefaultEmbedTimeout, embedBatch: DefaultEmbedBatch,
		maxBytes: DefaultMaxBytes, temperature: DefaultTemperature, retries: DefaultRetries, retryBase: DefaultRetryBase}
	for _, o := range opts {
		o(c)
	}
	if c.idle <= 0 || c.embedTimeout <= 0 || c.embedBatch <= 0 || c.maxBytes <= 0 {
		return nil, fmt.Errorf("llamacpp: idle timeout, embed timeout, embed batch and max bytes must be positive")
	}
	if c.retries < 0 || (c.retries > 0 && c.retryBase <= 0) {
		return nil, fmt.Errorf("llamacpp: retries must be 0 or more, with a positive first wait")
	}
	return c, nil
}

// Model names the model the client asks for.
func (c *Client) Model() string { return c.model }

// Endpoint is the API base URL requests go to.
func (c *Client) Endpoint() string { return c.base }
