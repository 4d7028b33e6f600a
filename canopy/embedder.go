// SPDX-License-Identifier: Apache-2.0

// Package canopy is the optional vector layer of a forest (Part K): an
// on-disk index of one unit vector per node, built and refreshed
// explicitly, read by hybrid locate and the Gauntlet. A forest without an
// embedder or an index behaves exactly as if this package did not exist.
//
// A [Layer] owns one forest's layer: the index files, the query
// [Memo] in the catalog, the bound [Embedder] and the sessions' goals;
// *vine.Vine delegates its Canopy methods to it. [Build], [Index] and
// [Hash] are the pieces it is made of, usable alone. The embedder
// contract lives in the stdlib-only package embed; embedding servers are
// reached through adapters/llamacpp. Configuration arrives through
// options: only the deprecated HTTPEmbedderFromEnv reads the environment.
package canopy

import "github.com/monkeyllm/vine/embed"

// Embedder turns texts into vectors. It is an alias of [embed.Embedder],
// the contract's home: an implementer imports the stdlib-only leaf
// package embed and need not link this one.
type Embedder = embed.Embedder
