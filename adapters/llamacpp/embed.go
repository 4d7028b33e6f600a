package llamacpp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/monkeyllm/vine/embed"
)

var _ embed.Embedder = (*Client)(nil)

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// Dimension is the embedding dimension: the declared one, else the one
// the server returned first, else 0.
func (c *Client) Dimension() int { return int(c.dim.Load()) }

// Embed implements embed.Embedder: one unit vector per text, in input
// order. Texts go in batches (DefaultEmbedBatch), each request bounded by
// the embed timeout and the idle limit; vectors are re-sorted by the
// server's index and L2-normalised. A response that is short, misordered,
// of the wrong dimension, or holds a zero or non-finite vector is an
// ErrMalformed *StreamError: a partial batch is never returned.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.embedBatch {
		batch := texts[start:min(start+c.embedBatch, len(texts))]
		vecs, err := c.embedBatchOnce(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
		if c.progress != nil {
			c.progress(len(out), len(texts))
		}
	}
	return out, nil
}

func (c *Client) embedBatchOnce(ctx context.Context, batch []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, c.embedTimeout)
	defer cancel()
	x, err := c.post(ctx, "embed", "/embeddings",
		embedRequest{Model: c.model, Input: batch, EncodingFormat: "float"}, "application/json")
	if err != nil {
		return nil, err
	}
	defer x.close()
	body, err := io.ReadAll(x)
	if err != nil {
		return nil, x.readErr(err)
	}
	var resp embedResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, x.fail(ErrMalformed, "body is not an embeddings response: "+clipText(string(body), 200), err)
	}
	vecs, err := c.orderVectors(resp, len(batch))
	if err != nil {
		return nil, x.fail(ErrMalformed, err.Error(), nil)
	}
	return vecs, nil
}

// orderVectors places each vector at its index and normalises it.
func (c *Client) orderVectors(resp embedResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%d vectors for %d texts", len(resp.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range resp.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n || out[idx] != nil {
			return nil, fmt.Errorf("vector %d has index %d, out of range or repeated", i, idx)
		}
		if err := c.checkDimension(len(d.Embedding)); err != nil {
			return nil, err
		}
		v, err := unit(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("vector %d: %w", idx, err)
		}
		out[idx] = v
	}
	return out, nil
}

// checkDimension accepts the first dimension seen (or declared) and
// refuses any other.
func (c *Client) checkDimension(d int) error {
	if d == 0 {
		return fmt.Errorf("empty vector")
	}
	if c.dim.CompareAndSwap(0, int64(d)) {
		return nil
	}
	if want := c.dim.Load(); int64(d) != want {
		return fmt.Errorf("dimension %d, expected %d", d, want)
	}
	return nil
}

// unit returns v scaled to length 1.
func unit(v []float64) ([]float32, error) {
	var sum float64
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("non-finite component")
		}
		sum += x * x
	}
	norm := math.Sqrt(sum)
	if norm == 0 {
		return nil, fmt.Errorf("zero vector cannot be normalised")
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out, nil
}
