// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"slices"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

// Directions of move.
const (
	DirectionOut  = "out"
	DirectionIn   = "in"
	DirectionBoth = "both"
)

// relChildren is move's sugar rel for a node's physical children.
const relChildren = "children"

// MoveOptions are the wire parameters of move besides the id.
type MoveOptions struct {
	// Rel keeps only edges of this rel; for in-edges it matches the
	// stored rel or its inverse. "children" lists the physical children
	// instead of edges. Unknown rels simply match nothing.
	Rel string

	// Direction is "out" (the default when ""), "in" or "both"; anything
	// else is refused with E_SCHEMA before the node is looked up.
	Direction string

	// Gauntlet false opts out of goal-ordered neighbours; nil or true
	// means on when the dense layer is ready (an embedder is bound and an
	// index of its model exists, K.1): neighbours are then ordered by
	// proximity to the goal before the budget, and the answer carries a
	// frontier. Otherwise the answer is byte for byte the heat order.
	Gauntlet *bool

	// Toward overrides the session goal for this call's Gauntlet.
	Toward string
}

// Neighbors is move's answer (C.3): the node's neighbours, hottest first,
// within 600 tokens; Truncated says neighbours were cut from the tail.
type Neighbors struct {
	Neighbors []Neighbor `json:"neighbors"`
	Truncated bool       `json:"truncated"`
	// Frontier is set when the Gauntlet ordered the neighbours.
	Frontier *Frontier `json:"frontier,omitempty"`
}

// Neighbor is one node at the other end of an edge (or a child). Rel is
// shown from this node's side: an in-edge carries the inverse rel. The
// summary is the neighbour's full summary; a neighbour missing from the
// catalog shows type "?" and an empty summary.
type Neighbor struct {
	ID        string  `json:"id"`
	Rel       string  `json:"rel"`
	Direction string  `json:"direction"`
	Type      string  `json:"type"`
	Summary   string  `json:"summary"`
	Heat      float64 `json:"heat"`
}

func (n *Neighbors) nodeIDs() []string {
	ids := make([]string, len(n.Neighbors))
	for i, nb := range n.Neighbors {
		ids[i] = nb.ID
	}
	return ids
}

// Move lists the neighbours of one node from the catalog alone (no file is
// opened), hottest first — or nearest the goal first when the Gauntlet
// applies (see MoveOptions) — within 600 tokens, cut from the tail.
func (v *Vine) Move(ctx context.Context, id string, opt MoveOptions) (*Neighbors, error) {
	dir := opt.Direction
	if dir == "" {
		dir = DirectionOut
	}
	if dir != DirectionOut && dir != DirectionIn && dir != DirectionBoth {
		return nil, errDirection(dir)
	}
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	g := gauntletFor(ctx, v.canopy, opt.Gauntlet, opt.Toward)
	var list []Neighbor
	sampled := false
	if opt.Rel == relChildren {
		list, err = moveChildren(ctx, neighborsOf(v), rec.ID)
	} else {
		list, sampled, err = moveEdges(ctx, neighborsOf(v), v.Dialect(), rec, opt.Rel, dir, g == nil)
	}
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(list, func(a, b Neighbor) int { return byHeatDesc(a.Heat, b.Heat) })
	res := &Neighbors{Neighbors: listOrEmpty(list), Truncated: sampled}
	if g != nil {
		gauntletOrder(g, res.Neighbors, func(n Neighbor) string { return n.ID }, func(n Neighbor) float64 { return n.Heat })
		res.Frontier = frontierOf(g)
	}
	if budget.ShrinkTail(&res.Neighbors, BudgetMove, func() any { return res }) > 0 {
		res.Truncated = true
	}
	return res, nil
}

func errDirection(got string) error {
	return envelope.Errorf(envelope.Schema,
		"move: parameter 'direction' got %q, expected one of out, in, both", got).
		WithHint(`use "both" for edges in every direction`)
}

