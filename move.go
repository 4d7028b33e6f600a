// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"log/slog"
	"slices"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/adjacency"
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

	runes int // the answer's size in the measured rendering; 0 unknown
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
	nb := neighborsOf(v)
	graph := moveGraph(ctx, v.cat, v.adjacency, v.log)
	from, err := moveFrom(ctx, v.resolver, nb, graph, id)
	if err != nil {
		return nil, err
	}
	g := gauntletFor(ctx, v.canopy, opt.Gauntlet, opt.Toward)
	var list []Neighbor
	sampled := false
	if opt.Rel == relChildren {
		list, err = moveChildren(ctx, nb, graph, from.id)
	} else {
		list, sampled, err = moveEdges(ctx, nb, graph, v.Dialect(), from, opt.Rel, dir, g == nil)
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
	res.cut()
	return res, nil
}

// cut shrinks the answer to BudgetMove from the tail and says so in
// Truncated. An answer without a frontier is sized from its parts (the
// neighbours' strings and heats), which costs a fraction of rendering it,
// is cut where budget.ShrinkTail would cut it, and keeps its size for
// payloadTokens.
func (n *Neighbors) cut() {
	n.runes = 0
	sizes, ok := neighborSizes(n.Neighbors)
	if !ok || n.Frontier != nil || n.Neighbors == nil { // a nil list renders null
		if budget.ShrinkTail(&n.Neighbors, BudgetMove, func() any { return n }) > 0 {
			n.Truncated = true
		}
		return
	}
	keep := budget.FitPrefix(neighborsFrame(n.Truncated), sizes, BudgetMove)
	n.Truncated = n.Truncated || keep < len(sizes)
	n.Neighbors = n.Neighbors[:keep]
	n.runes = neighborsFrame(n.Truncated) + len(", ")*max(keep-1, 0)
	for _, s := range sizes[:keep] {
		n.runes += s
	}
}

// payloadTokens is budget.EstimatePayloadTokens of the answer, from the
// size the cut measured: the trace of every call counts the tokens it
// returns, and rendering the answer again was a tenth of a move.
func (n *Neighbors) payloadTokens() (int, bool) {
	if n.runes == 0 {
		return 0, false
	}
	return max(1, (n.runes+3)/4), true
}

// The code points of the measured rendering (budget.Render) around the
// values: {"neighbors": [ … ], "truncated": false} around the list, and
// {"id": …, "rel": …, "direction": …, "type": …, "summary": …, "heat": …}
// around a neighbour's six values. TestMoveSizesMatchTheRendering holds
// them to the rendering.
const (
	neighborsFrameRunes = len(`{"neighbors": [], "truncated": }`)
	neighborFrameRunes  = len(`{"id": , "rel": , "direction": , "type": , "summary": , "heat": }`)
)

// neighborsFrame is the size of an answer without a frontier less its
// neighbours.
func neighborsFrame(truncated bool) int {
	if truncated {
		return neighborsFrameRunes + len("true")
	}
	return neighborsFrameRunes + len("false")
}

// neighborSizes is the size of each neighbour; ok is false when a heat
// is no JSON number (NaN or infinite), which only a render can judge.
func neighborSizes(list []Neighbor) (sizes []int, ok bool) {
	sizes = make([]int, len(list))
	for i, n := range list {
		heat, ok := budget.FloatRunes(n.Heat)
		if !ok {
			return nil, false
		}
		sizes[i] = neighborFrameRunes + heat + budget.StringRunes(n.ID) + budget.StringRunes(n.Rel) +
			budget.StringRunes(n.Direction) + budget.StringRunes(n.Type) + budget.StringRunes(n.Summary)
	}
	return sizes, true
}

// moveOrigin is the node a move starts from: its id and its out-edges in
// catalog order, each with its target's type and summary (heat not yet).
type moveOrigin struct {
	id  string
	out []Neighbor
}

// moveOriginSQL reads a node's out-edges with their targets' rows, one
// row with NULL edge columns for a node without out-edges, and none for
// an id the catalog does not hold.
const moveOriginSQL = `SELECT e.rel, e.dst, t.id, t.type, t.summary FROM nodes AS n
	LEFT JOIN edges AS e ON e.src = n.id LEFT JOIN nodes AS t ON t.id = e.dst
	WHERE n.id = ? ORDER BY e.rowid`

