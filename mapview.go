// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// Map projections (spec 07 §6, J.11) are whole-region views a console
// draws: the graph of nodes and declared edges, and the heat of the
// trails. They are not primitives and grant nothing new: every node and
// edge in them is reachable one by one through look and move, under the
// same policy. Out of scope is absent, and every derived number (degree,
// a branch's coverage under a restricted policy) is recomputed from what
// the caller can see, so a projection never discloses a hidden count.

// Map limits of spec 07 §6.
const (
	DefaultMapLimit = 2000
	MaxMapLimit     = 10000
)

// MapOptions select the region and the size of a map projection.
type MapOptions struct {
	// Scope is a branch: "x", "x/" and "x/_index" name the same one; ""
	// and "_index" are the whole forest. A branch the policy cannot see
	// answers E_NOT_FOUND exactly as an absent one.
	Scope string
	// Limit caps the nodes of a graph or the rows of trails; zero means
	// DefaultMapLimit, and any value is clamped to [1, MaxMapLimit].
	Limit int
}

// MapNode is one node of a graph projection: its passport fields, never
// its body, with the degree and persistent heat seen from the response.
type MapNode struct {
	ID          string          `json:"id"`
	Kind        string          `json:"kind"` // "branch" or "note"
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Summary     string          `json:"summary"`
	Tags        []string        `json:"tags"`
	Parent      *string         `json:"parent"` // nil when the parent is not in the response
	Coverage    *BranchCoverage `json:"coverage"`
	BodyTokens  int             `json:"body_tokens"`
	Payload     *string         `json:"payload"`
	PayloadType *string         `json:"payload_type"`
	Created     *string         `json:"created"` // day precision
	Updated     *string         `json:"updated"` // day precision
	Degree      int             `json:"degree"`  // edges of this response touching the node
	Heat        float64         `json:"heat"`    // persistent heat; 0 when cold
}

// MapEdge is a declared edge whose two ends are both in the response.
type MapEdge struct {
	Src        string  `json:"src"`
	Rel        string  `json:"rel"`
	Dst        string  `json:"dst"`
	Confidence float64 `json:"confidence"` // 3 decimals; 1.0 when undeclared
}

// Graph is the graph projection: nodes sorted by id, edges in declared
// order, and the forest's declared types and rels, sorted.
type Graph struct {
	Nodes     []MapNode `json:"nodes"`
	Edges     []MapEdge `json:"edges"`
	Truncated bool      `json:"truncated"`
	Types     []string  `json:"types"`
	Rels      []string  `json:"rels"`
	Derived   bool      `json:"derived"` // always true: rebuilt by reindex (C.6.1)
}

// NodeIDs lists the graph's node ids, for observers.
func (g *Graph) NodeIDs() []string {
	ids := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[i] = n.ID
	}
	return ids
}

// HeatRow is one row of the trails projection.
type HeatRow struct {
	ID   string  `json:"id"`
	Heat float64 `json:"heat"`
}

