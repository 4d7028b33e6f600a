// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"context"
	"fmt"
	"time"
)

// Node is what the layer embeds of one catalog node: its id and the two
// fields of its text, and whether a write touched it since the vectors
// were last made (the catalog's stale flag).
type Node struct {
	ID      string
	Title   string
	Summary string
	Written bool
}

// Text is the node's embedded text, "<title>. <summary>".
func (n Node) Text() string { return NodeText(n.Title, n.Summary) }

// Progress reports how many of the texts a build or refresh must embed
// are done. It is called from the working goroutine and must not block.
type Progress func(done, total int)

// embedChunk is how many texts Build hands the embedder at once: small
// enough to report progress and notice cancellation often, large enough
// to fill an HTTP embedder's batches.
const embedChunk = 64

// Build embeds every node (in the order given, which becomes index order)
// with e and returns the new index. An empty node list builds an empty
// index of dimension 0. Build is the only way to change an index's model.
func Build(ctx context.Context, e Embedder, nodes []Node, progress Progress) (*Index, error) {
	vecs, dim, err := embedAll(ctx, e, nodes, 0, progress)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(nodes))
	hashes := make([]string, len(nodes))
	flat := make([]float32, 0, len(nodes)*dim)
	for i, n := range nodes {
		ids[i], hashes[i] = n.ID, textHash(n.Text())
		flat = append(flat, vecs[i]...)
	}
	return newIndex(e.Model(), dim, epoch(time.Now()), ids, hashes, flat)
}

// Stale returns the nodes whose vector is missing or out of date: written
// since the index was made, absent from it, or (when the index recorded
// text hashes) whose text is no longer the one embedded. A nil index has
// no vectors, so every node is stale.
func (ix *Index) Stale(nodes []Node) []Node {
	var out []Node
	for _, n := range nodes {
		if ix.needs(n) {
			out = append(out, n)
		}
	}
	return out
}

func (ix *Index) needs(n Node) bool {
	if ix == nil || n.Written {
		return true
	}
	i, ok := ix.pos[n.ID]
	if !ok {
		return true
	}
	return ix.hashes[i] != "" && ix.hashes[i] != textHash(n.Text())
}

// Refresh embeds the stale nodes only (see Stale) and returns the new
// index, in the order of nodes, with the vectors of every other node kept
// and those of ids no longer among nodes dropped, and the nodes it
// embedded. It refuses an embedder of another model or dimension: one
// index never mixes two vector spaces, so a model change needs Build.
func (ix *Index) Refresh(ctx context.Context, e Embedder, nodes []Node, progress Progress) (*Index, []Node, error) {
	if e.Model() != ix.Model {
		return nil, nil, fmt.Errorf("canopy: refresh with model %q over an index of model %q", e.Model(), ix.Model)
	}
	if ix.Dim == 0 {
		return nil, nil, fmt.Errorf("canopy: refresh of an empty index; build it")
	}
	stale := ix.Stale(nodes)
	fresh, _, err := embedAll(ctx, e, stale, ix.Dim, progress)
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string][]float32, len(stale))
	for i, n := range stale {
		byID[n.ID] = fresh[i]
	}
	ids := make([]string, len(nodes))
	hashes := make([]string, len(nodes))
	flat := make([]float32, 0, len(nodes)*ix.Dim)
	for i, n := range nodes {
		ids[i] = n.ID
		if v, ok := byID[n.ID]; ok {
			hashes[i] = textHash(n.Text())
			flat = append(flat, v...)
			continue
		}
		old := ix.pos[n.ID] // not stale, so present
		hashes[i] = ix.hashes[old]
		flat = append(flat, ix.Vector(old)...)
	}
	next, err := newIndex(ix.Model, ix.Dim, epoch(time.Now()), ids, hashes, flat)
	if err != nil {
		return nil, nil, err
	}
	return next, stale, nil
}

// embedAll embeds the texts of nodes in chunks and checks what comes
// back: one finite vector per text, all of one length (dim when it is not
// 0), each normalised to unit length. It returns the vectors and their
// length.
func embedAll(ctx context.Context, e Embedder, nodes []Node, dim int, progress Progress) ([][]float32, int, error) {
	out := make([][]float32, 0, len(nodes))
	if progress != nil {
		progress(0, len(nodes))
	}
	for start := 0; start < len(nodes); start += embedChunk {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		chunk := nodes[start:min(len(nodes), start+embedChunk)]
		texts := make([]string, len(chunk))
		for i, n := range chunk {
			texts[i] = n.Text()
		}
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, 0, fmt.Errorf("canopy: embedding with %s failed: %w", e.Model(), err)
		}
		if len(vecs) != len(texts) {
			return nil, 0, fmt.Errorf("canopy: embedder %s returned %d vectors for %d texts", e.Model(), len(vecs), len(texts))
		}
		for i, v := range vecs {
			if dim == 0 {
				dim = len(v)
			}
			if len(v) != dim || dim > maxDim {
				return nil, 0, fmt.Errorf("canopy: embedder %s returned a vector of %d values for %s, expected %d",
					e.Model(), len(v), chunk[i].ID, dim)
			}
			v = append([]float32(nil), v...) // the embedder's slice is not ours to scale
			if !Normalize(v) {
				return nil, 0, fmt.Errorf("canopy: embedder %s returned a zero or non-finite vector for %s", e.Model(), chunk[i].ID)
			}
			out = append(out, v)
		}
		if progress != nil {
			progress(len(out), len(nodes))
		}
	}
	return out, dim, nil
}

// epoch is t in seconds since the epoch, to the millisecond.
func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }
