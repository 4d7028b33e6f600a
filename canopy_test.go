// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// canopyDim is the dimension of the Hash embedders of these tests.
const canopyDim = 256

// countingEmbedder wraps an embedder and records what it was asked for.
type countingEmbedder struct {
	canopy.Embedder
	mu    sync.Mutex
	calls int
	texts []string
}

func newCounting(model string) *countingEmbedder {
	return &countingEmbedder{Embedder: canopy.NewHash(model, canopyDim)}
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.calls++
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

// reset forgets what was counted so far.
func (c *countingEmbedder) reset() {
	c.mu.Lock()
	c.calls, c.texts = 0, nil
	c.mu.Unlock()
}

func (c *countingEmbedder) seen() (int, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, slices.Clone(c.texts)
}

// canopyForest is a fresh copy of the fixture forest, opened writable.
func canopyForest(t *testing.T) *entryForest {
	t.Helper()
	return newEntryForest(t, &Options{Now: plantClock})
}

// buildWith binds e and builds the index with it.
func buildWith(t *testing.T, v *Vine, e canopy.Embedder) *CanopyBuildResult {
	t.Helper()
	v.SetEmbedder(e)
	res, err := v.CanopyBuild(context.Background())
	require.NoError(t, err)
	return res
}

func canopyStatus(t *testing.T, v *Vine) canopy.Status {
	t.Helper()
	s, err := v.CanopyStatus(context.Background())
	require.NoError(t, err)
	return s
}

func catalogCount(t *testing.T, v *Vine) int {
	t.Helper()
	var n int
	require.NoError(t, v.Catalog().DB().QueryRow("SELECT count(*) FROM nodes").Scan(&n))
	return n
}

func TestCanopyBuildAndStatus(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	nodes := catalogCount(t, v)

	s := canopyStatus(t, v)
	assert.Equal(t, canopy.StateNoEmbedder, s.State)
	assert.Equal(t, nodes, s.Stale, "without vectors every node awaits one")

	var progress []Progress
	v.progress = func(p Progress) { progress = append(progress, p) }
	e := newCounting("hash")
	res := buildWith(t, v, e)
	assert.Equal(t, &CanopyBuildResult{Nodes: nodes, Model: "hash", Dim: canopyDim}, res)
	require.NotEmpty(t, progress)
	assert.Equal(t, Progress{Op: "canopy build", Done: nodes, Total: nodes}, progress[len(progress)-1])
	_, texts := e.seen()
	assert.Len(t, texts, nodes, "every catalog node, branches included")
	assert.Contains(t, texts, nodeText(t, v, "_index"), "the root is embedded as <title>. <summary>")

	s = canopyStatus(t, v)
	assert.Equal(t, canopy.Status{State: canopy.StateActive, Active: true, IndexModel: "hash", QueryModel: "hash",
		Vectors: nodes, Stale: 0}, s)
	ix, err := canopy.Load(filepath.Join(f.dir, canopyDir))
	require.NoError(t, err)
	assert.True(t, slices.IsSorted(ix.IDs()), "id order")
	assert.Equal(t, float64(plantClock().UnixMilli())/1000, ix.BuiltAt, "built_at is the engine's clock")

	v.SetEmbedder(nil)
	s = canopyStatus(t, v)
	assert.Equal(t, canopy.StateNoEmbedder, s.State)
	assert.Equal(t, nodes, s.Vectors, "the index is still reported")
}

// nodeText is the embedded text of a catalog node, spelled out.
func nodeText(t *testing.T, v *Vine, id string) string {
	t.Helper()
	rec, ok, err := v.Catalog().Get(context.Background(), id)
	require.NoError(t, err)
	require.True(t, ok, id)
	return rec.Title + ". " + rec.Summary
}

// requireUntouched checks a refusal changed no file and made no commit.
func requireUntouched(t *testing.T, dir, digest, sha string) {
	t.Helper()
	assert.Equal(t, digest, testforest.TreeDigest(t, dir), "the worktree is byte-identical")
	assert.Equal(t, sha, head(t, dir), "no commit was made")
}

func requireCanopyRefusal(t *testing.T, err error, state string) {
	t.Helper()
	var e *Error
	require.True(t, errors.As(err, &e), "want an envelope, got %v", err)
	assert.Equal(t, envelope.Schema, e.Code)
	if state != "" {
		assert.Contains(t, e.Message, state, "the message names the layer's state")
	}
	assert.NotEmpty(t, e.Hint)
}

func TestCanopyRefusals(t *testing.T) {
	ctx := context.Background()
	f := canopyForest(t)
	v := f.v
	digest, sha := testforest.TreeDigest(t, f.dir), head(t, f.dir)

	_, err := v.CanopyBuild(ctx)
	requireCanopyRefusal(t, err, "")
	assert.Contains(t, err.Error(), "no embedder")
	_, err = v.CanopyRefresh(ctx)
	requireCanopyRefusal(t, err, "")
	_, statErr := os.Stat(filepath.Join(f.dir, canopyDir))
	assert.ErrorIs(t, statErr, os.ErrNotExist, "a refused build writes nothing, not even its directory")

	v.SetEmbedder(canopy.NewHash("hash", canopyDim))
	_, err = v.CanopyRefresh(ctx)
	requireCanopyRefusal(t, err, canopy.StateNoIndex)

	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	v.SetEmbedder(canopy.NewHash("bge-m3", canopyDim))
	_, err = v.CanopyRefresh(ctx)
	requireCanopyRefusal(t, err, canopy.StateModelMismatch)

	down := canopy.Embedder(failingEmbedder{model: "hash"})
	v.SetEmbedder(down)
	_, err = v.CanopyBuild(ctx)
	requireCanopyRefusal(t, err, "")
	assert.Contains(t, err.Error(), "provider down")
	assert.Equal(t, canopy.StateModelMismatch, canopyStatus(t, v).State,
		"the failing embedder names the index's model but not its dimension; the index on disk is unchanged")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	v.SetEmbedder(canopy.NewHash("hash", canopyDim))
	_, err = v.CanopyBuild(cancelled)
	assert.ErrorIs(t, err, context.Canceled, "cancellation is not dressed as a refusal")
	requireUntouched(t, f.dir, digest, sha)
}

// failingEmbedder always fails.
type failingEmbedder struct{ model string }

func (f failingEmbedder) Model() string  { return f.model }
func (f failingEmbedder) Dimension() int { return 8 }
func (f failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("provider down")
}

func TestCanopyIntegrityGuard(t *testing.T) {
	ctx := context.Background()
	f := canopyForest(t)
	v := f.v
	buildWith(t, v, canopy.NewHash("hash", canopyDim))

	v.SetEmbedder(newCounting("bge-m3"))
	s := canopyStatus(t, v)
	assert.Equal(t, canopy.StateModelMismatch, s.State, "a mismatch is reported")
	assert.False(t, s.Active)
	assert.Equal(t, "hash", s.IndexModel)
	assert.Equal(t, "bge-m3", s.QueryModel)

	res, err := locCall(t, v, `{"query": "storm safety at sea", "hybrid": true}`)
	require.NoError(t, err)
	assert.False(t, *res.Hybrid, "a mismatched layer is treated as absent")
	assert.Equal(t, canopy.StateModelMismatch, res.HybridReason)

	// Corrupt files read as no index: status, hybrid and refresh agree.
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, canopyDir, canopy.IndexFile), []byte(`{"model": "hash", "dim": 3`), 0o644))
	v.SetEmbedder(canopy.NewHash("hash", canopyDim))
	assert.Equal(t, canopy.StateNoIndex, canopyStatus(t, v).State)
	res, err = locCall(t, v, `{"query": "storm safety at sea", "hybrid": true}`)
	require.NoError(t, err)
	assert.Equal(t, canopy.StateNoIndex, res.HybridReason)
	_, err = v.CanopyRefresh(ctx)
	requireCanopyRefusal(t, err, canopy.StateNoIndex)

	// A build repairs it.
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	assert.Equal(t, canopy.StateActive, canopyStatus(t, v).State)
}

