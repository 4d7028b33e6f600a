package vine

import (
	"context"
	"sync"

	"github.com/monkeyllm/vine/catalog"
)

// Term selection for the lexical leg at scale. FTS5 scores every row that
// matches any term before it keeps the best, and a wordy question carries
// words that a large share of the forest holds: at 100,000 nodes "which
// notes report readings about the <title>?" matched 30,000 rows and took
// 80 ms, of which the two title words matched 1,500. When the derived
// terms together match more than locateRowBudget rows, the lexical leg
// drops the common ones, each matching more than a twentieth of the
// forest: their inverse document frequency is below 3, a tenth or less of
// a rare word's, so they rank little while costing nearly all the work.
// Every other term is kept, and a question of common words only is
// searched whole. Below the budget nothing changes, so a small forest is
// answered exactly as before. The rows each term matches are counted up
// to the threshold and remembered for the catalog generation they were
// counted at.
//
// Measured on the 100,000-leaf forest (TestScaleLocateQuality, 192
// questions with known answers): see the commit that introduced it.

// locateRowBudget bounds the rows a pruned lexical leg scores; 0 turns
// selection off (a variable so tests can compare the two).
var locateRowBudget = 5000

// commonShare is the share of the forest a common term matches more of.
const commonShare = 20

// selectTerms returns the terms the lexical leg searches.
func (v *Vine) selectTerms(ctx context.Context, ts []string) ([]string, error) {
	if len(ts) < 2 || locateRowBudget <= 0 {
		return ts, nil
	}
	gen, err := v.cat.Generation(ctx)
	if err != nil {
		return nil, err
	}
	nodes, err := v.forestSize(ctx, gen)
	if err != nil {
		return nil, err
	}
	common := max(locateRowBudget, nodes/commonShare)
	rows := make([]int, len(ts))
	total := 0
	for i, t := range ts {
		if rows[i], err = v.termRows(ctx, gen, t, common+1); err != nil {
			return nil, err
		}
		total += rows[i]
	}
	if total <= locateRowBudget {
		return ts, nil
	}
	var kept []string
	for i, t := range ts {
		if rows[i] <= common {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return ts, nil
	}
	return kept, nil
}

// forestSize is the number of nodes at generation gen.
func (v *Vine) forestSize(ctx context.Context, gen int64) (int, error) {
	if n, ok := v.termCounts.nodes(gen); ok {
		return n, nil
	}
	n, err := v.stmts.count(ctx, "SELECT count(*) FROM nodes")
	if err != nil {
		return 0, err
	}
	v.termCounts.setNodes(gen, n)
	return n, nil
}

// termRows is how many rows of the metadata index match term, counted up
// to limit (FTS5 walks the term's document list in rowid order without
// scoring, so a common term costs a bounded walk once per generation).
func (v *Vine) termRows(ctx context.Context, gen int64, term string, limit int) (int, error) {
	if n, ok := v.termCounts.get(gen, term); ok {
		return n, nil
	}
	match := catalog.MatchExpr([]string{term})
	if match == "" {
		return 0, nil
	}
	n, err := v.stmts.count(ctx, "SELECT count(*) FROM (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?+0)",
		match, limit)
	if err != nil {
		return 0, err
	}
	v.termCounts.put(gen, term, n)
	return n, nil
}

// termCounts remembers termRows, and the forest's size, for one catalog
// generation; a new generation, or more than maxTermCounts terms, starts
// it afresh.
type termCounts struct {
	mu     sync.Mutex
	gen    int64
	m      map[string]int
	size   int
	sizeOK bool
}

const maxTermCounts = 4096

func (c *termCounts) get(gen int64, term string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[term]
	return n, ok && c.gen == gen
}

func (c *termCounts) put(gen int64, term string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at(gen)
	if len(c.m) >= maxTermCounts {
		c.m = map[string]int{}
	}
	c.m[term] = n
}

func (c *termCounts) nodes(gen int64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, c.sizeOK && c.gen == gen
}

func (c *termCounts) setNodes(gen int64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at(gen)
	c.size, c.sizeOK = n, true
}

// at empties the counts unless they are of generation gen; c.mu is held.
func (c *termCounts) at(gen int64) {
	if c.gen != gen || c.m == nil {
		c.gen, c.m, c.sizeOK = gen, map[string]int{}, false
	}
}
