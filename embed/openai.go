// SPDX-License-Identifier: Apache-2.0

package embed

import (
	"encoding/json"
	"fmt"
	"math"
)

// OpenAIRequest is the body of an OpenAI-compatible embeddings request
// (POST {base}/embeddings), the protocol llama.cpp, vLLM, Ollama and the
// hosted APIs share.
type OpenAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format,omitempty"`
}

// DecodeOpenAI reads the body of an OpenAI-compatible embeddings response
// ({"data": [{"index", "embedding"}, ...]}) answering n texts. It returns
// the vectors in input order (re-sorted by index; a server that omits
// index answers in input order), each scaled to unit length. dim is the
// length every vector must have, or 0 to take the first one's. It refuses
// a body that does not hold exactly one finite, non-zero vector of that
// length per text: a partial batch is never returned.
//
// It is the one decoder of the protocol, shared by every client of it in
// this module, so they accept and refuse the same responses.
func DecodeOpenAI(body []byte, n, dim int) ([][]float32, error) {
	var resp struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("malformed: not an embeddings response: %w", err)
	}
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
		switch {
		case len(d.Embedding) == 0:
			return nil, fmt.Errorf("vector %d: empty vector", idx)
		case dim == 0:
			dim = len(d.Embedding)
		case len(d.Embedding) != dim:
			return nil, fmt.Errorf("vector %d: dimension %d, expected %d", idx, len(d.Embedding), dim)
		}
		v, err := unit(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("vector %d: %w", idx, err)
		}
		out[idx] = v
	}
	return out, nil
}

// unit returns v scaled to length 1. It divides by the largest
// magnitude first, so a vector whose components would overflow a sum of
// squares (or float32) still has its direction.
func unit(v []float64) ([]float32, error) {
	var peak float64
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("non-finite component")
		}
		peak = max(peak, math.Abs(x))
	}
	if peak == 0 {
		return nil, fmt.Errorf("zero vector cannot be normalised")
	}
	var sum float64
	for _, x := range v {
		sum += (x / peak) * (x / peak)
	}
	norm := peak * math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out, nil
}
