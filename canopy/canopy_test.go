// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counting wraps an embedder and records every text it was asked for.
type counting struct {
	Embedder
	mu    sync.Mutex
	calls int
	texts []string
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.calls++
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

func (c *counting) seen() (int, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, slices.Clone(c.texts)
}

// scripted answers Embed with fixed vectors or an error.
type scripted struct {
	model string
	dim   int
	vecs  [][]float32
	err   error
}

func (s scripted) Model() string  { return s.model }
func (s scripted) Dimension() int { return s.dim }
func (s scripted) Embed(context.Context, []string) ([][]float32, error) {
	return s.vecs, s.err
}

func norm(v []float32) float64 { return math.Sqrt(float64(Dot(v, v))) }

func TestNormalize(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		in   []float32
		ok   bool
		want []float32
	}{
		{"scaled", []float32{3, 4}, true, []float32{0.6, 0.8}},
		{"already unit", []float32{0, 1, 0}, true, []float32{0, 1, 0}},
		{"zero", []float32{0, 0}, false, []float32{0, 0}},
		{"empty", []float32{}, false, []float32{}},
		{"nan", []float32{1, nan}, false, nil},
		{"inf", []float32{inf, 1}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := slices.Clone(tc.in)
			assert.Equal(t, tc.ok, Normalize(v))
			if tc.want != nil {
				assert.InDeltaSlice(t, tc.want, v, 1e-6)
			}
		})
	}
}

func TestDotMatchesNaiveSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		a, b := make([]float32, n), make([]float32, n+3) // b longer: the common length counts
		var want float64
		for i := range a {
			a[i], b[i] = r.Float32()-0.5, r.Float32()-0.5
			want += float64(a[i]) * float64(b[i])
		}
		assert.InDelta(t, want, float64(Dot(a, b)), 1e-5, "n=%d", n)
	}
}

func TestCollapseSpaceAndNodeText(t *testing.T) {
	assert.Equal(t, "Tide tables at Dawn", CollapseSpace("  Tide\ttables \n at   Dawn "))
	assert.Equal(t, "", CollapseSpace(" \n "))
	assert.Equal(t, "Tide. Water rises twice a day.", NodeText("Tide", "Water rises twice a day."))
	assert.Equal(t, "Tide. ", Node{ID: "t", Title: "Tide"}.Text(), "the reference format keeps the separator")
}

func TestHash(t *testing.T) {
	ctx := context.Background()
	h := NewHash("hash-test", 64)
	assert.Equal(t, "hash-test", h.Model())
	assert.Equal(t, 64, h.Dimension())
	vecs, err := h.Embed(ctx, []string{"storm warning for the harbour", "Storm, WARNING: for the harbour!",
		"storm warning", "ledger of fish sales", "", "   "})
	require.NoError(t, err)
	require.Len(t, vecs, 6)
	for i, v := range vecs {
		assert.Len(t, v, 64)
		assert.InDelta(t, 1, norm(v), 1e-5, "vector %d is unit", i)
	}
	assert.Equal(t, vecs[0], vecs[1], "case and punctuation do not matter")
	assert.Greater(t, Dot(vecs[0], vecs[2]), Dot(vecs[0], vecs[3]), "shared words are nearer")
	assert.Equal(t, vecs[4], vecs[5], "texts without words share one direction")
	again, err := NewHash("hash-test", 64).Embed(ctx, []string{"storm warning for the harbour"})
	require.NoError(t, err)
	assert.Equal(t, vecs[0], again[0], "deterministic across instances")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = h.Embed(cancelled, []string{"x"})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Panics(t, func() { NewHash("m", 0) })
}

// buildNodes are a small forest's worth of node texts.
var buildNodes = []Node{
	{ID: "_index", Title: "Harbour", Summary: "The harbour knowledge forest."},
	{ID: "concepts/tide", Title: "Tide", Summary: "Water rises and falls twice a day."},
	{ID: "events/storm", Title: "Storm", Summary: "A storm closed the harbour for three days."},
	{ID: "sales/ledger", Title: "Ledger", Summary: "Fish sales by boat and by week."},
}

func buildT(t *testing.T, e Embedder, nodes []Node) *Index {
	t.Helper()
	ix, err := Build(context.Background(), e, nodes, nil)
	require.NoError(t, err)
	return ix
}

func TestBuildSaveLoadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "canopy")
	var steps [][2]int
	ix, err := Build(context.Background(), NewHash("hash", 32), buildNodes, func(done, total int) {
		steps = append(steps, [2]int{done, total})
	})
	require.NoError(t, err)
	assert.Equal(t, [][2]int{{0, 4}, {4, 4}}, steps, "progress starts at zero and ends at the total")
	ix.BuiltAt = 1767369600.5
	require.NoError(t, ix.Save(dir))

	raw, err := os.ReadFile(filepath.Join(dir, IndexFile))
	require.NoError(t, err)
	var head map[string]any
	require.NoError(t, json.Unmarshal(raw, &head))
	assert.Equal(t, "hash", head["model"])
	assert.Equal(t, 32.0, head["dim"])
	assert.Equal(t, 1767369600.5, head["built_at"])
	assert.Equal(t, []any{"_index", "concepts/tide", "events/storm", "sales/ledger"}, head["ids"])
	vec, err := os.ReadFile(filepath.Join(dir, VectorsFile))
	require.NoError(t, err)
	require.Len(t, vec, 4*32*4, "little-endian float32, dim per id")
	first := math.Float32frombits(binary.LittleEndian.Uint32(vec))
	assert.Equal(t, ix.Vector(0)[0], first)

	info, err := Peek(dir)
	require.NoError(t, err)
	assert.Equal(t, Info{Model: "hash", Dim: 32, Vectors: 4, BuiltAt: 1767369600.5}, info)

	back, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, ix.Model, back.Model)
	assert.Equal(t, ix.Dim, back.Dim)
	assert.Equal(t, ix.BuiltAt, back.BuiltAt)
	assert.Equal(t, ix.IDs(), back.IDs())
	for i := range ix.Len() {
		assert.Equal(t, ix.Vector(i), back.Vector(i))
		assert.InDelta(t, 1, norm(back.Vector(i)), 1e-5, "stored vectors are unit")
	}
	assert.Empty(t, back.Stale(buildNodes), "text hashes survive the round trip")
	i, ok := back.Lookup("events/storm")
	assert.True(t, ok)
	assert.Equal(t, 2, i)
}

// writeReference writes an index as the reference implementation does:
// the four keys only.
func writeReference(t *testing.T, dir, model string, dim int, ids []string, vecs []float32) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	head, err := json.Marshal(map[string]any{"model": model, "dim": dim, "built_at": 1767369600.25, "ids": ids})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, IndexFile), head, 0o644))
	b := make([]byte, 4*len(vecs))
	for i, x := range vecs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, VectorsFile), b, 0o644))
}

func TestLoadReferenceFormat(t *testing.T) {
	dir := t.TempDir()
	writeReference(t, dir, "bge-m3", 2, []string{"a", "b"}, []float32{1, 0, 0.6, 0.8})
	ix, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "bge-m3", ix.Model)
	assert.Equal(t, []string{"a", "b"}, ix.IDs())
	assert.Equal(t, []float32{0.6, 0.8}, ix.Vector(1))
	nodes := []Node{{ID: "a", Title: "changed"}, {ID: "b", Written: true}, {ID: "c"}}
	assert.Equal(t, []string{"b", "c"}, nodeIDs(ix.Stale(nodes)),
		"without recorded hashes, staleness is the write mark and the missing vector")

	empty := t.TempDir()
	writeReference(t, empty, "bge-m3", 0, []string{}, nil)
	ix, err = Load(empty)
	require.NoError(t, err, "an empty build is an index of dimension 0")
	assert.Equal(t, 0, ix.Len())
}

func nodeIDs(nodes []Node) []string {
	out := []string{}
	for _, n := range nodes {
		out = append(out, n.ID)
	}
	return out
}

func TestLoadMissingAndCorrupt(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "absent"))
	assert.ErrorIs(t, err, ErrNoIndex)
	_, err = Peek(filepath.Join(t.TempDir(), "absent"))
	assert.ErrorIs(t, err, ErrNoIndex)
	only := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(only, IndexFile), []byte(`{"model":"m","dim":0,"ids":[]}`), 0o644))
	_, err = Load(only)
	assert.ErrorIs(t, err, ErrNoIndex, "index.json without vectors.f32 is no index")

	le := func(xs ...float32) []byte {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	}
	unit := le(1, 0)
	for _, tc := range []struct {
		name, head string
		vecs       []byte
	}{
		{"not json", `{"model":`, unit},
		{"no model", `{"dim":2,"ids":["a"]}`, unit},
		{"ids not strings", `{"model":"m","dim":2,"ids":[1]}`, unit},
		{"negative dim", `{"model":"m","dim":-2,"ids":["a"]}`, unit},
		{"absurd dim", `{"model":"m","dim":9999999999,"ids":["a"]}`, unit},
		{"ids with dim 0", `{"model":"m","dim":0,"ids":["a"]}`, nil},
		{"short vectors", `{"model":"m","dim":2,"ids":["a","b"]}`, unit},
		{"long vectors", `{"model":"m","dim":1,"ids":["a"]}`, unit},
		{"not finite", `{"model":"m","dim":2,"ids":["a"]}`, le(float32(math.NaN()), 0)},
		{"repeated id", `{"model":"m","dim":1,"ids":["a","a"]}`, le(1, 1)},
		{"checksum of another build", `{"model":"m","dim":2,"ids":["a"],"vectors_crc32c":7}`, unit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.head), tc.vecs)
			assert.ErrorIs(t, err, ErrCorrupt)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, IndexFile), []byte(tc.head), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, VectorsFile), tc.vecs, 0o644))
			_, err = Load(dir)
			assert.ErrorIs(t, err, ErrCorrupt, "Load and Decode agree")
			if _, err := Peek(dir); err == nil {
				assert.Contains(t, []string{"not finite", "repeated id", "checksum of another build"}, tc.name,
					"Peek reads no vectors, so only their contents can fool it")
			}
		})
	}
}

