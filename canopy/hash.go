// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
)

// Hash is a deterministic embedder that needs no model: every word of a
// text (lowercased, split on anything that is not a letter or a digit)
// adds ±1 to one of Dimension buckets chosen by its FNV-1a hash. Texts
// sharing words are near each other, texts sharing none are nearly
// orthogonal. It is meant for tests, demos and offline forests, not for
// meaning: "ship" and "vessel" are strangers to it.
//
// A Hash is safe for concurrent use.
type Hash struct {
	model string
	dim   int
}

// NewHash returns a Hash embedder reporting model as its model name and
// producing vectors of dim values. It panics if dim < 1.
func NewHash(model string, dim int) *Hash {
	if dim < 1 {
		panic(fmt.Sprintf("canopy: NewHash dimension %d, want at least 1", dim))
	}
	return &Hash{model: model, dim: dim}
}

// Model is the model name given to NewHash.
func (h *Hash) Model() string { return h.model }

// Dimension is the length of every vector Embed returns.
func (h *Hash) Dimension() int { return h.dim }

// Embed returns one unit vector per text, in order. A text without words
// embeds as a fixed unit vector of its own, so every text has a direction.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = h.vector(t)
	}
	return out, nil
}

func (h *Hash) vector(text string) []float32 {
	v := make([]float32, h.dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		words = []string{""}
	}
	for _, w := range words {
		f := fnv.New64a()
		f.Write([]byte(w))
		sum := f.Sum64()
		sign := float32(1)
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(h.dim)] += sign
	}
	if !Normalize(v) {
		// Opposite signs cancelled in one bucket: fall back to the first
		// word's bucket so the vector still has a direction.
		f := fnv.New64a()
		f.Write([]byte(words[0]))
		v[f.Sum64()%uint64(h.dim)] = 1
	}
	return v
}
