// SPDX-License-Identifier: Apache-2.0

package canopy

import "encoding/json"

// The readiness states of the layer (K.4). Only StateActive lets a read use
// vectors; every other state answers exactly as a forest without Canopy.
const (
	StateNoEmbedder    = "no-embedder"
	StateNoIndex       = "no-index" // missing, unreadable or empty
	StateModelMismatch = "model-mismatch"
	StateActive        = "active"
)

// Readiness is the state of a layer with embedder e (nil: none) and index
// ix (nil: none or untrusted). Ready means an embedder is bound, the index
// holds vectors, and both name the same model; an embedder that already
// knows its dimension must also match the index's, or its vectors would
// live in another space under the same name.
func Readiness(e Embedder, ix *Index) string {
	switch {
	case e == nil:
		return StateNoEmbedder
	case ix == nil || ix.Len() == 0 || ix.Dim == 0:
		return StateNoIndex
	case ix.Model != e.Model():
		return StateModelMismatch
	case e.Dimension() != 0 && e.Dimension() != ix.Dim:
		return StateModelMismatch
	}
	return StateActive
}

// Status is the layer as every status surface reports it (K.4).
type Status struct {
	// State is one of the State constants.
	State string
	// Active is State == StateActive.
	Active bool
	// IndexModel is the model of the index on disk; "" without one.
	IndexModel string
	// QueryModel is the bound embedder's model; "" without one.
	QueryModel string
	// Vectors is how many vectors the index holds.
	Vectors int
	// Stale is how many catalog nodes a refresh would embed: written
	// since the vectors were made, or without a vector at all.
	Stale int
}

// NewStatus describes a layer with embedder e and index ix whose catalog
// has stale nodes needing vectors.
func NewStatus(e Embedder, ix *Index, stale int) Status {
	s := Status{State: Readiness(e, ix), Stale: stale}
	s.Active = s.State == StateActive
	if e != nil {
		s.QueryModel = e.Model()
	}
	if ix != nil {
		s.IndexModel, s.Vectors = ix.Model, ix.Len()
	}
	return s
}

// MarshalJSON renders {state, active, index_model, query_model, vectors,
// stale}; an absent model is null, never a model named "".
func (s Status) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		State      string  `json:"state"`
		Active     bool    `json:"active"`
		IndexModel *string `json:"index_model"`
		QueryModel *string `json:"query_model"`
		Vectors    int     `json:"vectors"`
		Stale      int     `json:"stale"`
	}{s.State, s.Active, orNull(s.IndexModel), orNull(s.QueryModel), s.Vectors, s.Stale})
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