// moveFrom resolves the id a move starts from. Move reads the catalog
// alone, never the node's file, so an id a string check admits
// (resolver.lexicalID) whose row exists is served from the adjacency
// copy, or without one from one statement that also reads its out-edges
// and their targets (spec 02 §6 step 1); resolving symlinks per path
// component cost more than the rest of the read. Without a row, or when
// that statement fails, the full resolution runs: symlink containment,
// self-heal, waymark, the exact refusal.
func moveFrom(ctx context.Context, r resolver, nb neighbors, graph *adjacency.Graph, raw string) (moveOrigin, error) {
	if id, ok := r.lexicalID(ctx, raw); ok {
		if graph != nil && graph.Has(id) {
			return moveOrigin{id: id, out: graphOut(graph.Out(id))}, nil
		}
		if graph == nil {
			if out, found, err := moveOutEdges(ctx, nb, id); err == nil && found {
				return moveOrigin{id: id, out: out}, nil
			}
		}
	}
	rec, err := r.resolve(ctx, raw)
	if err != nil {
		return moveOrigin{}, err
	}
	out := make([]Neighbor, len(rec.Edges))
	for i, e := range rec.Edges {
		out[i] = Neighbor{ID: e.Dst, Rel: e.Rel, Direction: DirectionOut}
	}
	return moveOrigin{id: rec.ID, out: out}, fillNeighborRows(ctx, nb, out)
}

// moveGraph is the adjacency copy of m at cat's current generation, or
// nil when the catalog must answer (the copy is stale, being built, or
// cannot be kept fresh for this catalog).
func moveGraph(ctx context.Context, cat *catalog.Catalog, m *adjacency.Model, log *slog.Logger) *adjacency.Graph {
	if m == nil {
		return nil
	}
	gen, err := cat.Generation(ctx)
	if err != nil {
		return nil
	}
	g, err := m.At(ctx, gen)
	if err != nil {
		log.Warn("move: in-memory adjacency unavailable; reading the catalog", "err", err)
		return nil
	}
	return g
}

// graphOut is the copy's out-edges of a node as neighbours, in order.
func graphOut(edges []adjacency.Edge) []Neighbor {
	if len(edges) == 0 {
		return nil
	}
	out := make([]Neighbor, len(edges))
	for i, e := range edges {
		out[i] = graphNeighbor(e, e.Rel, DirectionOut)
	}
	return out
}

// graphNeighbor is the neighbour at the other end of e, shown with rel;
// one missing from the catalog shows type "?" and no summary.
func graphNeighbor(e adjacency.Edge, rel, dir string) Neighbor {
	n := Neighbor{ID: e.Peer, Rel: rel, Direction: dir, Type: "?"}
	if e.Row != nil {
		n.Type, n.Summary = e.Row.Type, e.Row.Summary
	}
	return n
}

// moveOutEdges runs moveOriginSQL; found says the catalog holds id.
func moveOutEdges(ctx context.Context, nb neighbors, id string) (out []Neighbor, found bool, err error) {
	st, err := nb.stmts.Prepare(ctx, moveOriginSQL)
	if err != nil {
		return nil, false, err
	}
	rows, err := st.QueryContext(ctx, id)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		found = true
		var rel, dst, target, typ, summary sql.NullString
		if err := rows.Scan(&rel, &dst, &target, &typ, &summary); err != nil {
			return nil, false, err
		}
		if !dst.Valid {
			continue // the node has no out-edges
		}
		n := Neighbor{ID: dst.String, Rel: rel.String, Direction: DirectionOut, Type: "?"}
		if target.Valid {
			n.Type, n.Summary = typ.String, summary.String
		}
		out = append(out, n)
	}
	return out, found, rows.Err()
}

func errDirection(got string) error {
	return envelope.Errorf(envelope.Schema,
		"move: parameter 'direction' got %q, expected one of out, in, both", got).
		WithHint(`use "both" for edges in every direction`)
}

