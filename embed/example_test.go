// SPDX-License-Identifier: Apache-2.0

package embed_test

import (
	"context"
	"fmt"

	"github.com/monkeyllm/vine/embed"
)

// constant is the smallest Embedder: every text maps to one direction.
type constant struct{}

func (constant) Model() string  { return "constant-v1" }
func (constant) Dimension() int { return 2 }
func (constant) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

// Implement the contract with a type of your own and hand it to the
// engine (vine.Options.Embedder or Vine.SetEmbedder).
func ExampleEmbedder() {
	var e embed.Embedder = constant{}
	vecs, err := e.Embed(context.Background(), []string{"tide", "storm"})
	fmt.Println(e.Model(), e.Dimension(), len(vecs), err)
	// Output:
	// constant-v1 2 2 <nil>
}
