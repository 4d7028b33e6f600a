// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/forest"
)

// canopyDir is where the vector layer lives, relative to the forest root.
var canopyDir = filepath.Join(forest.DerivedDir, "canopy")

// newCanopyLayer makes the forest's vector layer (Part K), owned by
// package canopy: the engine lends it its clock, progress, logger,
// sessions and the call's trace shares. Clock and progress are read at
// each use, as the engine's own code reads them.
func newCanopyLayer(v *Vine, e canopy.Embedder) *canopy.Layer {
	return canopy.NewLayer(filepath.Join(v.root.Dir(), canopyDir), &canopy.LayerOptions{
		Embedder: e, Logger: v.log, Session: v.heat.sessionOf,
		Now: func() time.Time { return v.now() },
		Progress: func(op string, done, total int) {
			if v.progress != nil {
				v.progress(Progress{Op: op, Done: done, Total: total})
			}
		},
		Embedded: func(ctx context.Context, d time.Duration) { sharesOf(ctx).addEmbed(d) },
	})
}

// SetEmbedder binds e as the forest's embedder, or detaches it when e is
// nil. Binding turns the Gauntlet on for look, move and scan once an
// index of e's model exists; it never turns on hybrid entry search, which
// each locate call asks for (K.1). Safe for concurrent use: calls already
// running finish with the embedder they started with.
func (v *Vine) SetEmbedder(e canopy.Embedder) { v.canopy.SetEmbedder(e) }

// Embedder returns the bound embedder, nil when none is.
func (v *Vine) Embedder() canopy.Embedder { return v.canopy.Embedder() }

// CanopyStatus reports the vector layer (K.4): its state, the models of
// the index and of the bound embedder, how many vectors the index holds
// and how many catalog nodes a refresh would embed.
func (v *Vine) CanopyStatus(ctx context.Context) (canopy.Status, error) {
	return v.canopy.Status(ctx)
}

// CanopyBuildResult is what a build made.
type CanopyBuildResult struct {
	Nodes int    `json:"nodes"`
	Model string `json:"model"`
	Dim   int    `json:"dim"`
}

// CanopyBuild embeds every catalog node ("<title>. <summary>", branches
// included, in id order) with the bound embedder and replaces the index in
// _derived/canopy, clearing every stale mark. It is the only repair of a
// model change. Without an embedder it refuses with E_SCHEMA. Progress,
// when configured, counts nodes embedded. Only _derived is written: no
// commit, no trace, no heat.
func (v *Vine) CanopyBuild(ctx context.Context) (*CanopyBuildResult, error) {
	ix, err := v.canopy.Build(ctx)
	if err != nil {
		return nil, err
	}
	return &CanopyBuildResult{Nodes: ix.Len(), Model: ix.Model, Dim: ix.Dim}, nil
}

// CanopyRefreshResult is what a refresh embedded, and the layer after it.
type CanopyRefreshResult struct {
	Refreshed int
	Status    canopy.Status
}

// MarshalJSON renders {refreshed, state, active, index_model,
// query_model, vectors, stale}.
func (r CanopyRefreshResult) MarshalJSON() ([]byte, error) {
	status, err := json.Marshal(r.Status)
	if err != nil {
		return nil, err
	}
	return append(fmt.Appendf(nil, `{"refreshed":%d,`, r.Refreshed), status[1:]...), nil
}

// CanopyRefresh embeds the stale nodes only — written since the vectors
// were made, or without a vector — keeping every other vector and
// dropping those of nodes gone from the catalog; stale is 0 after it. It
// refuses with E_SCHEMA without an embedder, and unless the layer is
// active (an absent, empty or other-model index): a partial re-embedding
// would mix two vector spaces, so those need CanopyBuild.
func (v *Vine) CanopyRefresh(ctx context.Context) (*CanopyRefreshResult, error) {
	n, status, err := v.canopy.Refresh(ctx)
	if err != nil {
		return nil, err
	}
	return &CanopyRefreshResult{Refreshed: n, Status: status}, nil
}

// writtenIDs are the ids of the nodes a write committed, for the vector
// layer's stale marks.
func writtenIDs(written []*forest.Node) []string {
	ids := make([]string, len(written))
	for i, n := range written {
		ids[i] = n.ID
	}
	return ids
}
