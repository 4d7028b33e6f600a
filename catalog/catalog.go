// SPDX-License-Identifier: Apache-2.0

// Package catalog is the derived SQLite catalog in _derived/catalog.db: one
// row per node with its frontmatter and trail, the declared edges, the
// waymarks left by moves, the metadata full-text index, and the memo tables
// of sniff and the embedder.
//
// The catalog is rebuildable from the markdown and never the truth: files
// win, and Rebuild repairs any divergence. It does not parse markdown; callers
// build Records from nodes and hand them over.
//
// A Catalog is safe for concurrent use by multiple goroutines. It keeps two
// connection pools on the same file: a writer pool of exactly one connection,
// which serializes writes, and a reader pool whose connections are
// query_only. In WAL mode a reader never waits on the writer; it sees every
// write committed before its transaction began. A read-only Catalog opens the
// reader pool only and refuses every write with E_READONLY; any number of
// them may sit beside one writer, in the same process or another.
package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/sqlitefile"
)

// Edge is one link declared in a node's links: list. Inverses are not
// stored; they are derived at read time from the rows whose Dst is a node.
type Edge struct {
	Rel        string
	Dst        string
	Confidence float64
}

// InEdge is an edge seen from its destination: the declaring node, the
// declared (not inverted) rel, and its confidence.
type InEdge struct {
	Src        string
	Rel        string
	Confidence float64
}

// Record is the catalog row of one node as the caller derived it from the
// node's file. The caller applies the defaults of the specification (for
// example confidence 1.0); the catalog stores what it is given.
type Record struct {
	ID      string
	Kind    string // "branch" or "note", the wire spelling, stored as is
	Type    string
	Title   string
	Summary string

	Tags    []string
	Aliases []string

	Created string // frontmatter text, "" when absent
	Updated string

	Confidence float64

	// Optional frontmatter values; "" is stored as NULL.
	Source      string
	EntityKind  string
	Payload     string
	PayloadType string
	PayloadHash string
	Origin      string
	Lang        string

	Parent   string   // parent index id; "" (stored as NULL) for the root _index
	Trail    []string // index ids from the root down, excluding the node
	Coverage string   // raw frontmatter string on indexes; "" is stored as NULL

	BodyTokens int
	Outline    []string // every H2 and H3 header text in body order
	BodyHash   string   // SHA-256 hex of the body as sniff scans it

	// Content is the frontmatter content mode: "cached", "reference" or "".
	// It is an input only (no column holds it): a cached or reference body
	// is not inline, so its body_hash is stored as "" whatever BodyHash says.
	Content string

	// Edges are the declared out-links; a repeated (Rel, Dst) keeps the
	// first. Get fills them in declared order.
	Edges []Edge

	// MovedFrom lists the ids this node was moved from; they become waymarks
	// (the moves table). Get fills it with the waymarks that currently point
	// at the node, which omits the node's own id, empty ids and any address
	// replanted since.
	MovedFrom []string
}

// Options configure Open.
type Options struct {
	// ReadOnly opens the reader pool only: no lock, no schema changes, and
	// every write refused with E_READONLY. The file must already exist.
	ReadOnly bool
}

// Stats counts catalog rows.
type Stats struct {
	Nodes    int
	Branches int
	Edges    int
	Moves    int
}

// Catalog is an open catalog database. See the package documentation for
// its concurrency model.
type Catalog struct {
	path   string
	writer *sql.DB // nil when read-only; exactly one connection otherwise
	reader *sql.DB // query_only connections
	w      writeStmts
	r      readStmts
	cols   map[string]map[string]bool // columns the file had when opened

	// watch and gen answer Generation from memory while no transaction
	// has committed since it was last read (sqlitefile.Watch).
	watch *sqlitefile.Watch
	gen   sqlitefile.Memo[int64]
}

// Open opens the catalog at path. A writable open creates the directory, the
// file and the schema when missing, and adds in place the columns a later
// version introduced (see the schema documentation in schema.go). Storage is
// tuned to WAL with synchronous=NORMAL and a 5 s busy timeout, best effort:
// a file system without WAL support keeps its journal mode and still works.
func Open(ctx context.Context, path string, opt Options) (*Catalog, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: open %s: %w", path, err)
	}
	c := &Catalog{path: abs, watch: sqlitefile.NewWatch(abs)}
	if opt.ReadOnly {
		err = c.openReadOnly(ctx)
	} else {
		err = c.openWritable(ctx)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Catalog) openWritable(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return fmt.Errorf("catalog: open %s: %w", c.path, err)
	}
	db, err := driver.Open(sqlitefile.URI(c.path, ""), initWriter)
	if err != nil {
		return fmt.Errorf("catalog: open %s: %w", c.path, err)
	}
	// One connection, kept forever: it serializes writes and keeps the
	// prepared statements of Upsert and Rebuild alive between calls.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	c.writer = db
	if err := migrate(ctx, db); err != nil {
		return fmt.Errorf("catalog: prepare schema of %s: %w", c.path, err)
	}
	if err := c.openReader(ctx); err != nil {
		return err
	}
	if err := c.w.prepare(ctx, db); err != nil {
		return fmt.Errorf("catalog: prepare statements: %w", err)
	}
	return nil
}

