// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine/internal/scent"
	"github.com/monkeyllm/vine/internal/window"
)

// The lexical leg through the in-memory copy of the metadata index
// (internal/scent): FTS5's bm25() in this SQLite build cost most of a
// locate. The copy ranks the rows and applies locate's filters; the
// catalog then reads only the passports of the rows kept, by rowid.

// locateIndex is the copy at the catalog's current generation, or nil
// when the catalog's own index must answer (the copy is stale, being
// built, or cannot stand in for this catalog's index).
func (v *Vine) locateIndex(ctx context.Context) *scent.Index {
	if v.scent == nil {
		return nil
	}
	gen, err := v.cat.Generation(ctx)
	if err != nil {
		return nil
	}
	x, err := v.scent.At(ctx, gen)
	if err != nil {
		v.log.Warn("locate: in-memory metadata index unavailable; searching the catalog's", "err", err)
		return nil
	}
	return x
}

// locateScent ranks in the copy: the rows of locateFTS, in its order,
// with the same ranks. A candidate carries its id, kind and rank; its
// passport is read only if it is kept (locatePassports), so the pool's
// other rows cost no catalog read.
func (v *Vine) locateScent(ctx context.Context, x *scent.Index, f locateFilter, ts []string, pool int) ([]locateCand, error) {
	phrases, err := v.scent.Phrases(ts)
	if err != nil {
		v.log.Warn("locate: splitting the terms failed; searching the catalog's index", "err", err)
		return v.locateFTS(ctx, f, ts, pool)
	}
	if len(phrases) == 0 {
		return nil, nil // no terms, no rows
	}
	var out []locateCand
	for _, h := range x.Search(phrases, pool, f.keep()) {
		if !h.Doc.Node {
			continue // the SQL's join to nodes drops it after the limit
		}
		c := locateCand{id: h.Doc.ID, kind: "note", rank: h.Rank, rowid: h.RowID}
		if h.Doc.Branch {
			c.kind = "branch"
		}
		out = append(out, c)
	}
	setLocateStrength(out)
	return out, nil
}

// keep is the filter as a test over an index row, the twin of sql: nil
// when nothing narrows. A filtered row must have a node (the SQL joins
// nodes before the limit).
func (f locateFilter) keep() func(*scent.Doc) bool {
	if f.kind == "" && f.typ == "" && !f.win.Active() && !f.scope.restricted() {
		return nil
	}
	inWindow := windowTest(f.win)
	return func(d *scent.Doc) bool {
		switch {
		case !d.Node,
			f.kind == "branch" && !d.Branch,
			f.kind == "note" && d.Branch,
			f.typ != "" && d.Type != f.typ,
			!inWindow(d),
			f.scope.restricted() && !f.scope.in(d.ID):
			return false
		}
		return true
	}
}

// windowTest is the window's SQL predicate over a row's date, its bounds
// taken from the predicate's own arguments once per call (Contains
// would work the day after until out again for every row).
func windowTest(w window.Window) func(*scent.Doc) bool {
	if !w.Active() {
		return func(*scent.Doc) bool { return true }
	}
	_, args := w.SQL("")
	var lo, hi string
	if w.Since != "" {
		lo, args = args[0].(string), args[1:]
	}
	if w.Until != "" {
		hi = args[0].(string)
	}
	updated := w.Field == window.Updated
	return func(d *scent.Doc) bool {
		date := d.Created
		if updated {
			date = d.Updated
		}
		return date != "" && (lo == "" || date >= lo) && (hi == "" || date < hi)
	}
}

// locatePassportsSQL reads the candidate columns of rows by rowid.
var locatePassportsSQL = "SELECT " + locateColumns("n") + ", n.rowid FROM nodes AS n " +
	"WHERE n.rowid IN (SELECT value FROM json_each(?))"

// locatePassports fills the passports the copy left unread, in one read
// by rowid. A row whose node is gone, or holds another node since the
// copy was built (a write in between), is dropped, as a read one write
// later would not have found it.
func (v *Vine) locatePassports(ctx context.Context, cands []locateCand) ([]locateCand, error) {
	var list strings.Builder
	for _, c := range cands {
		if c.rowid == 0 {
			continue
		}
		if list.Len() > 0 {
			list.WriteByte(',')
		}
		list.WriteString(strconv.FormatInt(c.rowid, 10))
	}
	if list.Len() == 0 {
		return cands, nil
	}
	st, err := v.stmts.Prepare(ctx, locatePassportsSQL)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, "["+list.String()+"]")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byRow := make(map[int64]locateCand, len(cands))
	for rows.Next() {
		var c locateCand
		var rowid int64
		if err := rows.Scan(&c.id, &c.kind, &c.typ, &c.title, &c.summary, &c.bodyTokens, &c.coverage, &c.outline, &rowid); err != nil {
			return nil, err
		}
		byRow[rowid] = c
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := cands[:0]
	for _, c := range cands {
		if c.rowid != 0 {
			p, ok := byRow[c.rowid]
			if !ok || p.id != c.id {
				continue
			}
			p.rank, p.strength, p.heat, p.score = c.rank, c.strength, c.heat, c.score
			c = p
		}
		out = append(out, c)
	}
	return out, nil
}
