// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"sync"

	"github.com/monkeyllm/vine/catalog"
)

// stmtCache keeps one prepared statement per query text on the catalog's
// reader pool, so hot reads never re-prepare (database/sql re-prepares a
// Stmt per connection lazily and reuses it afterwards).
type stmtCache struct {
	db    *sql.DB // the catalog's pool, set when the catalog opens
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// attach points the cache at the catalog's reader pool once it opens.
func (c *stmtCache) attach(cat *catalog.Catalog) { c.db = cat.DB() }

// Prepare returns the prepared read statement for query.
func (c *stmtCache) Prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := c.cached(query); ok {
		return s, nil
	}
	// Prepare outside the lock: preparing waits for a free connection, and
	// a cache hit must never wait behind that.
	s, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if won, ok := c.stmts[query]; ok {
		s.Close() // another caller prepared it first
		return won, nil
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = s
	return s, nil
}

// cached returns the statement when it is already prepared.
func (c *stmtCache) cached(query string) (*sql.Stmt, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.stmts[query]
	return s, ok
}

// count runs a cached single-count query.
func (c *stmtCache) count(ctx context.Context, query string, args ...any) (int, error) {
	st, err := c.Prepare(ctx, query)
	if err != nil {
		return 0, err
	}
	var n int
	err = st.QueryRowContext(ctx, args...).Scan(&n)
	return n, err
}

// close releases every cached statement.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for q, s := range c.stmts {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
		delete(c.stmts, q)
	}
	return first
}