// moveChildren lists the physical children of a branch; a leaf has none.
func moveChildren(ctx context.Context, nb neighbors, id string) ([]Neighbor, error) {
	rows, err := nb.children(ctx, id)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	heat := nb.heat.read(ctx, ids)
	out := make([]Neighbor, len(rows))
	for i, r := range rows {
		out[i] = Neighbor{ID: r.id, Rel: relChildren, Direction: DirectionOut, Type: r.typ,
			Summary: r.summary, Heat: readHeatRound(heat[r.id])}
	}
	return out, nil
}

// moveSample is how many of a hub's cold in-edges move considers: more
// than its 600 tokens can show (a neighbour renders in 18 tokens at the
// least, so 33 at most).
const moveSample = 64

// moveEdges lists edge neighbours in catalog order, out-edges first. A
// hub's in-edges are sampled as look samples them (neighbors.inEdges) when
// the order is by heat and every edge type is listed; sampled reports
// that neighbours were left out, all of them beyond what the answer can
// hold.
func moveEdges(ctx context.Context, nb neighbors, dialect *forest.Dialect, rec catalog.Record, rel, dir string, byHeat bool) (list []Neighbor, sampled bool, err error) {
	if dir != DirectionIn {
		sc := scopeOf(ctx)
		for _, e := range rec.Edges {
			if (rel == "" || e.Rel == rel) && sc.in(e.Dst) {
				list = append(list, Neighbor{ID: e.Dst, Rel: e.Rel, Direction: DirectionOut})
			}
		}
	}
	if dir != DirectionOut {
		ins, degree, err := nb.inEdges(ctx, rec.ID, byHeat && rel == "", moveSample) // hidden sources are no neighbours
		if err != nil {
			return nil, false, err
		}
		sampled = len(ins) < degree
		for _, e := range ins {
			shown := dialect.Inverse(e.Rel)
			if rel == "" || e.Rel == rel || shown == rel {
				list = append(list, Neighbor{ID: e.Src, Rel: shown, Direction: DirectionIn})
			}
		}
	}
	ids := make([]string, len(list))
	for i, n := range list {
		ids[i] = n.ID
	}
	rows, err := nb.rows(ctx, ids)
	if err != nil {
		return nil, false, err
	}
	heat := nb.heat.read(ctx, ids)
	for i := range list {
		n := &list[i]
		n.Type, n.Summary, n.Heat = "?", "", readHeatRound(heat[n.ID])
		if r, ok := rows[n.ID]; ok {
			n.Type, n.Summary = r.typ, r.summary
		}
	}
	return list, sampled, nil
}

// moveSignature is move's row in the signature table.
var moveSignature = Signature{
	Name: "move",
	Doc: "Neighbours of one node across its typed edges, hottest first, with full summaries, within 600 tokens. " +
		"direction out (default), in or both; rel filters by edge type; rel=\"children\" lists a branch's " +
		"children. Read one neighbour with look.",
	Budget: BudgetMove,
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "node id (exact path without .md)"},
		{Name: "rel", Type: TString, Doc: "keep only this edge type (in-edges match its inverse too); \"children\" for a branch's children"},
		{Name: "direction", Type: TString, Default: DirectionOut, Enum: []string{DirectionOut, DirectionIn, DirectionBoth},
			Doc: "out, in, or both for every direction"},
		{Name: "gauntlet", Type: TBoolean, Doc: "false: do not order neighbours by the session goal"},
		{Name: "toward", Type: TString, Doc: "goal text overriding the session goal for this call"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: moveSignature, run: runMove}) }

func runMove(ctx context.Context, v *Vine, a Args) (any, error) {
	opt := MoveOptions{Rel: a.String("rel"), Direction: a.String("direction"), Toward: a.String("toward")}
	if a.Has("gauntlet") {
		g := a.Bool("gauntlet")
		opt.Gauntlet = &g
	}
	return v.Move(ctx, a.String("id"), opt)
}