// moveChildren lists the physical children of a branch; a leaf has none.
func moveChildren(ctx context.Context, nb neighbors, graph *adjacency.Graph, id string) ([]Neighbor, error) {
	rows, err := childRows(ctx, nb, graph, id)
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

// childRows are the children of id the call's policy can see, in id
// order, from the copy when there is one.
func childRows(ctx context.Context, nb neighbors, graph *adjacency.Graph, id string) ([]digestRow, error) {
	if graph == nil {
		return nb.children(ctx, id)
	}
	var out []digestRow
	sc := scopeOf(ctx)
	for _, r := range graph.Children(id) {
		if sc.in(r.ID) {
			out = append(out, digestRow{id: r.ID, typ: r.Type, summary: r.Summary})
		}
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
func moveEdges(ctx context.Context, nb neighbors, graph *adjacency.Graph, dialect *forest.Dialect, from moveOrigin, rel, dir string, byHeat bool) (list []Neighbor, sampled bool, err error) {
	if dir != DirectionIn {
		sc := scopeOf(ctx)
		for _, n := range from.out {
			if (rel == "" || n.Rel == rel) && sc.in(n.ID) {
				list = append(list, n)
			}
		}
	}
	if dir != DirectionOut {
		var srcs []Neighbor
		if graph != nil {
			srcs, sampled = graphIns(ctx, nb, graph, dialect, from.id, rel, byHeat)
		} else if srcs, sampled, err = catalogIns(ctx, nb, dialect, from.id, rel, byHeat); err != nil {
			return nil, false, err
		}
		list = append(list, srcs...)
	}
	ids := make([]string, len(list))
	for i, n := range list {
		ids[i] = n.ID
	}
	heat := nb.heat.read(ctx, ids)
	for i := range list {
		list[i].Heat = readHeatRound(heat[list[i].ID])
	}
	return list, sampled, nil
}

// catalogIns lists in-edge neighbours from the catalog, shown with their
// inverse rels and kept when rel names either; hidden sources are no
// neighbours.
func catalogIns(ctx context.Context, nb neighbors, dialect *forest.Dialect, id, rel string, byHeat bool) ([]Neighbor, bool, error) {
	ins, degree, err := nb.inEdges(ctx, id, byHeat && rel == "", moveSample)
	if err != nil {
		return nil, false, err
	}
	var srcs []Neighbor
	for _, e := range ins {
		shown := dialect.Inverse(e.Rel)
		if rel == "" || e.Rel == rel || shown == rel {
			srcs = append(srcs, Neighbor{ID: e.Src, Rel: shown, Direction: DirectionIn})
		}
	}
	return srcs, len(ins) < degree, fillNeighborRows(ctx, nb, srcs)
}

// graphIns is catalogIns from the adjacency copy.
func graphIns(ctx context.Context, nb neighbors, graph *adjacency.Graph, dialect *forest.Dialect, id, rel string, byHeat bool) ([]Neighbor, bool) {
	ins, degree := graphInEdges(ctx, nb, graph.In(id), byHeat && rel == "", moveSample)
	var srcs []Neighbor
	for _, e := range ins {
		shown := dialect.Inverse(e.Rel)
		if rel == "" || e.Rel == rel || shown == rel {
			srcs = append(srcs, graphNeighbor(e, shown, DirectionIn))
		}
	}
	return srcs, len(ins) < degree
}

// graphInEdges is neighbors.inEdges over a node's in-edges from the copy:
// the same sample of a hub (the first shown, then those from a node with
// heat), or every edge whose source the call's policy can see.
func graphInEdges(ctx context.Context, nb neighbors, all []adjacency.Edge, byHeat bool, shown int) ([]adjacency.Edge, int) {
	sc := scopeOf(ctx)
	if lister, ok := nb.heat.source.(HeatLister); ok && byHeat && !sc.restricted() && len(all) >= max(sampleInDegree, shown) {
		hot, ok, err := lister.Hot(ctx, maxHotSample)
		if err != nil {
			nb.log.Warn("heat read failed; reading every in-edge", "err", err)
		}
		if ok && err == nil {
			sample := all[:shown:shown]
			for _, e := range all[shown:] {
				if _, h := hot[e.Peer]; h {
					sample = append(sample, e)
				}
			}
			return sample, len(all)
		}
	}
	if !sc.restricted() {
		return all, len(all)
	}
	var out []adjacency.Edge
	for _, e := range all {
		if sc.in(e.Peer) {
			out = append(out, e)
		}
	}
	return out, len(out)
}

// fillNeighborRows sets the type and summary of neighbours from their
// catalog rows; one missing from the catalog shows type "?" and no
// summary.
func fillNeighborRows(ctx context.Context, nb neighbors, list []Neighbor) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]string, len(list))
	for i, n := range list {
		ids[i] = n.ID
	}
	rows, err := nb.rows(ctx, ids)
	if err != nil {
		return err
	}
	for i := range list {
		n := &list[i]
		n.Type, n.Summary = "?", ""
		if r, ok := rows[n.ID]; ok {
			n.Type, n.Summary = r.typ, r.summary
		}
	}
	return nil
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
