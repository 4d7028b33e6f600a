// SPDX-License-Identifier: Apache-2.0

package canopy

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

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
)

// LayerOptions configure NewLayer. The zero value (or nil) is usable.
type LayerOptions struct {
	// Embedder is bound at start; nil leaves the layer inert until
	// SetEmbedder.
	Embedder Embedder
	// Logger receives what never fails a call: an index on disk that
	// cannot be trusted, a memo or stale mark not stored. Nil discards.
	Logger *slog.Logger
	// Now is the clock an index records as its build time; nil is
	// time.Now.
	Now func() time.Time
	// Progress, when set, counts the nodes a build or refresh embedded;
	// op is "canopy build" or "canopy refresh".
	Progress func(op string, done, total int)
	// Session names the caller of ctx, the key of its goal (K.2); nil
	// puts every caller in one session.
	Session func(ctx context.Context) string
	// Embedded, when set, is told how long each caller text took to
	// embed (memo hits included), for the call's trace.
	Embedded func(ctx context.Context, d time.Duration)
}

// Layer is a forest's vector layer (Part K): the bound embedder, the
// index in its directory as last loaded, the query memo in the catalog
// and the sessions' goals. With no embedder or no index it is inert, and
// every read answers as if it did not exist. Reads take no lock in the
// common case (index files unchanged); builds and refreshes run one at a
// time.
//
// A Layer is safe for concurrent use. Attach must be called, once, before
// any method that reads the catalog.
type Layer struct {
	dir                 string
	indexPath, vecsPath string // the two files, stat'ed on every ready check
	opt                 LayerOptions
	log                 *slog.Logger
	emb                 atomic.Pointer[embedderRef]
	cat                 *catalog.Catalog
	memo                *Memo
	goals               goalBook

	loaded atomic.Pointer[loadedIndex] // nil until first read
	loadMu sync.Mutex                  // one load at a time

	buildMu sync.Mutex // one build or refresh at a time
}

// embedderRef boxes an Embedder for atomic swaps.
type embedderRef struct{ e Embedder }

// loadedIndex is the index as read for one version of its files.
type loadedIndex struct {
	key indexFiles
	ix  *Index // nil: absent or untrusted
}

// indexFiles identifies a version of the index files by their sizes and
// modification times: a build here or in another process changes them.
type indexFiles struct {
	jsonSize, vecSize   int64
	jsonMtime, vecMtime int64
	present             bool
}

// NewLayer returns the layer whose index lives in dir (a forest's
// _derived/canopy). Nothing is read until a method needs it.
func NewLayer(dir string, opt *LayerOptions) *Layer {
	l := &Layer{dir: dir, indexPath: filepath.Join(dir, IndexFile), vecsPath: filepath.Join(dir, VectorsFile)}
	if opt != nil {
		l.opt = *opt
	}
	l.log = l.opt.Logger
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.opt.Now == nil {
		l.opt.Now = time.Now
	}
	l.SetEmbedder(l.opt.Embedder)
	return l
}

// Attach binds the layer to the opened catalog, where the node texts,
// their stale marks and the query memo live.
func (l *Layer) Attach(cat *catalog.Catalog) {
	l.cat = cat
	l.memo = NewMemo(cat, MemoOptions{Logger: l.log})
}

// SetEmbedder binds e, or detaches the embedder when e is nil. Calls
// already running finish with the embedder they started with.
func (l *Layer) SetEmbedder(e Embedder) {
	if e == nil {
		l.emb.Store(nil)
		return
	}
	l.emb.Store(&embedderRef{e})
}

// Embedder returns the bound embedder, nil when none is.
func (l *Layer) Embedder() Embedder {
	if r := l.emb.Load(); r != nil {
		return r.e
	}
	return nil
}

// Index returns the index on disk, reloading it when its files changed;
// nil when it is absent or cannot be trusted (then logged: a rebuild is
// the repair).
//
// The common case — files unchanged since the last read — costs two stats
// and an atomic load; only a changed version takes the lock and reads.
func (l *Layer) Index() *Index {
	key := l.stat()
	if cur := l.loaded.Load(); cur != nil && cur.key == key {
		return cur.ix
	}
	l.loadMu.Lock()
	defer l.loadMu.Unlock()
	if cur := l.loaded.Load(); cur != nil && cur.key == key {
		return cur.ix // loaded by the caller we waited for
	}
	var ix *Index
	if key.present {
		var err error
		ix, err = Load(l.dir)
		if err != nil && !errors.Is(err, ErrNoIndex) {
			l.log.Warn("canopy index ignored; rebuild it", "err", err)
		}
	}
	l.loaded.Store(&loadedIndex{key: key, ix: ix})
	return ix
}

