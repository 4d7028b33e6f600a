// Package canopy is the optional vector layer of a forest (Part K): an
// on-disk index of one unit vector per node, built and refreshed
// explicitly, read by hybrid locate and the Gauntlet. A forest without an
// embedder or an index behaves exactly as if this package did not exist.
package canopy

import "context"

// Embedder turns texts into vectors. Implementations must return one
// vector per input text, in input order; the index normalises them to
// unit length, so an embedder need not.
//
// The llama.cpp client in adapters/llamacpp and the deterministic Hash
// embedder of this package both implement it; a host may bring its own.
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