func TestSaveDetectsMismatchedPair(t *testing.T) {
	// Two builds of the same size: pairing one's index.json with the
	// other's vectors.f32 must not load as a valid index.
	a, b := t.TempDir(), t.TempDir()
	ixA := buildT(t, NewHash("hash", 8), buildNodes)
	swapped := slices.Clone(buildNodes)
	swapped[1], swapped[2] = Node{ID: "concepts/tide", Title: "Storm"}, Node{ID: "events/storm", Title: "Tide"}
	ixB := buildT(t, NewHash("hash", 8), swapped)
	require.NoError(t, ixA.Save(a))
	require.NoError(t, ixB.Save(b))
	vecB, err := os.ReadFile(filepath.Join(b, VectorsFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(a, VectorsFile), vecB, 0o644))
	_, err = Load(a)
	assert.ErrorIs(t, err, ErrCorrupt)
}

// bruteNearest ranks every vector by a full sort: the oracle of Nearest.
func bruteNearest(ix *Index, q []float32, k int) []Hit {
	all := make([]Hit, ix.Len())
	for i := range all {
		all[i] = Hit{ID: ix.ids[i], Score: Dot(q, ix.Vector(i))}
	}
	slices.SortStableFunc(all, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return all[:min(k, len(all))]
}

// randomIndex is n random unit vectors of dim values.
func randomIndex(tb testing.TB, n, dim int, seed uint64) *Index {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	ids := make([]string, n)
	vecs := make([]float32, n*dim)
	for i := range n {
		ids[i] = fmt.Sprintf("n/%06d", i)
		v := vecs[i*dim : (i+1)*dim]
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		Normalize(v)
	}
	ix, err := newIndex("m", dim, 0, ids, nil, vecs)
	require.NoError(tb, err)
	return ix
}

func TestNearestMatchesBruteForce(t *testing.T) {
	ix := randomIndex(t, 500, 24, 7)
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 2, 10, 25, 499, 500, 800} {
		q := make([]float32, 24)
		for j := range q {
			q[j] = float32(r.NormFloat64())
		}
		Normalize(q)
		assert.Equal(t, bruteNearest(ix, q, k), ix.Nearest(q, k), "k=%d", k)
	}
	assert.Nil(t, ix.Nearest(make([]float32, 24), 0))
	assert.Nil(t, ix.Nearest(make([]float32, 23), 5), "a query of another length finds nothing")
}

func TestNearestTiesKeepIndexOrder(t *testing.T) {
	ix, err := newIndex("m", 2, 0, []string{"a", "b", "c", "d"}, nil, []float32{0, 1, 1, 0, 1, 0, 0.6, 0.8})
	require.NoError(t, err)
	got := ix.Nearest([]float32{1, 0}, 3)
	assert.Equal(t, []Hit{{"b", 1}, {"c", 1}, {"d", 0.6}}, got)
	s, ok := ix.Similarity([]float32{1, 0}, "d")
	assert.True(t, ok)
	assert.InDelta(t, 0.6, s, 1e-6)
	_, ok = ix.Similarity([]float32{1, 0}, "zz")
	assert.False(t, ok)
}

