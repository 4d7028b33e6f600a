// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"context"
	"fmt"
	"io"

	"github.com/monkeyllm/vine/embed"
)

var _ embed.Embedder = (*Client)(nil)

// embedRequest is the wire body; encoding_format asks for floats, not
// base64.
type embedRequest = embed.OpenAIRequest

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
	vecs, err := embed.DecodeOpenAI(body, len(batch), c.Dimension())
	if err != nil {
		return nil, x.fail(ErrMalformed, err.Error(), nil)
	}
	if err := c.pinDimension(len(vecs[0])); err != nil {
		return nil, x.fail(ErrMalformed, err.Error(), nil)
	}
	return vecs, nil
}

// pinDimension accepts the first dimension seen (or declared) and refuses
// any other, so batches of one Embed call, and calls racing each other,
// never mix two lengths.
func (c *Client) pinDimension(d int) error {
	if c.dim.CompareAndSwap(0, int64(d)) {
		return nil
	}
	if want := c.dim.Load(); int64(d) != want {
		return fmt.Errorf("dimension %d, expected %d", d, want)
	}
	return nil
}
