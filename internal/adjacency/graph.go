// SPDX-License-Identifier: Apache-2.0

// Package adjacency is an in-memory copy of what move reads from the
// catalog (spec 02 §3): every node's type and summary, its out- and
// in-edges with their rels in catalog order, and a branch's children in
// id order. A move answered from the copy costs map lookups instead of
// catalog statements, which were most of a move.
//
// The copy must answer exactly as the catalog would, so it is read from
// the catalog's own rows (catalog.Adjacency, one snapshot with its
// generation), never from the markdown, and is
// trusted only at the catalog generation it was read at: a Model hands
// out the Graph of the generation its caller names, or nil, and the
// caller then reads the catalog. Heat is not here: it changes without a
// catalog write, so the caller reads it per call.
//
// A Graph is immutable once built and safe for concurrent use; so is a
// Model.
package adjacency

// Row is a node as a neighbour shows it.
type Row struct {
	ID      string
	Type    string
	Summary string
}

// Edge is one edge seen from one of its ends: Rel as the catalog stores
// it, Peer the node at the other end, and Row that node's row, nil when
// the catalog holds none (a dangling link).
type Edge struct {
	Rel  string
	Peer string
	Row  *Row
}

// node is one catalog node and what move reads around it.
type node struct {
	row      Row
	out      []Edge // edges from the node, in catalog (rowid) order
	in       []Edge // edges to the node, in catalog (rowid) order
	children []*Row // nodes whose parent is this one, in id order
}

// Graph is the adjacency of one catalog generation.
type Graph struct {
	gen   int64
	nodes map[string]*node
}

// Generation is the catalog generation the graph was read at.
func (g *Graph) Generation() int64 { return g.gen }

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// Has reports whether the catalog holds a node row for id.
func (g *Graph) Has(id string) bool { _, ok := g.nodes[id]; return ok }

// Row returns the row of id, nil when the catalog holds none.
func (g *Graph) Row(id string) *Row {
	if n, ok := g.nodes[id]; ok {
		return &n.row
	}
	return nil
}

// Out returns the edges whose source is id, in catalog order. The slice
// is shared: callers must not modify it.
func (g *Graph) Out(id string) []Edge {
	if n, ok := g.nodes[id]; ok {
		return n.out
	}
	return nil
}

// In returns the edges whose destination is id, in catalog order, each
// with the rel its source declares. The slice is shared.
func (g *Graph) In(id string) []Edge {
	if n, ok := g.nodes[id]; ok {
		return n.in
	}
	return nil
}

// Children returns the rows whose parent is id, in id order. The slice
// is shared.
func (g *Graph) Children(id string) []*Row {
	if n, ok := g.nodes[id]; ok {
		return n.children
	}
	return nil
}