func TestStaleAndRefresh(t *testing.T) {
	ctx := context.Background()
	ix := buildT(t, NewHash("hash", 32), buildNodes)
	nodes := []Node{
		buildNodes[0],
		{ID: "concepts/tide", Title: "Tide", Summary: "Water rises and falls twice a day.", Written: true}, // body edit
		{ID: "events/storm", Title: "Storm", Summary: "A storm closed the harbour for a week."},            // new text
		{ID: "events/wedding", Title: "Wedding", Summary: "A wedding on the pier."},                        // new node
		// sales/ledger was pruned
	}
	assert.Equal(t, []string{"concepts/tide", "events/storm", "events/wedding"}, nodeIDs(ix.Stale(nodes)))
	assert.Equal(t, nodeIDs(nodes), nodeIDs((*Index)(nil).Stale(nodes)), "no index: every node is stale")

	c := &counting{Embedder: NewHash("hash", 32)}
	next, embedded, err := ix.Refresh(ctx, c, nodes, nil)
	require.NoError(t, err)
	calls, texts := c.seen()
	assert.Equal(t, 1, calls)
	assert.Equal(t, []string{"Tide. Water rises and falls twice a day.", "Storm. A storm closed the harbour for a week.",
		"Wedding. A wedding on the pier."}, texts, "exactly the stale nodes are embedded")
	assert.Equal(t, nodeIDs(embedded), nodeIDs(ix.Stale(nodes)))
	assert.Equal(t, nodeIDs(nodes), next.IDs(), "pruned ids are dropped, new ones joined")
	assert.Equal(t, ix.Vector(0), next.Vector(0), "untouched vectors are kept as they were")
	cleared := slices.Clone(nodes)
	for i := range cleared {
		cleared[i].Written = false
	}
	assert.Empty(t, next.Stale(cleared), "after a refresh nothing is stale")

	_, _, err = ix.Refresh(ctx, NewHash("other", 32), nodes, nil)
	assert.ErrorContains(t, err, "model")
	empty := buildT(t, NewHash("hash", 32), nil)
	assert.Equal(t, 0, empty.Dim, "an empty build has dimension 0")
	_, _, err = empty.Refresh(ctx, NewHash("hash", 32), nodes, nil)
	assert.Error(t, err, "an empty index is rebuilt, never refreshed")
	_, _, err = ix.Refresh(ctx, scripted{model: "hash", vecs: [][]float32{{1, 0}, {1, 0}, {1, 0}}}, nodes, nil)
	assert.ErrorContains(t, err, "expected 32", "a refresh never mixes dimensions")
}

func TestBuildRefusesBadVectors(t *testing.T) {
	ctx := context.Background()
	two := buildNodes[:2]
	for _, tc := range []struct {
		name string
		e    scripted
		want string
	}{
		{"embedder error", scripted{model: "m", err: errors.New("down")}, "down"},
		{"too few", scripted{model: "m", vecs: [][]float32{{1}}}, "1 vectors for 2 texts"},
		{"mixed lengths", scripted{model: "m", vecs: [][]float32{{1, 0}, {1}}}, "expected 2"},
		{"zero vector", scripted{model: "m", vecs: [][]float32{{1, 0}, {0, 0}}}, "zero or non-finite"},
		{"nan", scripted{model: "m", vecs: [][]float32{{1, 0}, {float32(math.NaN()), 1}}}, "zero or non-finite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(ctx, tc.e, two, nil)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := Build(cancelled, NewHash("m", 4), two, nil)
	assert.ErrorIs(t, err, context.Canceled)

	// The embedder's slices are not scaled in place.
	raw := [][]float32{{3, 4}, {0, 2}}
	ix, err := Build(ctx, scripted{model: "m", vecs: raw}, two, nil)
	require.NoError(t, err)
	assert.Equal(t, []float32{3, 4}, raw[0])
	assert.InDeltaSlice(t, []float32{0.6, 0.8}, ix.Vector(0), 1e-6)
}

func TestReadinessAndStatus(t *testing.T) {
	ix := buildT(t, NewHash("hash", 8), buildNodes)
	empty := buildT(t, NewHash("hash", 8), nil)
	for _, tc := range []struct {
		name string
		e    Embedder
		ix   *Index
		want string
	}{
		{"no embedder", nil, ix, StateNoEmbedder},
		{"no embedder, no index", nil, nil, StateNoEmbedder},
		{"no index", NewHash("hash", 8), nil, StateNoIndex},
		{"empty index", NewHash("hash", 8), empty, StateNoIndex},
		{"other model", NewHash("bge-m3", 8), ix, StateModelMismatch},
		{"same name, other dimension", NewHash("hash", 16), ix, StateModelMismatch},
		{"dimension not yet known", scripted{model: "hash"}, ix, StateActive},
		{"active", NewHash("hash", 8), ix, StateActive},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, Readiness(tc.e, tc.ix)) })
	}

	b, err := json.Marshal(NewStatus(NewHash("hash", 8), ix, 3))
	require.NoError(t, err)
	assert.JSONEq(t, `{"state":"active","active":true,"index_model":"hash","query_model":"hash","vectors":4,"stale":3}`, string(b))
	assert.True(t, strings.HasPrefix(string(b), `{"state":`), "keys in the specification's order")
	b, err = json.Marshal(NewStatus(nil, nil, 4))
	require.NoError(t, err)
	assert.JSONEq(t, `{"state":"no-embedder","active":false,"index_model":null,"query_model":null,"vectors":0,"stale":4}`, string(b))
}
