// Package canopy is the optional vector layer of a forest (Part K): an
// on-disk index of one unit vector per node, built and refreshed
// explicitly, read by hybrid locate and the Gauntlet. A forest without an
// embedder or an index behaves exactly as if this package did not exist.
package canopy

import "github.com/monkeyllm/vine/embed"

// Embedder turns texts into vectors. It is an alias of [embed.Embedder],
// the contract's home: an implementer imports the stdlib-only leaf
// package embed and need not link this one.
type Embedder = embed.Embedder
