// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/scent"
	"github.com/monkeyllm/vine/internal/sniff"
)

// locator is locate's lexical leg: it ranks candidates by their curated
// metadata and counts what the leg searches, through the in-memory copy
// of the metadata index (internal/scent) when the copy is at the
// catalog's generation, else through the catalog's FTS5 index. FTS5's
// bm25() in this SQLite build cost most of a locate; the copy ranks the
// rows and applies locate's filters, and the catalog then reads only the
// passports of the rows kept, by rowid. Both give the same rows in the
// same order (locateindex_test.go).
//
// The locator owns the copy; Locate owns the call (options, heat,
// the dense leg, the budget).
type locator struct {
	cat     *catalog.Catalog
	stmts   *stmtCache
	model   *scent.Model  // the in-memory copy; nil on a Vine that did not open
	sniffer *sniff.Engine // term and node counts without the copy
	log     *slog.Logger
}

func newLocator(cat *catalog.Catalog, stmts *stmtCache, sniffer *sniff.Engine, log *slog.Logger) locator {
	return locator{cat: cat, stmts: stmts, model: scent.NewModel(cat, &catalog.Tokenizer{}), sniffer: sniffer, log: log}
}

// close releases the copy.
func (l *locator) close() error {
	if l.model == nil {
		return nil
	}
	return l.model.Close()
}

// index is the copy at the catalog's current generation, or nil when the
// catalog's own index must answer (the copy is stale, being built, or
// cannot stand in for this catalog's index).
func (l *locator) index(ctx context.Context) *scent.Index {
	if l.model == nil {
		return nil
	}
	gen, err := l.cat.Generation(ctx)
	if err != nil {
		return nil
	}
	x, err := l.model.At(ctx, gen)
	if err != nil {
		l.log.Warn("locate: in-memory metadata index unavailable; searching the catalog's", "err", err)
		return nil
	}
	return x
}

// candidates runs the lexical leg: at most pool rows, best first, ranked
// by the copy when it is at the catalog's generation (x), else by the
// catalog's FTS5 index.
func (l *locator) candidates(ctx context.Context, x *scent.Index, f locateFilter, ts []string, pool int) ([]locateCand, error) {
	if x != nil {
		return l.scent(ctx, x, f, ts, pool)
	}
	return l.fts(ctx, f, ts, pool)
}

// fts ranks in the catalog's FTS5 index.
func (l *locator) fts(ctx context.Context, f locateFilter, ts []string, pool int) ([]locateCand, error) {
	match := catalog.MatchExpr(ts)
	if match == "" {
		return nil, nil // no terms, no rows
	}
	filter, fargs := f.sql()
	st, err := l.stmts.Prepare(ctx, locateSQL(filter))
	if err != nil {
		return nil, err
	}
	args := append(append([]any{match}, fargs...), pool)
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []locateCand
	for rows.Next() {
		var c locateCand
		if err := rows.Scan(&c.id, &c.kind, &c.typ, &c.title, &c.summary, &c.bodyTokens, &c.coverage, &c.outline, &c.rank); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	setLocateStrength(out)
	return out, nil
}

// scent ranks in the copy: the rows of fts, in its order, with the same
// ranks. A candidate carries its id, kind and rank; its passport is read
// only if it is kept (passports), so the pool's other rows cost no
// catalog read.
func (l *locator) scent(ctx context.Context, x *scent.Index, f locateFilter, ts []string, pool int) ([]locateCand, error) {
	phrases, err := l.model.Phrases(ts)
	if err != nil {
		l.log.Warn("locate: splitting the terms failed; searching the catalog's index", "err", err)
		return l.fts(ctx, f, ts, pool)
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

// locatePassportsSQL reads the candidate columns of rows by rowid.
var locatePassportsSQL = "SELECT " + locateColumns("n") + ", n.rowid FROM nodes AS n " +
	"WHERE n.rowid IN (SELECT value FROM json_each(?))"

// passports fills the passports the copy left unread, in one read by
// rowid. A row whose node is gone, or holds another node since the copy
// was built (a write in between), is dropped, as a read one write later
// would not have found it.
func (l *locator) passports(ctx context.Context, cands []locateCand) ([]locateCand, error) {
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
	st, err := l.stmts.Prepare(ctx, locatePassportsSQL)
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

// searched counts the nodes the caller may see: from the copy when every
// node has a row there, else from the catalog (a count over every node:
// 5 ms at 100,000).
func (l *locator) searched(ctx context.Context, x *scent.Index) (int, error) {
	if x != nil {
		if n, all := x.Nodes(); all {
			s := scopeOf(ctx)
			if !s.restricted() {
				return n, nil
			}
			n = 0
			for d := range x.Docs() {
				if doc := x.Doc(d); doc.Node && s.in(doc.ID) {
					n++
				}
			}
			return n, nil
		}
	}
	where, args := andScope(ctx, "id", "1", nil)
	return l.stmts.count(ctx, "SELECT count(*) FROM nodes WHERE "+where, args...)
}

// termCounter returns the forest's size and a count of the rows a term
// matches, up to a limit: from the copy when there is one (x), else from
// the catalog's index (see selectTerms).
func (l *locator) termCounter(ctx context.Context, x *scent.Index) (int, func(string, int) (int, error), error) {
	if x != nil {
		nodes, _ := x.Nodes()
		return nodes, func(t string, limit int) (int, error) {
			phrases, err := l.model.Phrases([]string{t})
			if err != nil {
				return l.sniffer.TermRows(ctx, x.Generation(), t, limit)
			}
			if len(phrases) == 0 {
				return 0, nil
			}
			return x.Rows(phrases[0], limit), nil
		}, nil
	}
	gen, err := l.cat.Generation(ctx)
	if err != nil {
		return 0, nil, err
	}
	nodes, err := l.sniffer.ForestSize(ctx, gen)
	if err != nil {
		return 0, nil, err
	}
	return nodes, func(t string, limit int) (int, error) { return l.sniffer.TermRows(ctx, gen, t, limit) }, nil
}
