// SPDX-License-Identifier: Apache-2.0

// Package embed is the contract between the engine and the embedding
// models it calls: one [Embedder] turns texts into vectors. It imports
// only the standard library, so a provider (adapters/llamacpp, or a host's
// own client) implements it without linking the engine, and the engine's
// vector layer (package canopy) depends on it alone, as database/sql
// depends on database/sql/driver.
//
// To implement it, answer three questions about one model:
//
//	type constant struct{}
//
//	func (constant) Model() string  { return "constant-v1" }
//	func (constant) Dimension() int { return 2 }
//	func (constant) Embed(ctx context.Context, texts []string) ([][]float32, error) {
//		out := make([][]float32, len(texts))
//		for i := range out {
//			out[i] = []float32{1, 0}
//		}
//		return out, nil
//	}
//
// Rules an implementation keeps:
//   - Embed returns exactly one vector per text, in input order, all of
//     one length, or an error and no vectors: a partial batch is never
//     returned. The caller normalises the vectors to unit length, so an
//     implementation need not; a zero or non-finite vector is refused.
//   - Model names the model stably: an index records it and is treated as
//     absent when the bound embedder's differs, because vectors of two
//     models do not share a space.
//   - Dimension is the vector length, or 0 until the first call tells it.
//   - Embed honours ctx, and the methods are safe for concurrent use.
package embed

import "context"

// Embedder turns texts into vectors. Implementations must return one
// vector per input text, in input order; the index normalises them to
// unit length, so an embedder need not.
//
// The llama.cpp client in adapters/llamacpp and the deterministic Hash
// embedder of package canopy both implement it; a host may bring its own.
type Embedder interface {
	// Model names the embedding model. An index records it and is treated
	// as absent when it differs from the bound embedder's (K.4).
	Model() string
	// Dimension is the length of the vectors Embed returns, or 0 when it
	// is not known until the first call.
	Dimension() int
	// Embed embeds a batch of texts.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
