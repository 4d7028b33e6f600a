package vine

import (
	"context"
	"database/sql"
	"encoding/json"
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
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/envelope"
)

// canopyDir is where the vector layer lives, relative to the forest root.
var canopyDir = filepath.Join(forest.DerivedDir, "canopy")

// canopyLayer is the forest's optional vector layer (Part K): the bound
// embedder, the index on disk as last loaded, the query memo and the
// sessions' goals. With no embedder or no index it is inert, and every
// read answers as if it did not exist.
type canopyLayer struct {
	dir                 string
	indexPath, vecsPath string // the two files, stat'ed on every ready check
	log                 *slog.Logger
	emb                 atomic.Pointer[embedderRef]
	memo                *canopy.Memo // set when the catalog opens
	goals               goalBook

	loaded atomic.Pointer[loadedIndex] // nil until first read
	loadMu sync.Mutex                  // one load at a time

	buildMu sync.Mutex // one build or refresh at a time
}

// embedderRef boxes an Embedder for atomic swaps.
type embedderRef struct{ e canopy.Embedder }

// loadedIndex is the index as read for one version of its files.
type loadedIndex struct {
	key indexFiles
	ix  *canopy.Index // nil: absent or untrusted
}

// indexFiles identifies a version of the index files by their sizes and
// modification times: a build here or in another process changes them.
type indexFiles struct {
	jsonSize, vecSize   int64
	jsonMtime, vecMtime int64
	present             bool
}

func newCanopyLayer(root string, e canopy.Embedder, log *slog.Logger) *canopyLayer {
	dir := filepath.Join(root, canopyDir)
	l := &canopyLayer{dir: dir, log: log,
		indexPath: filepath.Join(dir, canopy.IndexFile), vecsPath: filepath.Join(dir, canopy.VectorsFile)}
	l.setEmbedder(e)
	return l
}

// attach binds the layer's memo to the opened catalog.
func (l *canopyLayer) attach(cat *catalog.Catalog) {
	l.memo = canopy.NewMemo(cat, canopy.MemoOptions{Logger: l.log})
}

func (l *canopyLayer) setEmbedder(e canopy.Embedder) {
	if e == nil {
		l.emb.Store(nil)
		return
	}
	l.emb.Store(&embedderRef{e})
}

func (l *canopyLayer) embedder() canopy.Embedder {
	if r := l.emb.Load(); r != nil {
		return r.e
	}
	return nil
}

// SetEmbedder binds e as the forest's embedder, or detaches it when e is
// nil. Binding turns the Gauntlet on for look, move and scan once an
// index of e's model exists; it never turns on hybrid entry search, which
// each locate call asks for (K.1). Safe for concurrent use: calls already
// running finish with the embedder they started with.
func (v *Vine) SetEmbedder(e canopy.Embedder) { v.canopy.setEmbedder(e) }

// Embedder returns the bound embedder, nil when none is.
func (v *Vine) Embedder() canopy.Embedder { return v.canopy.embedder() }

// index returns the index on disk, reloading it when its files changed;
// nil when it is absent or cannot be trusted (then logged: a rebuild is
// the repair).
//
// The common case — files unchanged since the last read — costs two stats
// and an atomic load; only a changed version takes the lock and reads.
func (l *canopyLayer) index() *canopy.Index {
	key := l.stat()
	if cur := l.loaded.Load(); cur != nil && cur.key == key {
		return cur.ix
	}
	l.loadMu.Lock()
	defer l.loadMu.Unlock()
	if cur := l.loaded.Load(); cur != nil && cur.key == key {
		return cur.ix // loaded by the caller we waited for
	}
	var ix *canopy.Index
	if key.present {
		var err error
		ix, err = canopy.Load(l.dir)
		if err != nil && !errors.Is(err, canopy.ErrNoIndex) {
			l.log.Warn("canopy index ignored; rebuild it", "err", err)
		}
	}
	l.loaded.Store(&loadedIndex{key: key, ix: ix})
	return ix
}

func (l *canopyLayer) stat() indexFiles {
	j, err1 := os.Stat(l.indexPath)
	f, err2 := os.Stat(l.vecsPath)
	if err1 != nil || err2 != nil {
		return indexFiles{}
	}
	return indexFiles{jsonSize: j.Size(), vecSize: f.Size(),
		jsonMtime: j.ModTime().UnixNano(), vecMtime: f.ModTime().UnixNano(), present: true}
}