// MapHeatStats summarize the rows a trails projection shows.
type MapHeatStats struct {
	Rows int     `json:"rows"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Trails is the trails projection: the region's warm nodes by heat,
// hottest first (ties by id).
type Trails struct {
	Heat      []HeatRow    `json:"heat"`
	Stats     MapHeatStats `json:"stats"`
	Truncated bool         `json:"truncated"`
	Derived   bool         `json:"derived"`
}

// NodeIDs lists the ids of the heat rows, for observers.
func (t *Trails) NodeIDs() []string {
	ids := make([]string, len(t.Heat))
	for i, r := range t.Heat {
		ids[i] = r.ID
	}
	return ids
}

// Graph projects the region's nodes and the declared edges between them
// under the policy (spec 07 §6). Past the limit it keeps the nodes with
// the most visible edges (then by id) and says so with Truncated.
func (sc *Scoped) Graph(ctx context.Context, opt MapOptions) (*Graph, error) {
	ctx, recs, edges, limit, err := sc.mapRead(ctx, opt)
	if err != nil {
		return nil, err
	}
	g := &Graph{Derived: true, Nodes: []MapNode{}, Edges: []MapEdge{}}
	if len(recs) > limit {
		recs = topByDegree(recs, edges, limit)
		g.Truncated = true
	}
	kept := make(map[string]bool, len(recs))
	for _, r := range recs {
		kept[r.ID] = true
	}
	degree := map[string]int{}
	for _, e := range edges {
		if kept[e.Src] && kept[e.Dst] {
			g.Edges = append(g.Edges, e)
			degree[e.Src]++
			degree[e.Dst]++
		}
	}
	heat := sc.v.heat.persistent(ctx, slices.Collect(func(yield func(string) bool) {
		for _, r := range recs {
			if !yield(r.ID) {
				return
			}
		}
	}))
	restricted := scopeOf(ctx).restricted()
	children := childCounts(recs)
	for _, r := range recs {
		g.Nodes = append(g.Nodes, mapNode(r, kept, degree[r.ID], heat[r.ID], restricted, children[r.ID]))
	}
	d := sc.v.Dialect()
	g.Types = slices.Sorted(slices.Values(d.Types))
	for _, r := range d.Rels {
		g.Rels = append(g.Rels, r.Name)
	}
	slices.Sort(g.Rels)
	g.Rels = slices.Compact(g.Rels)
	return g, nil
}

// Trails projects the persistent heat of the region's nodes under the
// policy: session heat is never observable here.
func (sc *Scoped) Trails(ctx context.Context, opt MapOptions) (*Trails, error) {
	ctx, recs, _, limit, err := sc.mapRead(ctx, opt)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	heat := sc.v.heat.persistent(ctx, ids)
	t := &Trails{Derived: true, Heat: []HeatRow{}}
	for _, id := range ids {
		if h := heat[id]; h > 0 {
			t.Heat = append(t.Heat, HeatRow{ID: id, Heat: h})
		}
	}
	slices.SortFunc(t.Heat, func(a, b HeatRow) int {
		return cmp.Or(cmp.Compare(b.Heat, a.Heat), strings.Compare(a.ID, b.ID))
	})
	if len(t.Heat) > limit {
		t.Heat, t.Truncated = t.Heat[:limit], true
	}
	t.Stats = heatStats(t.Heat)
	return t, nil
}

// mapRead is what both projections start with: read needed, the region
// resolved under the policy, its visible rows and edges read. The
// context returned carries the policy.
func (sc *Scoped) mapRead(ctx context.Context, opt MapOptions) (context.Context, []catalog.Record, []MapEdge, int, error) {
	if !sc.s.has(CapRead) {
		return ctx, nil, nil, 0, sc.forbidden("map", CapRead)
	}
	ctx = sc.Context(ctx)
	prefix, limit, err := mapRegion(ctx, sc.v.cat, opt)
	if err != nil {
		return ctx, nil, nil, 0, err
	}
	recs, edges, err := mapWalk(ctx, sc.v.cat, prefix)
	return ctx, recs, edges, limit, err
}

// mapRegion resolves the scope to an id prefix ("" for the whole forest)
// and clamps the limit. An unknown or hidden branch is the absent-node
// envelope of its index.
func mapRegion(ctx context.Context, cat *catalog.Catalog, opt MapOptions) (prefix string, limit int, err error) {
	limit = opt.Limit
	if limit == 0 {
		limit = DefaultMapLimit
	}
	limit = min(max(limit, 1), MaxMapLimit)
	index, err := forest.NormalizeBranch(opt.Scope)
	if err != nil {
		return "", 0, err
	}
	if index == forest.RootIndexID {
		return "", limit, nil
	}
	if _, ok, err := cat.Get(ctx, index); err != nil {
		return "", 0, err
	} else if !ok || !scopeOf(ctx).in(index) {
		return "", 0, notFound(index)
	}
	return forest.BranchDir(index) + "/", limit, nil
}

// mapWalk reads the visible rows under prefix and the declared edges
// whose two ends are among them, with confidence at 3 decimals.
func mapWalk(ctx context.Context, cat *catalog.Catalog, prefix string) ([]catalog.Record, []MapEdge, error) {
	s := scopeOf(ctx)
	var recs []catalog.Record
	seen := map[string]bool{}
	var edges []MapEdge
	err := cat.Walk(ctx, func(r catalog.Record) error {
		if strings.HasPrefix(r.ID, prefix) && s.in(r.ID) {
			recs = append(recs, r)
			seen[r.ID] = true
		}
		return nil
	}, func(src string, e catalog.Edge) error {
		if seen[src] && seen[e.Dst] {
			edges = append(edges, MapEdge{Src: src, Rel: e.Rel, Dst: e.Dst, Confidence: math.Round(e.Confidence*1000) / 1000})
		}
		return nil
	})
	return recs, edges, err
}

// topByDegree keeps the limit rows with the most visible edges, then by
// id, and returns them sorted by id.
func topByDegree(recs []catalog.Record, edges []MapEdge, limit int) []catalog.Record {
	degree := map[string]int{}
	for _, e := range edges {
		degree[e.Src]++
		degree[e.Dst]++
	}
	out := slices.Clone(recs)
	slices.SortFunc(out, func(a, b catalog.Record) int {
		return cmp.Or(cmp.Compare(degree[b.ID], degree[a.ID]), strings.Compare(a.ID, b.ID))
	})
	out = out[:limit]
	slices.SortFunc(out, func(a, b catalog.Record) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// childCounts counts the notes and branches directly under each index
// among recs, the visible coverage of a restricted policy.
func childCounts(recs []catalog.Record) map[string]BranchCoverage {
	out := map[string]BranchCoverage{}
	for _, r := range recs {
		if r.Parent == "" {
			continue
		}
		c := out[r.Parent]
		if r.Kind == "branch" {
			c.Branches++
		} else {
			c.Notes++
		}
		out[r.Parent] = c
	}
	return out
}

// mapNode renders a row. A branch's coverage is its declared one, or
// under a restricted policy the count of its visible children, so a
// hidden child is not counted.
func mapNode(r catalog.Record, kept map[string]bool, degree int, heat float64, restricted bool, visible BranchCoverage) MapNode {
	n := MapNode{
		ID: r.ID, Kind: r.Kind, Type: r.Type, Title: r.Title, Summary: r.Summary,
		Tags: r.Tags, BodyTokens: r.BodyTokens, Degree: degree, Heat: heat,
		Payload: optional(r.Payload), PayloadType: optional(r.PayloadType),
		Created: optional(dayOf(r.Created)), Updated: optional(dayOf(r.Updated)),
	}
	if n.Tags == nil {
		n.Tags = []string{}
	}
	if r.Parent != "" && kept[r.Parent] {
		n.Parent = &r.Parent
	}
	if r.Kind == "branch" {
		if restricted {
			n.Coverage = &visible
		} else if notes, branches, ok := forest.ParseCoverage(r.Coverage); ok {
			n.Coverage = &BranchCoverage{Notes: notes, Branches: branches}
		}
	}
	return n
}

// optional is nil for "", else a pointer to s.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// dayOf cuts a frontmatter date to its day (YYYY-MM-DD).
func dayOf(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

// persistent reads the forest's own persistent heat of ids, without
// any session's: a projection must not make session heat observable.
// A forest without a trails store (or a failed read) is cold.
func (h *heatLayer) persistent(ctx context.Context, ids []string) map[string]float64 {
	if h.store == nil || len(ids) == 0 {
		return map[string]float64{}
	}
	heat, err := h.store.Heat(ctx, ids, "")
	if err != nil {
		h.log.Warn("map heat read failed; projecting cold", "err", err)
		return map[string]float64{}
	}
	return heat
}

// heatStats summarizes the rows shown, means at 4 decimals.
func heatStats(rows []HeatRow) MapHeatStats {
	st := MapHeatStats{Rows: len(rows)}
	if len(rows) == 0 {
		return st
	}
	sum := 0.0
	for _, r := range rows {
		sum += r.Heat
		st.Max = max(st.Max, r.Heat)
	}
	st.Mean = math.Round(sum/float64(len(rows))*1e4) / 1e4
	return st
}

// ParseMapLimit reads the limit of a map route's query string: "" is
// the default (0), anything but an integer is E_SCHEMA naming it. The
// value is clamped later, by the projection.
func ParseMapLimit(raw string) (int, error) {
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil {
		return 0, envelope.New(envelope.Schema, "limit must be an integer, got "+strconv.Quote(raw),
			"limit is a number of nodes between 1 and 10000; the default is 2000")
	}
	return max(n, 1), nil
}
