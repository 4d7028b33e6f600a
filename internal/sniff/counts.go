// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"context"
	"sync"

	"github.com/monkeyllm/vine/catalog"
)

// ForestSize is the number of nodes at catalog generation gen, counted
// once per generation.
func (e *Engine) ForestSize(ctx context.Context, gen int64) (int, error) {
	if n, ok := e.counts.nodes(gen); ok {
		return n, nil
	}
	n, err := e.count(ctx, "SELECT count(*) FROM nodes")
	if err != nil {
		return 0, err
	}
	e.counts.setNodes(gen, n)
	return n, nil
}

// TermRows is how many rows of the metadata index match term at catalog
// generation gen, counted up to limit (FTS5 walks the term's document list
// in rowid order without scoring, so a common term costs a bounded walk
// once per generation). Locate's term selection asks it; the count is
// remembered with the forest's size.
func (e *Engine) TermRows(ctx context.Context, gen int64, term string, limit int) (int, error) {
	if n, ok := e.counts.get(gen, term); ok {
		return n, nil
	}
	match := catalog.MatchExpr([]string{term})
	if match == "" {
		return 0, nil
	}
	n, err := e.count(ctx, "SELECT count(*) FROM (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?+0)",
		match, limit)
	if err != nil {
		return 0, err
	}
	e.counts.put(gen, term, n)
	return n, nil
}

// ForgetCounts drops the remembered counts: a count is capped at the
// limit it was taken with, so a caller changing its limit starts afresh.
func (e *Engine) ForgetCounts() { e.counts.reset() }

// termCounts remembers TermRows, and the forest's size, for one catalog
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

func (c *termCounts) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen, c.m, c.size, c.sizeOK = 0, nil, 0, false
}

// at empties the counts unless they are of generation gen; c.mu is held.
func (c *termCounts) at(gen int64) {
	if c.gen != gen || c.m == nil {
		c.gen, c.m, c.sizeOK = gen, map[string]int{}, false
	}
}