// publish makes ix, just saved, the loaded index.
func (l *canopyLayer) publish(ix *canopy.Index) {
	l.loadMu.Lock()
	l.loaded.Store(&loadedIndex{key: l.stat(), ix: ix})
	l.loadMu.Unlock()
}

// ready returns the embedder and index when the layer is active (K.4).
func (l *canopyLayer) ready() (canopy.Embedder, *canopy.Index, bool) {
	e := l.embedder()
	if e == nil {
		return nil, nil, false // no file is touched without an embedder
	}
	ix := l.index()
	return e, ix, canopy.Readiness(e, ix) == canopy.StateActive
}

// state is the layer's readiness.
func (l *canopyLayer) state() string {
	e := l.embedder()
	if e == nil {
		return canopy.StateNoEmbedder
	}
	return canopy.Readiness(e, l.index())
}

// embed embeds a caller text through the memo and charges the time to the
// call's embed share.
func (l *canopyLayer) embed(ctx context.Context, e canopy.Embedder, text string) ([]float32, error) {
	start := time.Now()
	vec, err := l.memo.Embed(ctx, e, text)
	sharesOf(ctx).addEmbed(time.Since(start))
	return vec, err
}

// canopyDense is the dense leg of hybrid locate, backed by the layer.
type canopyDense struct{ v *Vine }

func (v *Vine) denseLayer() denseRanker { return canopyDense{v} }

// State is the layer's readiness (K.4).
func (d canopyDense) State(context.Context) string { return d.v.canopy.state() }

