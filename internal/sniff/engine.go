// SPDX-License-Identifier: Apache-2.0

// Package sniff is the engine behind the sniff primitive (C.6b): the
// literal body scan, its memo (C.6b.1: the sniff_memo, sniff_cover and
// sniff_terms tables of the catalog, with a hot copy in memory), the fold
// cache file under _derived/sniff, and the ranking of the nodes found.
//
// The root package owns the wire: it validates the arguments, turns scope,
// type filter and window into a [Scope], renders the [Hit] values an
// [Engine] finds and fits them to the budget. Everything the engine stores
// is derived: dropping the memo or the fold cache changes latency only.
//
// An Engine is safe for concurrent use. Writes to the memo and fold cache
// refreshes run in the background, on the WaitGroup the caller passes in
// [Config], so the caller's Close waits for them.
package sniff

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"

	"github.com/monkeyllm/vine/forest"
)

// Catalog is what the engine needs of the catalog handle
// (*catalog.Catalog satisfies it).
type Catalog interface {
	Generation(ctx context.Context) (int64, error)
	HasColumn(table, column string) bool
	ReadOnly() bool
	Write(ctx context.Context, fn func(tx *sql.Tx) error) error
}

// Config is what an Engine is built with.
type Config struct {
	Catalog Catalog
	// Prepare returns a prepared read for the query text; the caller's
	// statement cache, shared with its other reads.
	Prepare func(ctx context.Context, query string) (*sql.Stmt, error)
	// Root is the forest: the fold cache lives under its derived
	// directory, and inline bodies are read from its files.
	Root forest.Root
	// Body reads the body sniff scans for a catalog-trusted id (the
	// backing body when the frontmatter carries a content: marker);
	// ok=false for an unreadable or unreachable body, which is skipped.
	Body func(id string) (body string, ok bool)
	// Heat is the heat of the given nodes (Part D); missing ids are cold.
	Heat func(ctx context.Context, ids []string) map[string]float64
	// Background runs the memo writes and fold cache refreshes; the
	// caller waits on it before closing the catalog.
	Background *sync.WaitGroup
	Logger     *slog.Logger
}

// Engine scans, memoizes and ranks sniff's body search over one forest.
type Engine struct {
	cat        Catalog
	prepare    func(ctx context.Context, query string) (*sql.Stmt, error)
	root       forest.Root
	body       func(id string) (string, bool)
	heat       func(ctx context.Context, ids []string) map[string]float64
	background *sync.WaitGroup
	log        *slog.Logger

	folds  foldCacheHolder // cold sniff's quick reject (foldcache.go)
	grams  gramHolder      // cold sniff's candidates (grams.go)
	hot    hotMemo         // warm sniff of covered terms (hot.go)
	counts termCounts      // nodes of the forest, rows of locate terms (counts.go)
}

// New builds an engine; cfg.Logger and cfg.Background may be nil.
func New(cfg Config) *Engine {
	e := &Engine{cat: cfg.Catalog, prepare: cfg.Prepare, root: cfg.Root, body: cfg.Body, heat: cfg.Heat,
		background: cfg.Background, log: cfg.Logger}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.background == nil {
		e.background = &sync.WaitGroup{}
	}
	return e
}

// Close releases the fold cache; the caller has waited for the
// background writes first.
func (e *Engine) Close() { e.folds.close() }

// Scope is the candidate predicate over the catalog's nodes table (scope,
// type, window): one SQL condition on nodes.*, never a per-row skip.
type Scope struct {
	Where string
	Args  []any
	// Whole is every node of the forest: only a scan of it may mark a
	// term covered or use the hot memo.
	Whole bool
}

// WholeForest is the Scope of every node.
var WholeForest = Scope{Where: "1", Whole: true}

// Hit is one node whose body holds the terms, settled for rendering: its
// catalog facts, score and heat, and the union of its matching lines in
// line order (the leftmost position of any term on each).
type Hit struct {
	ID, Type, Title string
	Trail           []string
	BodyTokens      int
	Score, Heat     float64
	Lines           []Line
}

// Answer is what Find found: the best hits, whether more were found, and
// how many nodes were covered.
type Answer struct {
	Hits      []Hit
	Truncated bool // more than k nodes matched
	Scanned   int  // nodes in scope whose bodies were read or memoized
	scan      *scanResult
}

// Find scans every node body in scope for the folded terms, from the
// memo where it is valid, and returns the best k nodes ranked by
// strength × density × (1 + α·heat), index nodes after content nodes.
// What it read is stored by Remember, once the caller decided to answer.
func (e *Engine) Find(ctx context.Context, scope Scope, terms [][]rune, k int) (Answer, error) {
	gen, err := e.cat.Generation(ctx) // one catalog the count and the scan both speak of
	if err != nil {
		return Answer{}, err
	}
	inScope, err := e.nodesInScope(ctx, scope, gen)
	if err != nil {
		return Answer{}, err
	}
	scan, err := e.scanScope(ctx, scope, terms, gen, inScope, k)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Scanned: inScope - scan.skipped, scan: scan}
	hits, err := e.settle(ctx, scan, e.rank(ctx, scan, len(terms), k), k, terms)
	if err != nil {
		return Answer{}, err
	}
	a.Truncated = len(hits) > k
	a.Hits = make([]Hit, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		a.Hits = append(a.Hits, h.export())
	}
	return a, nil
}

// Remember stores the scans of an answer in the memo, in the background
// so the caller never waits for it.
func (e *Engine) Remember(ctx context.Context, a Answer) { e.storeMemo(ctx, a.scan) }

// nodesInScope counts the nodes scope holds; the whole forest's count is
// remembered per catalog generation (at 100,000 nodes counting them took
// milliseconds of every sniff).
func (e *Engine) nodesInScope(ctx context.Context, scope Scope, gen int64) (int, error) {
	if !scope.Whole {
		return e.count(ctx, "SELECT count(*) FROM nodes WHERE "+scope.Where, scope.Args...)
	}
	return e.ForestSize(ctx, gen)
}

// DropHot empties the hot memo, the in-memory copy of covered terms'
// memo rows: the next scan reads the rows (or the bodies) again.
func (e *Engine) DropHot() { e.hot.reset() }

func (e *Engine) count(ctx context.Context, query string, args ...any) (int, error) {
	st, err := e.prepare(ctx, query)
	if err != nil {
		return 0, err
	}
	var n int
	err = st.QueryRowContext(ctx, args...).Scan(&n)
	return n, err
}

func (e *Engine) eachRow(ctx context.Context, q string, args []any, fn func(*sql.Rows) error) error {
	stmt, err := e.prepare(ctx, q)
	if err != nil {
		return err
	}
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