func TestCanopyHybridSwitching(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	const args = `{"query": "storm safety at sea", "k": 8, "hybrid": true}`
	plain, err := locCall(t, v, `{"query": "storm safety at sea", "k": 8}`)
	require.NoError(t, err)
	lexical := locWire(t, plain.Results)

	check := func(name, wantReason string, wantRan bool) *LocateResult {
		t.Helper()
		res, err := locCall(t, v, args)
		require.NoError(t, err, name)
		require.NotNil(t, res.Hybrid, name)
		assert.Equal(t, wantRan, *res.Hybrid, name)
		assert.Equal(t, wantReason, res.HybridReason, name)
		if !wantRan {
			assert.Equal(t, lexical, locWire(t, res.Results), "%s: the BM25 answer, byte for byte", name)
		}
		return res
	}
	check("no embedder", canopy.StateNoEmbedder, false)
	v.SetEmbedder(canopy.NewHash("hash", canopyDim))
	check("no index", canopy.StateNoIndex, false)
	empty, err := canopy.Build(context.Background(), canopy.NewHash("hash", canopyDim), nil, nil)
	require.NoError(t, err)
	require.NoError(t, empty.Save(filepath.Join(f.dir, canopyDir)))
	check("empty index", canopy.StateNoIndex, false)
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	v.SetEmbedder(canopy.NewHash("e5", canopyDim))
	check("model mismatch", canopy.StateModelMismatch, false)
	v.SetEmbedder(canopy.NewHash("hash", canopyDim))
	fused := check("active", canopy.StateActive, true)
	assert.NotEqual(t, lexical, locWire(t, fused.Results), "fusion changes the ranking")

	// Binding an embedder never turns hybrid on: without the flag (or with
	// false) the answer is the BM25 one, with no echo.
	for _, a := range []string{`{"query": "storm safety at sea", "k": 8}`, `{"query": "storm safety at sea", "k": 8, "hybrid": false}`} {
		res, err := locCall(t, v, a)
		require.NoError(t, err)
		assert.Equal(t, locWire(t, plain), locWire(t, res), a)
	}
}