// Nearest embeds the raw query through the memo (the vector becomes the
// session's goal, so the Gauntlet does not embed it again) and returns
// the ids of the n nearest node vectors.
func (d canopyDense) Nearest(ctx context.Context, query string, n int) ([]string, error) {
	l := d.v.canopy
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
	l.goals.setVector(d.v.heat.sessionOf(ctx), query, e.Model(), vec)
	hits := ix.Nearest(vec, n)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// CanopyStatus reports the vector layer (K.4): its state, the models of
// the index and of the bound embedder, how many vectors the index holds
// and how many catalog nodes a refresh would embed.
func (v *Vine) CanopyStatus(ctx context.Context) (canopy.Status, error) {
	nodes, err := v.canopyNodes(ctx)
	if err != nil {
		return canopy.Status{}, err
	}
	ix := v.canopy.index()
	return canopy.NewStatus(v.canopy.embedder(), ix, len(ix.Stale(nodes))), nil
}

// CanopyBuildResult is what a build made.
type CanopyBuildResult struct {
	Nodes int    `json:"nodes"`
	Model string `json:"model"`
	Dim   int    `json:"dim"`
}

// CanopyBuild embeds every catalog node ("<title>. <summary>", branches
// included, in id order) with the bound embedder and replaces the index in
// _derived/canopy, clearing every stale mark. It is the only repair of a
// model change. Without an embedder it refuses with E_SCHEMA. Progress,
// when configured, counts nodes embedded. Only _derived is written: no
// commit, no trace, no heat.
func (v *Vine) CanopyBuild(ctx context.Context) (*CanopyBuildResult, error) {
	e := v.canopy.embedder()
	if e == nil {
		return nil, errNoEmbedder("build")
	}
	v.canopy.buildMu.Lock()
	defer v.canopy.buildMu.Unlock()
	nodes, err := v.canopyNodes(ctx)
	if err != nil {
		return nil, err
	}
	ix, err := canopy.Build(ctx, e, nodes, v.canopyProgress("canopy build"))
	if err != nil {
		return nil, embedFailure("build", err)
	}
	if err := v.canopySave(ctx, ix, nodes); err != nil {
		return nil, err
	}
	return &CanopyBuildResult{Nodes: ix.Len(), Model: ix.Model, Dim: ix.Dim}, nil
}

// CanopyRefreshResult is what a refresh embedded, and the layer after it.
type CanopyRefreshResult struct {
	Refreshed int
	Status    canopy.Status
}

// MarshalJSON renders {refreshed, state, active, index_model,
// query_model, vectors, stale}.
func (r CanopyRefreshResult) MarshalJSON() ([]byte, error) {
	status, err := json.Marshal(r.Status)
	if err != nil {
		return nil, err
	}
	return append(fmt.Appendf(nil, `{"refreshed":%d,`, r.Refreshed), status[1:]...), nil
}

// CanopyRefresh embeds the stale nodes only — written since the vectors
// were made, or without a vector — keeping every other vector and
// dropping those of nodes gone from the catalog; stale is 0 after it. It
// refuses with E_SCHEMA without an embedder, and unless the layer is
// active (an absent, empty or other-model index): a partial re-embedding
// would mix two vector spaces, so those need CanopyBuild.
func (v *Vine) CanopyRefresh(ctx context.Context) (*CanopyRefreshResult, error) {
	e := v.canopy.embedder()
	if e == nil {
		return nil, errNoEmbedder("refresh")
	}
	v.canopy.buildMu.Lock()
	defer v.canopy.buildMu.Unlock()
	ix := v.canopy.index()
	if state := canopy.Readiness(e, ix); state != canopy.StateActive {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("canopy refresh: the vector layer is %s, expected active (an index built by %s)", state, e.Model()),
			"a refresh only adds vectors to an index of the same model; run canopy build to make one").
			With("state", state)
	}
	nodes, err := v.canopyNodes(ctx)
	if err != nil {
		return nil, err
	}
	next, embedded, err := ix.Refresh(ctx, e, nodes, v.canopyProgress("canopy refresh"))
	if err != nil {
		return nil, embedFailure("refresh", err)
	}
	if err := v.canopySave(ctx, next, embedded); err != nil {
		return nil, err
	}
	status, err := v.CanopyStatus(ctx)
	if err != nil {
		return nil, err
	}
	return &CanopyRefreshResult{Refreshed: len(embedded), Status: status}, nil
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

// canopySave writes ix with the engine's clock, clears the stale marks of
// the nodes just embedded, and makes ix the loaded index.
func (v *Vine) canopySave(ctx context.Context, ix *canopy.Index, embedded []canopy.Node) error {
	ix.BuiltAt = float64(v.now().UnixMilli()) / 1000
	if err := ix.Save(v.canopy.dir); err != nil {
		return fmt.Errorf("vine: write canopy index: %w", err)
	}
	v.canopy.publish(ix)
	v.canopyClearStale(ctx, embedded)
	return nil
}

// canopyClearStale drops the stale mark of embedded nodes whose text is
// still the one embedded; a node rewritten meanwhile keeps its mark.
// Best effort: the vectors are saved, and a mark left behind costs one
// needless re-embedding.
func (v *Vine) canopyClearStale(ctx context.Context, embedded []canopy.Node) {
	var marked []canopy.Node
	for _, n := range embedded {
		if n.Written {
			marked = append(marked, n)
		}
	}
	if len(marked) == 0 {
		return
	}
	err := v.cat.Write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, "UPDATE nodes SET stale = 0 WHERE id = ? AND title = ? AND summary = ?")
		if err != nil {
			return err
		}
		defer st.Close()
		for _, n := range marked {
			if _, err := st.ExecContext(ctx, n.ID, n.Title, n.Summary); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		v.log.Warn("canopy stale marks not cleared; the next refresh embeds them again", "err", err)
	}
}

// canopyNodes lists every catalog node with its embedded text and stale
// mark, in id order.
func (v *Vine) canopyNodes(ctx context.Context) ([]canopy.Node, error) {
	rows, err := v.cat.DB().QueryContext(ctx, "SELECT id, title, summary, stale FROM nodes ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []canopy.Node
	for rows.Next() {
		var n canopy.Node
		var stale int
		if err := rows.Scan(&n.ID, &n.Title, &n.Summary, &stale); err != nil {
			return nil, err
		}
		n.Written = stale != 0
		out = append(out, n)
	}
	return out, rows.Err()
}

func (v *Vine) canopyProgress(op string) canopy.Progress {
	if v.progress == nil {
		return nil
	}
	return func(done, total int) { v.progress(Progress{Op: op, Done: done, Total: total}) }
}

// canopyWritten marks the nodes a write just committed as stale for the
// vector layer (spec 04 §0: new and edited nodes are stale). Without an
// index on disk there is nothing to be stale against — every node lacks a
// vector until a build — so the common forest pays nothing. Best effort:
// the commit has landed.
func (v *Vine) canopyWritten(ctx context.Context, written []*forest.Node) {
	if len(written) == 0 || !v.canopy.stat().present {
		return
	}
	ids := make([]string, len(written))
	for i, n := range written {
		ids[i] = n.ID
	}
	v.markStale(ctx, ids...)
}
