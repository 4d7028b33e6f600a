// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
)

func TestRegistryModeServesChildForests(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for _, id := range []string{"alpha", "beta", "clients/acme"} {
		_, err := Init(ctx, filepath.Join(root, filepath.FromSlash(id)), "Forest "+id, nil)
		require.NoError(t, err)
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, "not-a-forest"), 0o755))
	outside := t.TempDir()
	_, err := Init(ctx, filepath.Join(outside, "secret"), "Secret", nil)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "escape")))

	reg, err := NewRegistry(root, &Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	assert.Equal(t, ModeRegistry, reg.Mode())

	list := reg.List()
	assert.Equal(t, Listing{Mode: ModeRegistry, Forests: []ForestEntry{{ID: "alpha"}, {ID: "beta"}}}, list,
		"direct children only, sorted; nested ids are servable but not listed; links out are not forests")

	v, err := reg.Forest(ctx, "alpha")
	require.NoError(t, err)
	again, err := reg.Forest(ctx, "alpha")
	require.NoError(t, err)
	assert.Same(t, v, again, "a forest opens once and stays open")
	assert.True(t, reg.List().Forests[0].Active)

	nested, err := reg.Forest(ctx, "clients/acme")
	require.NoError(t, err)
	assert.NotSame(t, v, nested)

	_, err = reg.Forest(ctx, "")
	assert.Equal(t, ESchema, CodeOf(err), "forest is required in registry mode")
	assert.ErrorContains(t, err, "forest")

	for _, bad := range []string{"missing", "not-a-forest", "../" + filepath.Base(outside), "/etc", "escape", ".", "alpha/../beta", `alpha\x`} {
		_, err := reg.Forest(ctx, bad)
		require.Error(t, err, bad)
		assert.Equal(t, ENotFound, CodeOf(err), bad)
	}
}

func TestSingleModeServesItsForest(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "kb")
	_, err := Init(ctx, dir, "KB", nil)
	require.NoError(t, err)
	reg, err := NewRegistry(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	assert.Equal(t, ModeSingle, reg.Mode())

	v, err := reg.Forest(ctx, "")
	require.NoError(t, err)
	named, err := reg.Forest(ctx, "kb")
	require.NoError(t, err)
	assert.Same(t, v, named)
	_, err = reg.Forest(ctx, "other")
	assert.Equal(t, ENotFound, CodeOf(err))
	assert.Equal(t, Listing{Mode: ModeSingle, Forests: []ForestEntry{{ID: "kb", Active: true}}}, reg.List())
}

// TestOpenedSeesEachForestOnce: a host's Opened hook meets every forest
// a Registry opens, once, before the forest serves a call.
func TestOpenedSeesEachForestOnce(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "kb")
	_, err := Init(ctx, dir, "KB", nil)
	require.NoError(t, err)
	var seen []string
	reg, err := NewRegistry(dir, &Options{Opened: func(v *Vine) {
		seen = append(seen, filepath.Base(v.Dir()))
		v.SetEmbedder(nil)
	}})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	assert.Empty(t, seen, "nothing opens before the first call")
	for range 2 {
		_, err = reg.Forest(ctx, "")
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"kb"}, seen)
}

func TestRegistryListsForeignWriterAsLocked(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	_, err := Init(ctx, filepath.Join(root, "held"), "Held", nil)
	require.NoError(t, err)
	holder, err := forest.AcquireLock(filepath.Join(root, "held"))
	require.NoError(t, err)
	defer holder.Release()

	reg, err := NewRegistry(root, &Options{LockWait: 50 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	assert.Equal(t, []ForestEntry{{ID: "held", Locked: true}}, reg.List().Forests)
	_, err = reg.Forest(ctx, "held")
	assert.Equal(t, ELocked, CodeOf(err), "open failures come back as themselves")
}

// The trusted-ingest exemption (G.2.5) is unreachable from the wire: no
// signature declares it and the decoder refuses it as unknown.
func TestAdoptedIsNotAWireParameter(t *testing.T) {
	for _, sig := range Signatures() {
		for _, p := range sig.Params {
			assert.NotEqual(t, "adopted", p.Name, sig.Name)
		}
	}
	v, _ := writableFixture(t)
	_, err := v.Call(context.Background(), "plant", []byte(`{"adopted": true, "node": {"id": "x"}}`))
	assert.Equal(t, ESchema, CodeOf(err))
	assert.ErrorContains(t, err, "unknown parameter 'adopted'")
}

func TestRegistryCreate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	reg, err := NewRegistry(root, nil)
	require.NoError(t, err)
	defer reg.Close()
	res, err := reg.Create(ctx, "ops", "Operations", &InitOptions{Summary: "Runbooks."})
	require.NoError(t, err)
	assert.Len(t, res.Commit, 40)
	v, err := reg.Forest(ctx, "ops")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "ops"), v.Dir())

	for _, c := range []struct {
		id, title string
		code      Code
	}{
		{"ops", "Again", ESchema},
		{"../up", "Up", ESchema},
		{"a/b", "Nested", ESchema},
		{"", "Empty", ESchema},
		{"fine", " ", ESchema},
	} {
		_, err := reg.Create(ctx, c.id, c.title, nil)
		assert.Equal(t, c.code, CodeOf(err), "%q", c.id)
	}
	ro, err := NewRegistry(root, &Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	_, err = ro.Create(ctx, "more", "More", nil)
	assert.Equal(t, EReadOnly, CodeOf(err))
	single, err := NewRegistry(filepath.Join(root, "ops"), nil)
	require.NoError(t, err)
	defer single.Close()
	_, err = single.Create(ctx, "more", "More", nil)
	assert.Equal(t, ESchema, CodeOf(err))
	entries, _ := os.ReadDir(root)
	assert.Len(t, entries, 1, "refusals create nothing")
}
