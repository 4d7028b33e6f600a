// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"math"
	"regexp"
	"slices"

	"github.com/monkeyllm/vine/catalog"
)

// Shared by look, move and view: neighbour rows from the catalog, heat
// rounding, and what a stat says about a payload.

// Budgets and caps of the entry reads (spec 02 §0.1), in tokens and ids.
const (
	BudgetLook         = 500  // one digest, also each digest inside a batch
	BudgetNotes        = 200  // the notes of a dataset or media digest
	BudgetLookBatch    = 2000 // a whole batch look
	BudgetMove         = 600  // a whole move response
	BudgetPick         = 4000 // one body, page or section list; a whole batch pick
	NeighborSummaryMax = 25   // tokens of a neighbour summary in look
	MaxEdgesShown      = 12   // per edge list in look
	MaxBatchLook       = 10   // ids per batch look
	MaxBatchPick       = 5    // ids per batch pick
	MaxPickSections    = 10   // names in a pick section list
)

const (
	neighborRowsSQL = `SELECT id, type, summary FROM nodes WHERE id IN (SELECT value FROM json_each(?))`
	childRowsSQL    = `SELECT id, type, summary FROM nodes WHERE parent = ? ORDER BY id`
)

// remoteURI matches a payload or source path carrying a scheme (G.9); a
// read never fetches one.
var remoteURI = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`)

// digestRow is what a neighbour shows of itself: its type and summary.
type digestRow struct {
	id, typ, summary string
}

// neighbors reads what look and move show of a node's neighbours: their
// catalog rows, a branch's children and a hub's in-edges, with heat.
type neighbors struct {
	cat   *catalog.Catalog
	stmts *stmtCache
	heat  *heatLayer
	log   *slog.Logger
}

// neighborsOf reads neighbours from v's catalog and heat.
func neighborsOf(v *Vine) neighbors {
	return neighbors{cat: v.cat, stmts: &v.stmts, heat: &v.heat, log: v.log}
}

// rows reads the catalog rows of ids in one statement. Ids absent from the
// catalog (dangling links) are absent from the map.
func (n neighbors) rows(ctx context.Context, ids []string) (map[string]digestRow, error) {
	out := make(map[string]digestRow, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	st, err := n.stmts.Prepare(ctx, neighborRowsSQL)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var r digestRow
		if err := rows.Scan(&r.id, &r.typ, &r.summary); err != nil {
			return nil, err
		}
		out[r.id] = r
	}
	return out, rows.Err()
}

// children lists the physical children of a branch (catalog parent = id:
// sub-branch indexes and direct leaves) in id order, those the call's
// policy can see.
func (n neighbors) children(ctx context.Context, id string) ([]digestRow, error) {
	st, err := n.stmts.Prepare(ctx, childRowsSQL)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []digestRow
	sc := scopeOf(ctx)
	for rows.Next() {
		var r digestRow
		if err := rows.Scan(&r.id, &r.typ, &r.summary); err != nil {
			return nil, err
		}
		if sc.in(r.id) {
			out = append(out, r)
		}
	}
	return out, rows.Err()
}

// Bounds of the in-edge sample: below sampleInDegree a node's in-edges
// are read whole; the sample stands only while at most maxHotSample nodes
// of the forest have heat.
const (
	sampleInDegree = 64
	maxHotSample   = 1024
)

// inEdges returns the in-edges a reader ranks by heat and shows at
// most shown of, with their count. A hub's are sampled when ranking needs
// heat only (byHeat): the first shown in catalog order and every one from
// a node with heat. Ordered by heat, stably, those give the same first
// shown as all of them: hot sources first, then cold ones in catalog
// order. The sample is not taken when a policy hides sources (the count
// would include them) or the heat source cannot list its hot nodes; at
// 100,000 nodes a hub's 1,800 in-edges and their heat were 7 ms of an
// 8 ms look.
func (n neighbors) inEdges(ctx context.Context, id string, byHeat bool, shown int) ([]catalog.InEdge, int, error) {
	if lister, ok := n.heat.source.(HeatLister); ok && byHeat && !scopeOf(ctx).restricted() {
		degree, err := n.cat.InDegree(ctx, id)
		if err != nil {
			return nil, 0, err
		}
		if degree >= sampleInDegree {
			hot, ok, err := lister.Hot(ctx, maxHotSample)
			if err != nil {
				n.log.Warn("heat read failed; reading every in-edge", "err", err)
			}
			if ok && err == nil {
				ins, err := n.cat.InEdgesSample(ctx, id, shown, slices.Collect(maps.Keys(hot)))
				return ins, degree, err
			}
		}
	}
	ins, err := visibleInEdges(ctx, n.cat, id)
	return ins, len(ins), err
}

// readHeatRound rounds a heat to the four decimals every read shows.
func readHeatRound(h float64) float64 { return math.Round(h*1e4) / 1e4 }

// wireObject writes a JSON object key by key, in the order given, without
// HTML escaping: the wire order of a result is part of its contract.
type wireObject struct {
	buf bytes.Buffer
	enc *json.Encoder
	n   int
}

func newWireObject() *wireObject {
	o := &wireObject{}
	o.enc = json.NewEncoder(&o.buf)
	o.enc.SetEscapeHTML(false)
	o.buf.WriteByte('{')
	return o
}

// add writes one member.
func (o *wireObject) add(key string, v any) error {
	if o.n > 0 {
		o.buf.WriteByte(',')
	}
	o.n++
	if err := o.enc.Encode(key); err != nil {
		return err
	}
	o.buf.Truncate(o.buf.Len() - 1) // Encode's newline
	o.buf.WriteByte(':')
	if err := o.enc.Encode(v); err != nil {
		return err
	}
	o.buf.Truncate(o.buf.Len() - 1)
	return nil
}

// bytes closes the object and returns it.
func (o *wireObject) bytes() []byte {
	o.buf.WriteByte('}')
	return o.buf.Bytes()
}
