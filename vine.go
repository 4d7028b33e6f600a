// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/adjacency"
	"github.com/monkeyllm/vine/internal/bodysum"
	"github.com/monkeyllm/vine/internal/journal"
	"github.com/monkeyllm/vine/internal/payloadplace"
	"github.com/monkeyllm/vine/internal/recovery"
	"github.com/monkeyllm/vine/internal/reindex"
	"github.com/monkeyllm/vine/internal/sniff"
	"github.com/monkeyllm/vine/payload"
)

// Options configure Open and Init. The zero value opens a writable forest
// with the host clock.
type Options struct {
	// ReadOnly opens without the git repository; every write answers
	// E_READONLY.
	ReadOnly bool

	// LockWait bounds how long a write waits for the forest's writer lock
	// while another process (or another Vine) writes: 0 means
	// forest.DefaultLockWait (5 s), a negative value does not wait. The
	// lock is taken per write, never for a Vine's life, so any number of
	// processes may hold one forest open writable; past the wait a write
	// answers E_LOCKED naming the holder.
	LockWait time.Duration

	// Now is the clock. Dates written to nodes are its local calendar
	// date; inject it in tests for reproducible files and commits.
	Now func() time.Time

	// Progress, when set, receives progress of long work (reindex).
	// It is called from the working goroutine and must not block.
	Progress func(Progress)

	// SkipAutoIndex leaves an empty catalog empty on Open, for callers
	// that are about to call Reindex themselves.
	SkipAutoIndex bool

	// Observer, when set, is told about every primitive call (the seam
	// the pheromone layer fills).
	Observer Observer

	// OnEvent, when set, receives the content events of the event
	// catalogue (08 §11: node.planted, node.grafted, ...) after each
	// write committed, on the writer's goroutine once the writer is
	// released. It must not block: a host queues and returns. Unset, a
	// write builds no event at all.
	OnEvent func(HookEvent)

	// Opened, when set, is called with each forest Open (or a Registry's
	// Forest) opened, before it serves a call: where a host attaches what
	// it keeps per forest outside the forest, such as the embedder its
	// model bindings name (SetEmbedder).
	Opened func(*Vine)

	// Heat, when set, supplies node heat for ranking; nil means cold.
	Heat HeatSource

	// Logger receives diagnostics that never reach the wire (the detail
	// behind an E_INTERNAL). Nil discards them.
	Logger *slog.Logger

	// Fetcher brings remote payloads (payload: s3://..., file://...) into
	// the forest's payload cache on first read (G.9). Nil means
	// payload.DefaultRegistry(): file://, and s3:// at AWS. The engine
	// reads no environment: a host that points s3:// at another store
	// passes its own (adapters/cli/vine does, from MONKEYLLM_S3_ENDPOINT).
	Fetcher payload.Fetcher

	// Embedder, when set, is the forest's embedder for the vector layer
	// (Part K); SetEmbedder changes it later. It enables the Gauntlet once
	// an index of its model exists, never hybrid entry search by itself.
	Embedder canopy.Embedder

	// SQLMaxLength is the largest string or blob, in bytes, a query or
	// tend statement may build or read (SQLITE_LIMIT_LENGTH); past it the
	// call answers E_QUERY_INVALID naming the limit. Zero means
	// DefaultSQLMaxLength (16 MiB).
	SQLMaxLength int

	// SQLMaxMemory is the SQLite heap, in bytes, one query or tend
	// statement may use (the hard heap limit of its own connection); past
	// it the call answers E_QUERY_INVALID naming the limit. Zero means
	// DefaultSQLMaxMemory (64 MiB). The driver gives each connection at
	// most 256 MiB of memory, so a larger value changes nothing.
	SQLMaxMemory int64

	// QueryMaxResultBytes bounds the cell bytes one query copies out of
	// SQLite for its answer; past it the call answers E_QUERY_INVALID
	// naming the limit. Zero means DefaultQueryMaxResultBytes (1 MiB).
	QueryMaxResultBytes int64

	// ReadLimits bound what reading one node file may cost (reindex,
	// look, pick, every write's read-back): frontmatter bytes, YAML depth
	// and values, links. A file past one is unreadable (E_FRONTMATTER
	// naming the limit): reindex skips it, and a write that would leave
	// one is refused. Zero fields mean forest.DefaultReadLimits.
	ReadLimits forest.ReadLimits

	// JSONDepth bounds how deep the JSON arguments of Call may nest;
	// deeper arguments are refused E_SCHEMA before they are decoded. 0
	// means DefaultJSONDepth. (DecodeArgs, which transports call on
	// their own, always uses the default.)
	JSONDepth int

	// InstalledExtensions lists the extension ids this host has
	// installed. Validate warns about every id the forest's
	// _meta/extensions.yaml expects that it does not list; nil means the
	// host has none (no extension loader), so every expected id is
	// reported. Nothing is ever installed because a forest expects it.
	InstalledExtensions func() []string
}

