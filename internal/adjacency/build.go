// SPDX-License-Identifier: Apache-2.0

package adjacency

import (
	"context"

	"github.com/monkeyllm/vine/catalog"
)

// Source is the catalog a Graph is read from.
type Source interface {
	Adjacency(ctx context.Context, node func(*catalog.AdjacencyNode) error, edge func(src, rel, dst string) error) (gen int64, err error)
	HasColumn(table, column string) bool
}

// Build reads the nodes and edges of src, in one snapshot, into the Graph
// of the generation they are of.
func Build(ctx context.Context, src Source) (*Graph, error) {
	g := &Graph{nodes: map[string]*node{}}
	var order []*node // id order, as the catalog reads the nodes
	var parents []string
	gen, err := src.Adjacency(ctx, func(r *catalog.AdjacencyNode) error {
		n := &node{row: Row{ID: r.ID, Type: r.Type, Summary: r.Summary}}
		g.nodes[r.ID] = n
		order = append(order, n)
		parents = append(parents, r.Parent)
		return nil
	}, g.addEdge)
	if err != nil {
		return nil, err
	}
	g.gen = gen
	for i, n := range order {
		if p, ok := g.nodes[parents[i]]; ok && parents[i] != "" {
			p.children = append(p.children, &n.row)
		}
	}
	return g, nil
}

// addEdge files an edge under both its ends; an end the catalog holds no
// row for is no node a move starts from, so it files nothing there.
func (g *Graph) addEdge(src, rel, dst string) error {
	from, to := g.nodes[src], g.nodes[dst]
	if from != nil {
		out := Edge{Rel: rel, Peer: dst}
		if to != nil {
			out.Row = &to.row
		}
		from.out = append(from.out, out)
	}
	if to != nil {
		in := Edge{Rel: rel, Peer: src}
		if from != nil {
			in.Row = &from.row
		}
		to.in = append(to.in, in)
	}
	return nil
}
