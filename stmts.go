package vine

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps one prepared statement per query text on the catalog's
// reader pool, so hot reads never re-prepare (database/sql re-prepares a
// Stmt per connection lazily and reuses it afterwards).
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// stmt returns the prepared read statement for query.
func (v *Vine) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := v.cachedStmt(query); ok {
		return s, nil
	}
	// Prepare outside the lock: preparing waits for a free connection, and
	// a cache hit must never wait behind that.
	s, err := v.cat.DB().PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c := &v.stmts
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

// cachedStmt returns the statement when it is already prepared.
func (v *Vine) cachedStmt(query string) (*sql.Stmt, bool) {
	c := &v.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.stmts[query]
	return s, ok
}

// closeStmts releases every cached statement.
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