// Progress reports how far a long operation has come.
type Progress struct {
	Op    string // "reindex", ...
	Done  int    // items finished
	Total int    // items expected; 0 when unknown
}

// Vine is an open forest.
type Vine struct {
	root     forest.Root
	readOnly bool
	now      func() time.Time
	progress func(Progress)
	log      *slog.Logger

	skipAutoIndex bool
	jsonDepth     int             // bound on Call's argument nesting
	installedExt  func() []string // Options.InstalledExtensions
	ranker        atomic.Pointer[Ranker]
	readLimits    forest.ReadLimits   // bound on reading one node file
	fetcher       payload.Fetcher     // nil: payload.DefaultRegistry()
	place         *payloadplace.Place // the payloads: rule, identity, G.9 cache
	sqlLimits     sqlLimits           // memory limits of query and tend

	onEvent  func(HookEvent) // the event hook (08 §11); nil: nobody listens
	heat     heatLayer       // heat, traces and the observer (Part D)
	files    nodeFiles       // node files and the bodies they point to
	resolver resolver        // caller ids to catalog rows, once the catalog is open
	recent   recentIndexes   // the indexes this handle wrote last, parsed
	sums     bodysum.Memo    // checkpoints of the large indexes this handle wrote last

	canopy *canopy.Layer // the vector layer, inert without embedder and index

	dialect  atomic.Pointer[forest.Dialect]
	cat      *catalog.Catalog
	repo     *gitops.Repo // nil when read-only
	lockWait time.Duration
	journal  *journal.Log // the writer's intent log; nil when read-only

	remoteGit remoteState // the git side of clone, push, pull and follow (remotes.go)
	follow    followState // the follower's last sync, for health (follow.go)

	index     *reindex.Indexer    // keeps the catalog in step with the files
	recoverer *recovery.Recoverer // settles a dead writer's write

	recovery    atomic.Pointer[Recovery] // the last repair of a dead writer's write
	dialectSeen atomic.Value             // the schema file's stamp the dialect was read from

	stmts      stmtCache        // prepared reads, per query text
	background sync.WaitGroup   // derived-layer writes after an answer (sniff memo)
	sniffer    *sniff.Engine    // sniff's scan, memo and fold cache; catalog counts
	locator    locator          // locate's lexical leg and its in-memory copy of the metadata index
	adjacency  *adjacency.Model // move's in-memory copy of nodes, edges and children

	wmu       sync.Mutex // the one writer
	closeOnce sync.Once
	closeErr  error
}