func (l *Layer) stat() indexFiles {
	j, err1 := os.Stat(l.indexPath)
	f, err2 := os.Stat(l.vecsPath)
	if err1 != nil || err2 != nil {
		return indexFiles{}
	}
	return indexFiles{jsonSize: j.Size(), vecSize: f.Size(),
		jsonMtime: j.ModTime().UnixNano(), vecMtime: f.ModTime().UnixNano(), present: true}
}

// publish makes ix, just saved, the loaded index.
func (l *Layer) publish(ix *Index) {
	l.loadMu.Lock()
	l.loaded.Store(&loadedIndex{key: l.stat(), ix: ix})
	l.loadMu.Unlock()
}

// ready returns the embedder and index when the layer is active (K.4).
func (l *Layer) ready() (Embedder, *Index, bool) {
	e := l.Embedder()
	if e == nil {
		return nil, nil, false // no file is touched without an embedder
	}
	ix := l.Index()
	return e, ix, Readiness(e, ix) == StateActive
}

// State is the layer's readiness (K.4): StateActive, StateNoEmbedder,
// StateNoIndex or StateModelMismatch.
func (l *Layer) State(context.Context) string {
	e := l.Embedder()
	if e == nil {
		return StateNoEmbedder
	}
	return Readiness(e, l.Index())
}

// embed embeds a caller text through the memo and reports the time spent.
func (l *Layer) embed(ctx context.Context, e Embedder, text string) ([]float32, error) {
	start := time.Now()
	vec, err := l.memo.Embed(ctx, e, text)
	if l.opt.Embedded != nil {
		l.opt.Embedded(ctx, time.Since(start))
	}
	return vec, err
}

func (l *Layer) session(ctx context.Context) string {
	if l.opt.Session == nil {
		return ""
	}
	return l.opt.Session(ctx)
}