func TestCanopyHybridMemoStaleAndRefresh(t *testing.T) {
	ctx := context.Background()
	f := canopyForest(t)
	v := f.v
	e := newCounting("hash")
	buildWith(t, v, e)
	e.reset()

	const query = `{"query": "night watch rota for the harbour office", "k": 5, "hybrid": true}`
	first, err := locCall(t, v, query)
	require.NoError(t, err)
	require.True(t, *first.Hybrid)
	calls, texts := e.seen()
	assert.Equal(t, 1, calls, "a hybrid locate embeds the query and nothing else")
	assert.Equal(t, []string{"night watch rota for the harbour office"}, texts)

	_, err = v.Call(ctx, "plant", []byte(`{"node": {"id": "operations/night-watch", "type": "note",
		"title": "Night watch rota", "summary": "Night watch rota for the harbour office: two people, 22:00-06:00.",
		"parent": "operations/_index"}}`))
	require.NoError(t, err)
	s := canopyStatus(t, v)
	assert.Equal(t, 2, s.Stale, "the new node and the index that lists it are stale")

	_, err = locCall(t, v, query)
	require.NoError(t, err)
	calls, _ = e.seen()
	assert.Equal(t, 1, calls, "a repeated query is served by the memo: no embed call, nodes never embedded on a read")
	lexical, err := locCall(t, v, `{"query": "night watch rota for the harbour office", "k": 1}`)
	require.NoError(t, err)
	assert.Equal(t, []string{"operations/night-watch"}, locIDs(lexical), "BM25 finds the new node at once")
	dense, err := v.canopy.Nearest(ctx, "night watch rota for the harbour office", 200)
	require.NoError(t, err)
	assert.NotContains(t, dense, "operations/night-watch", "an unrefreshed node is missing from the vector hits only")

	e.reset()
	ref, err := v.CanopyRefresh(ctx)
	require.NoError(t, err)
	calls, texts = e.seen()
	assert.Equal(t, 2, ref.Refreshed)
	assert.ElementsMatch(t, []string{
		"Night watch rota. Night watch rota for the harbour office: two people, 22:00-06:00.",
		nodeText(t, v, "operations/_index"),
	}, texts, "refresh embeds exactly the stale nodes")
	assert.Equal(t, 1, calls)
	assert.Equal(t, 0, ref.Status.Stale)
	assert.Equal(t, canopy.StateActive, ref.Status.State)
	wire, err := json.Marshal(ref)
	require.NoError(t, err)
	assert.JSONEq(t, `{"refreshed":2,"state":"active","active":true,"index_model":"hash","query_model":"hash",
		"vectors":`+jsonInt(s.Vectors+1)+`,"stale":0}`, string(wire))

	dense, err = v.canopy.Nearest(ctx, "night watch rota for the harbour office", 3)
	require.NoError(t, err)
	assert.Equal(t, "operations/night-watch", dense[0], "after the refresh the node has its vector")
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestCanopyWritesMarkStale(t *testing.T) {
	ctx := context.Background()
	f := canopyForest(t)
	v := f.v
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	staleIDs := func() []string {
		t.Helper()
		nodes, err := v.canopy.Nodes(ctx)
		require.NoError(t, err)
		var out []string
		for _, n := range v.canopy.Index().Stale(nodes) {
			out = append(out, n.ID)
		}
		return out
	}
	refresh := func() {
		t.Helper()
		_, err := v.CanopyRefresh(ctx)
		require.NoError(t, err)
		require.Empty(t, staleIDs())
	}
	for _, tc := range []struct {
		name, primitive, args string
		want                  []string
	}{
		{"graft of a body", "graft", `{"id": "concepts/tide", "patch": {"append_section": {"header": "Notes", "body": "Spring tides."}}}`,
			[]string{"concepts/tide"}},
		{"transplant", "transplant", `{"id": "concepts/tide", "new_id": "operations/tide"}`,
			nil}, // checked below: the new id and the indexes re-rendered
		{"tend", "tend", `{"id": "` + ledgerID + `", "sql": "INSERT INTO ledger VALUES ('2026-12-01', 'ice', 'Salvador', -42.5, 'ice')"}`,
			[]string{ledgerID}},
		{"prune", "prune", `{"id": "operations/tide", "force": true}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Call(ctx, tc.primitive, []byte(tc.args))
			require.NoError(t, err)
			got := staleIDs()
			switch tc.name {
			case "transplant":
				assert.Contains(t, got, "operations/tide", "vectors are keyed by id: the new id is stale")
				assert.Contains(t, got, "operations/_index")
			case "prune":
				assert.NotContains(t, got, "operations/tide", "a pruned node needs no vector")
				assert.Contains(t, got, "operations/_index", "the index that listed it was rewritten")
			default:
				assert.Equal(t, tc.want, got)
			}
			refresh()
		})
	}
}

func TestCanopyStaleSurvivesReindexAndLostCatalog(t *testing.T) {
	ctx := context.Background()
	f := canopyForest(t)
	v := f.v
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	_, err := v.Call(ctx, "graft", []byte(`{"id": "concepts/tide", "patch": {"set_frontmatter": {"summary": "Water rises and falls, twice a day."}}}`))
	require.NoError(t, err)
	_, err = v.Call(ctx, "graft", []byte(`{"id": "concepts/tide", "patch": {"append_section": {"header": "Notes", "body": "Neap tides."}}}`))
	require.NoError(t, err)
	before := canopyStatus(t, v).Stale
	require.Positive(t, before)

	_, err = v.Reindex(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, canopyStatus(t, v).Stale, "stale survives a catalog rebuild")

	// A catalog deleted and rebuilt from the files has no marks at all;
	// the text hashes in the index still know which summary changed.
	require.NoError(t, v.Close())
	require.NoError(t, os.Remove(filepath.Join(f.dir, "_derived", "catalog.db")))
	for _, side := range []string{"-wal", "-shm"} {
		os.Remove(filepath.Join(f.dir, "_derived", "catalog.db"+side))
	}
	v = openT(t, f.dir, &Options{Embedder: canopy.NewHash("hash", canopyDim)})
	nodes, err := v.canopy.Nodes(ctx)
	require.NoError(t, err)
	var stale []string
	for _, n := range v.canopy.Index().Stale(nodes) {
		stale = append(stale, n.ID)
	}
	assert.Contains(t, stale, "concepts/tide", "a changed summary is stale even without the catalog's mark")
}

func TestCanopyWriteHookWithoutIndexMarksNothing(t *testing.T) {
	f := canopyForest(t)
	v := f.v
	marked := func() int {
		t.Helper()
		var n int
		require.NoError(t, v.Catalog().DB().QueryRow("SELECT count(*) FROM nodes WHERE stale <> 0").Scan(&n))
		return n
	}
	plant := `{"node": {"id": "operations/%s", "type": "note", "title": "Watch", "summary": "A watch rota.", "parent": "operations/_index"}}`
	_, err := v.Call(context.Background(), "plant", []byte(fmt.Sprintf(plant, "watch-1")))
	require.NoError(t, err)
	assert.Zero(t, marked(), "without an index there is nothing to be stale against: no extra write")

	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	_, err = v.Call(context.Background(), "plant", []byte(fmt.Sprintf(plant, "watch-2")))
	require.NoError(t, err)
	assert.Equal(t, 2, marked(), "with an index, the new node and the index re-rendered for it are marked")
}

func TestSetEmbedderConcurrentWithReads(t *testing.T) {
	ctx := WithSession(context.Background(), "race")
	f := canopyForest(t)
	v := f.v
	buildWith(t, v, canopy.NewHash("hash", canopyDim))
	_, err := v.Call(ctx, "locate", []byte(`{"query": "storm safety"}`))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 20 {
				for _, c := range []struct{ name, args string }{
					{"look", `{"id": "concepts/tide"}`},
					{"move", `{"id": "concepts/tide", "direction": "both"}`},
					{"scan", `{"parent_id": "concepts/_index"}`},
					{"locate", `{"query": "tide tables", "hybrid": true}`},
				} {
					if _, err := v.Call(ctx, c.name, []byte(c.args)); err != nil {
						t.Errorf("%s: %v", c.name, err)
					}
				}
			}
		})
		wg.Go(func() {
			for j := range 40 {
				if (i+j)%2 == 0 {
					v.SetEmbedder(nil)
				} else {
					v.SetEmbedder(canopy.NewHash("hash", canopyDim))
				}
			}
		})
	}
	wg.Wait()
}