func (o *Options) withDefaults() Options {
	var opt Options
	if o != nil {
		opt = *o
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.JSONDepth <= 0 {
		opt.JSONDepth = DefaultJSONDepth
	}
	return opt
}

// Open opens the forest rooted at dir. A writable open opens the forest's
// own git repository and takes the writer lock only long enough to repair
// a write another process left half-done (Recovered); each write takes the
// lock again for itself, so any number of processes may hold the forest
// open writable. An empty catalog is rebuilt from the markdown before
// Open returns, and the catalog is warmed.
func Open(ctx context.Context, dir string, opts *Options) (*Vine, error) {
	opt := opts.withDefaults()
	root, err := forest.NewRoot(dir)
	if err != nil || !forest.IsForest(root.Dir()) {
		return nil, envelope.New(envelope.NotFound,
			fmt.Sprintf("not a forest: %s has no _index.md", filepath.Base(dir)),
			"create one with Init (vine init --forest DIR --title T)")
	}
	v := &Vine{root: root, readOnly: opt.ReadOnly, now: opt.Now, progress: opt.Progress, log: opt.Logger,
		skipAutoIndex: opt.SkipAutoIndex, onEvent: opt.OnEvent,
		fetcher: opt.Fetcher, lockWait: opt.LockWait, sqlLimits: newSQLLimits(opt),
		jsonDepth: opt.JSONDepth, readLimits: opt.ReadLimits, installedExt: opt.InstalledExtensions,
		heat:  heatLayer{source: opt.Heat, observer: opt.Observer, log: opt.Logger},
		files: nodeFiles{root: root, limits: opt.ReadLimits}}
	v.canopy = newCanopyLayer(v, opt.Embedder)
	if err := v.open(ctx); err != nil {
		v.Close()
		return nil, err
	}
	if opt.Opened != nil {
		opt.Opened(v)
	}
	return v, nil
}

func (v *Vine) open(ctx context.Context) error {
	if !v.readOnly {
		repo, err := gitops.Open(v.root.Dir())
		if err != nil {
			return envelope.New(envelope.Schema,
				"forest has no git repository of its own at its root",
				"open it read-only, or re-create it with Init").With("detail", err.Error())
		}
		v.repo = repo
		v.journal = journal.New(repo.GitDir())
	}
	v.loadDialect()
	if err := os.MkdirAll(filepath.Join(v.root.Dir(), forest.DerivedDir), 0o755); err != nil {
		return fmt.Errorf("vine: create derived dir: %w", err)
	}
	if err := v.heat.open(ctx, filepath.Join(v.root.Dir(), forest.DerivedDir)); err != nil {
		return err
	}
	cat, err := catalog.Open(ctx, v.catalogPath(), catalog.Options{})
	if err != nil {
		return fmt.Errorf("vine: open catalog: %w", err)
	}
	v.cat = cat
	v.stmts.attach(cat)
	v.resolver = resolver{files: v.files, cat: cat, log: v.log}
	v.place = payloadplace.New(v.root, cat, v.fetcher, v.now)
	v.canopy.Attach(cat)
	v.index, v.recoverer = newUpkeep(v)
	v.adjacency = adjacency.NewModel(cat)
	v.sniffer = sniff.New(sniff.Config{Catalog: cat, Prepare: v.stmts.Prepare, Root: v.root, Body: v.sniffBody,
		Heat: v.heat.read, Background: &v.background, Logger: v.log})
	v.locator = newLocator(cat, &v.stmts, v.sniffer, v.log)
	if v.journal != nil {
		// A write another process left half-done is repaired before
		// anything here reads the forest. The lock is taken for that alone:
		// each write takes it again (beginWrite).
		lock, err := v.lockForest(ctx)
		if err != nil {
			return err
		}
		if err := lock.Release(); err != nil {
			return err
		}
	}
	empty, err := cat.Empty(ctx)
	if err != nil {
		return err
	}
	if empty && !v.skipAutoIndex {
		if _, err := v.Reindex(ctx); err != nil {
			return err
		}
	}
	buildFold() // the first sniff must not pay for the fold table
	return cat.Warm(ctx)
}

func (v *Vine) catalogPath() string {
	return filepath.Join(v.root.Dir(), forest.DerivedDir, "catalog.db")
}

// loadDialect reads _meta/schema.md; a missing or unreadable schema means
// the built-in default dialect.
func (v *Vine) loadDialect() {
	stamp := v.schemaStamp()
	d := forest.DefaultDialect()
	if n, err := v.readNode(forest.SchemaID); err == nil {
		d = forest.ParseDialect(n.Body)
	}
	v.dialect.Store(d)
	v.dialectSeen.Store(stamp)
}

// schemaStamp identifies the schema file's current content cheaply: its
// size and modification time, "" when it is missing.
func (v *Vine) schemaStamp() string {
	fi, err := os.Stat(filepath.Join(v.root.Dir(), filepath.FromSlash(forest.SchemaID)+forest.NodeExt))
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}

// refreshDialect reloads the dialect when another process changed the
// schema since it was read; one stat when it did not.
func (v *Vine) refreshDialect() {
	if seen, _ := v.dialectSeen.Load().(string); seen != v.schemaStamp() {
		v.loadDialect()
	}
}

// readNode parses the node file of a catalog-trusted id.
func (v *Vine) readNode(id string) (*forest.Node, error) {
	return v.files.read(id)
}

// parse reads a node file within the forest's read limits.
func (v *Vine) parse(id string, data []byte) (*forest.Node, error) {
	return forest.ParseWithin(id, data, v.readLimits)
}

// ReadLimits are the limits this forest reads node files within (zero
// fields standing for the defaults). Packages that read node files
// themselves parse with forest.ParseWithin and these.
func (v *Vine) ReadLimits() forest.ReadLimits { return v.readLimits }

// Dir is the forest's root directory (absolute, symlinks resolved).
func (v *Vine) Dir() string { return v.root.Dir() }

// ReadOnly reports whether writes are refused.
func (v *Vine) ReadOnly() bool { return v.readOnly }

// Dialect is the forest's current vocabulary of types and rels.
func (v *Vine) Dialect() *forest.Dialect { return v.dialect.Load() }

// Catalog is the derived catalog, for packages built on the engine.
// Treat it as read-only: the engine keeps it in step with the files.
func (v *Vine) Catalog() *catalog.Catalog { return v.cat }

// Close releases the catalog, and for a writable Vine the writer lock. It
// waits for a write in progress. Calling Close twice is harmless.
func (v *Vine) Close() error {
	v.closeOnce.Do(func() {
		v.wmu.Lock()
		defer v.wmu.Unlock()
		v.background.Wait()
		if v.sniffer != nil {
			v.sniffer.Close()
		}
		errs := []error{v.stmts.close()}
		errs = append(errs, v.locator.close())
		if v.cat != nil {
			errs = append(errs, v.cat.Close())
		}
		errs = append(errs, v.heat.close())
		v.closeErr = errors.Join(errs...)
	})
	return v.closeErr
}

// today is the clock's local calendar date, the one date every write uses.
func (v *Vine) today() string { return v.now().Format(time.DateOnly) }
