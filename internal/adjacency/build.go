// SPDX-License-Identifier: Apache-2.0

package adjacency

import (
	"context"
	"errors"

	"github.com/monkeyllm/vine/catalog"
)

// Source is the catalog a Graph is read from.
type Source interface {
	Generation(ctx context.Context) (int64, error)
	Walk(ctx context.Context, node func(catalog.Record) error, edge func(src string, e catalog.Edge) error) error
	HasColumn(table, column string) bool
}

// errMoved says a write landed while the graph was read.
var errMoved = errors.New("adjacency: the catalog changed while it was read")

// Build reads the nodes and edges of src into a Graph. Walk reads in one
// snapshot but does not say of which generation, so the generation is
// read before and after: equal, no write committed in between and the
// snapshot is of that generation; otherwise Build fails with errMoved.
func Build(ctx context.Context, src Source) (*Graph, error) {
	before, err := src.Generation(ctx)
	if err != nil {
		return nil, err
	}
	g := &Graph{gen: before, nodes: map[string]*node{}}
	var order []*node // id order, as Walk reads the nodes
	var parents []string
	err = src.Walk(ctx, func(r catalog.Record) error {
		n := &node{row: Row{ID: r.ID, Type: r.Type, Summary: r.Summary}}
		g.nodes[r.ID] = n
		order = append(order, n)
		parents = append(parents, r.Parent)
		return nil
	}, g.addEdge)
	if err != nil {
		return nil, err
	}
	for i, n := range order {
		if p, ok := g.nodes[parents[i]]; ok && parents[i] != "" {
			p.children = append(p.children, &n.row)
		}
	}
	after, err := src.Generation(ctx)
	if err != nil {
		return nil, err
	}
	if after != before {
		return nil, errMoved
	}
	return g, nil
}

// addEdge files an edge under both its ends; an end the catalog holds no
// row for is no node a move starts from, so it files nothing there.
func (g *Graph) addEdge(src string, e catalog.Edge) error {
	from, to := g.nodes[src], g.nodes[e.Dst]
	if from != nil {
		out := Edge{Rel: e.Rel, Peer: e.Dst}
		if to != nil {
			out.Row = &to.row
		}
		from.out = append(from.out, out)
	}
	if to != nil {
		in := Edge{Rel: e.Rel, Peer: src}
		if from != nil {
			in.Row = &from.row
		}
		to.in = append(to.in, in)
	}
	return nil
}