// Nearest is the dense leg of hybrid locate: it embeds the raw query
// through the memo (the vector becomes the session's goal, so the
// Gauntlet does not embed it again) and returns the ids of the n nearest
// node vectors. It fails when the layer is not active.
func (l *Layer) Nearest(ctx context.Context, query string, n int) ([]string, error) {
	e, ix, ok := l.ready()
	if !ok {
		return nil, errors.New("canopy: layer is no longer active")
	}
	vec, err := l.embed(ctx, e, query)
	if err != nil {
		return nil, err
	}
	if len(vec) != ix.Dim {
		return nil, fmt.Errorf("canopy: query vector has %d values, the index %d", len(vec), ix.Dim)
	}
	l.goals.setVector(l.session(ctx), query, e.Model(), vec)
	hits := ix.Nearest(vec, n)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// Status reports the layer (K.4): its state, the models of the index and
// of the bound embedder, how many vectors the index holds and how many
// catalog nodes a refresh would embed.
func (l *Layer) Status(ctx context.Context) (Status, error) {
	nodes, err := l.Nodes(ctx)
	if err != nil {
		return Status{}, err
	}
	ix := l.Index()
	return NewStatus(l.Embedder(), ix, len(ix.Stale(nodes))), nil
}

// Build embeds every catalog node with the bound embedder and replaces
// the index, clearing every stale mark; it is the only repair of a model
// change. Without an embedder it refuses with E_SCHEMA; a failed
// embedding leaves the index on disk unchanged.
func (l *Layer) Build(ctx context.Context) (*Index, error) {
	e := l.Embedder()
	if e == nil {
		return nil, errNoEmbedder("build")
	}
	l.buildMu.Lock()
	defer l.buildMu.Unlock()
	nodes, err := l.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	ix, err := Build(ctx, e, nodes, l.progress("canopy build"))
	if err != nil {
		return nil, embedFailure("build", err)
	}
	if err := l.save(ctx, ix, nodes); err != nil {
		return nil, err
	}
	return ix, nil
}

// Refresh embeds the stale nodes only, keeping every other vector and
// dropping those of nodes gone from the catalog, and returns how many it
// embedded with the layer's status after. It refuses with E_SCHEMA
// without an embedder and unless the layer is active: a partial
// re-embedding would mix two vector spaces, so those need Build.
func (l *Layer) Refresh(ctx context.Context) (int, Status, error) {
	e := l.Embedder()
	if e == nil {
		return 0, Status{}, errNoEmbedder("refresh")
	}
	l.buildMu.Lock()
	defer l.buildMu.Unlock()
	ix := l.Index()
	if state := Readiness(e, ix); state != StateActive {
		return 0, Status{}, envelope.New(envelope.Schema,
			fmt.Sprintf("canopy refresh: the vector layer is %s, expected active (an index built by %s)", state, e.Model()),
			"a refresh only adds vectors to an index of the same model; run canopy build to make one").
			With("state", state)
	}
	nodes, err := l.Nodes(ctx)
	if err != nil {
		return 0, Status{}, err
	}
	next, embedded, err := ix.Refresh(ctx, e, nodes, l.progress("canopy refresh"))
	if err != nil {
		return 0, Status{}, embedFailure("refresh", err)
	}
	if err := l.save(ctx, next, embedded); err != nil {
		return 0, Status{}, err
	}
	status, err := l.Status(ctx)
	if err != nil {
		return 0, Status{}, err
	}
	return len(embedded), status, nil
}

func errNoEmbedder(op string) error {
	return envelope.New(envelope.Schema,
		fmt.Sprintf("canopy %s: no embedder is bound to this forest; expected one to make vectors", op),
		"bind an embedder (Options.Embedder, SetEmbedder, or vine canopy "+op+" --embedder hash|llamacpp)")
}

// embedFailure answers a failed build or refresh: a cancelled context as
// itself, anything else (the embedder's failure) as E_SCHEMA naming it.
// Nothing was written.
func embedFailure(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return envelope.New(envelope.Schema, fmt.Sprintf("canopy %s failed: %v", op, err),
		"check the embedder (its endpoint and model); the index on disk is unchanged")
}

// save writes ix with the layer's clock, makes it the loaded index and
// clears the stale marks of the nodes just embedded.
func (l *Layer) save(ctx context.Context, ix *Index, embedded []Node) error {
	ix.BuiltAt = float64(l.opt.Now().UnixMilli()) / 1000
	if err := ix.Save(l.dir); err != nil {
		return fmt.Errorf("vine: write canopy index: %w", err)
	}
	l.publish(ix)
	l.clearStale(ctx, embedded)
	return nil
}

// clearStale drops the stale mark of embedded nodes whose text is still
// the one embedded; a node rewritten meanwhile keeps its mark. Best
// effort: the vectors are saved, and a mark left behind costs one
// needless re-embedding.
func (l *Layer) clearStale(ctx context.Context, embedded []Node) {
	var marked []catalog.NodeText
	for _, n := range embedded {
		if n.Written {
			marked = append(marked, catalog.NodeText{ID: n.ID, Title: n.Title, Summary: n.Summary})
		}
	}
	if len(marked) == 0 {
		return
	}
	if err := l.cat.ClearStale(ctx, marked); err != nil {
		l.log.Warn("canopy stale marks not cleared; the next refresh embeds them again", "err", err)
	}
}

// Nodes lists every catalog node with its embedded text and stale mark,
// in id order.
func (l *Layer) Nodes(ctx context.Context) ([]Node, error) {
	texts, err := l.cat.NodeTexts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Node, len(texts))
	for i, t := range texts {
		out[i] = Node{ID: t.ID, Title: t.Title, Summary: t.Summary, Written: t.Stale}
	}
	return out, nil
}

func (l *Layer) progress(op string) Progress {
	if l.opt.Progress == nil {
		return nil
	}
	return func(done, total int) { l.opt.Progress(op, done, total) }
}

// Written marks nodes a write just committed as stale (spec 04 §0: new
// and edited nodes are stale). Without an index on disk there is nothing
// to be stale against — every node lacks a vector until a build — so the
// common forest pays nothing. Best effort: the commit has landed.
func (l *Layer) Written(ctx context.Context, ids ...string) {
	if len(ids) == 0 || !l.stat().present {
		return
	}
	if err := l.cat.MarkStale(ctx, ids...); err != nil {
		l.log.Warn("marking nodes stale failed; the next vector refresh misses them", "err", err)
	}
}
