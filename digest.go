package vine

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"regexp"
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

// digestNeighborRows reads the catalog rows of ids in one statement. Ids absent
// from the catalog (dangling links) are absent from the map.
func (v *Vine) digestNeighborRows(ctx context.Context, ids []string) (map[string]digestRow, error) {
	out := make(map[string]digestRow, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	st, err := v.stmts.Prepare(ctx, neighborRowsSQL)
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

// digestChildRows lists the physical children of a branch (catalog parent = id:
// sub-branch indexes and direct leaves) in id order.
func (v *Vine) digestChildRows(ctx context.Context, id string) ([]digestRow, error) {
	st, err := v.stmts.Prepare(ctx, childRowsSQL)
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