func (c *Catalog) openReadOnly(ctx context.Context) error {
	if _, err := os.Stat(c.path); err != nil {
		return envelope.New(envelope.NotFound,
			fmt.Sprintf("catalog not found: %s (a read-only open needs an existing catalog; got %v)", c.path, err),
			"open the forest once without read_only, or run reindex from a writable Vine, to build the catalog")
	}
	return c.openReader(ctx)
}

// openReader opens the query_only pool and prepares the read statements
// against the columns the file actually has, so a read-only open of a file
// written by an older version reads the missing columns as their defaults.
func (c *Catalog) openReader(ctx context.Context) error {
	db, err := driver.Open(sqlitefile.URI(c.path, ""), initReader)
	if err != nil {
		return fmt.Errorf("catalog: open %s: %w", c.path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	c.reader = db
	cols, err := presentColumns(ctx, db)
	if err != nil {
		return fmt.Errorf("catalog: read schema of %s: %w", c.path, err)
	}
	if len(cols["nodes"]) == 0 {
		return envelope.New(envelope.NotFound,
			fmt.Sprintf("catalog %s has no nodes table; expected a catalog built by a writable open", c.path),
			"open the forest once without read_only, or run reindex from a writable Vine, to build the catalog")
	}
	if err := c.r.prepare(ctx, db, cols); err != nil {
		return fmt.Errorf("catalog: prepare statements: %w", err)
	}
	c.cols = cols
	return nil
}

// HasColumn reports whether the file's table had the column when the
// catalog was opened. A writable open adds every missing column first, so
// only a read-only open of a file written by an older version or another
// implementation can answer false; readers then fall back to what the
// older layout holds.
func (c *Catalog) HasColumn(table, column string) bool { return c.cols[table][column] }

func initWriter(conn *sqlite3.Conn) error {
	if err := initConn(conn); err != nil {
		return err
	}
	// Best effort: a file system without shared memory refuses
	// WAL; the catalog then keeps its journal mode and keeps working.
	_ = sqlitefile.WAL(conn)
	// A rebuild writes the whole catalog through the WAL in one transaction;
	// the size limit gives that space back once a checkpoint has copied it.
	// Rebuild's small temp table has no reason to touch disk.
	return conn.Exec(`PRAGMA synchronous=NORMAL; PRAGMA journal_size_limit=67108864; PRAGMA temp_store=MEMORY`)
}

func initReader(conn *sqlite3.Conn) error {
	if err := initConn(conn); err != nil {
		return err
	}
	// The driver reads query_only back after this hook and then begins
	// deferred transactions, which is what a reader wants.
	//
	// An 8 MB page cache per reader (SQLite's default is 2 MB): at 100,000
	// nodes the catalog is 150 MB, and reads that join the FTS index to
	// nodes missed the small cache on most rows (locate scoped to
	// branches 5 ms to 1.4 ms, look of a hub with 1,800 in-edges 10 ms to
	// 6 ms). A small forest never fills it; a large one pays at most 6 MB
	// more per reader connection.
	return conn.Exec(`PRAGMA query_only=1; PRAGMA cache_size=-8192`)
}

func initConn(conn *sqlite3.Conn) error {
	if err := fts5.Register(conn); err != nil {
		return err
	}
	// This SQLite is built with STAT4, which marks a prepared statement
	// expired whenever a new value is bound to a parameter the planner
	// looked at, so every FTS query was parsed and planned again. The query
	// planner stability guarantee keeps the prepared plan.
	if _, err := conn.Config(sqlite3.DBCONFIG_ENABLE_QPSG, true); err != nil {
		return err
	}
	return conn.BusyTimeout(sqlitefile.BusyTimeout)
}

// Close closes both pools. Reads and writes in flight finish first.
func (c *Catalog) Close() error {
	var errs []error
	errs = append(errs, c.w.close(), c.r.close(), c.watch.Close())
	if c.writer != nil {
		errs = append(errs, c.writer.Close())
	}
	if c.reader != nil {
		errs = append(errs, c.reader.Close())
	}
	return errors.Join(errs...)
}

// DB returns the reader pool: an escape hatch for the root package's read
// primitives, which keep their own SQL. The schema behind it is not a stable
// API: other packages read through the typed methods (Get, Search, Branches,
// EdgeDegrees, …) and ask for a new one rather than query tables directly; a
// test in the module root refuses a new caller. Its connections are
// query_only: a write through it fails. Prepare hot statements once
// (DB.PrepareContext) and reuse them; database/sql keeps one prepared copy
// per connection.
func (c *Catalog) DB() *sql.DB { return c.reader }

// ReadOnly reports whether the catalog was opened read-only.
func (c *Catalog) ReadOnly() bool { return c.writer == nil }

// refuseReadOnly is the E_READONLY refusal of a write on a read-only catalog.
func (c *Catalog) refuseReadOnly(op string) error {
	if c.writer != nil {
		return nil
	}
	return envelope.New(envelope.ReadOnly,
		fmt.Sprintf("catalog is read-only: %s refused (this Vine was opened with read_only)", op),
		"writes go through the one writable Vine of the forest; reads work here as they are").
		With("operation", op)
}
