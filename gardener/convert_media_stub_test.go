// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestSyncDescribesStubs: a forest adopted without a vision model holds
// stubs; a sync with a describer bound replaces them (the source is
// unchanged), keeps the scent, and a later sync leaves them alone. A
// sync whose describer fails leaves the forest byte-identical.
func TestSyncDescribesStubs(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"notes/a.md": "# A\n\nAnchors."})
	writeFile(t, src, "rota.png", slideBytes)
	_, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	stub := node(t, v, "rota")
	require.Contains(t, stub.Body, MediaStubSentinel)

	before := testforest.TreeDigest(t, v.Dir())
	failing := &visionModel{err: errors.New("model not loaded")}
	rep, err := New(v, &Options{Converters: []Converter{NewMediaDescriber(failing, nil)}}).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), failing.calls.Load())
	assert.Contains(t, rep.Unchanged, "rota")
	require.Len(t, rep.Errors, 1)
	assert.Contains(t, rep.Errors[0], "rota.png: describer failed, falling back: the vision model failed: model not loaded")
	assert.Equal(t, before, testforest.TreeDigest(t, v.Dir()), "a stub the describer could not replace stays byte-identical")

	m := describing(slideDescription)
	rep, err = New(v, &Options{Converters: []Converter{NewMediaDescriber(m, nil)}}).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, []string{"rota"}, rep.Updated)
	assert.Equal(t, []string{"notes/a"}, rep.Unchanged)
	described := node(t, v, "rota")
	assert.Equal(t, "# rota\n\n"+slideDescription+"\n", described.Body)
	assert.Equal(t, stub.Summary(), described.Summary(), "the scent stays the passport's")
	assert.Equal(t, []string{"rota"}, sniffIDs(t, v, "kelpwarden"))
	assert.Equal(t, "gardener(sync): rota", subjects(t, v)[0])

	rep, err = New(v, &Options{Converters: []Converter{NewMediaDescriber(m, nil)}}).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"notes/a", "rota"}, rep.Unchanged)
	assert.Equal(t, int32(1), m.calls.Load(), "a described image is not described again")
	validate(t, v)
}

// TestSyncWithoutDescriberLeavesStubs: with nothing ahead of the stub, an
// unchanged stub stays unchanged.
func TestSyncWithoutDescriberLeavesStubs(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := t.TempDir()
	writeFile(t, src, "rota.png", slideBytes)
	_, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	before := testforest.TreeDigest(t, v.Dir())
	rep, err := New(v, nil).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"rota"}, rep.Unchanged)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, before, testforest.TreeDigest(t, v.Dir()))
}

// TestSyncDescribesCachedStubs: a content: cached passport keeps its
// flesh out of git; the stub there is found and replaced the same way.
func TestSyncDescribesCachedStubs(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	writeFile(t, v.Dir(), ConfigFile, []byte("content: cached\n"))
	src := t.TempDir()
	writeFile(t, src, "rota.png", slideBytes)
	_, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	require.Equal(t, "cached", node(t, v, "rota").Content())

	m := describing(slideDescription)
	rep, err := New(v, &Options{Converters: []Converter{NewMediaDescriber(m, nil)}}).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, []string{"rota"}, rep.Updated)
	c, err := v.Pick(ctx, "rota", vine.PickOptions{})
	require.NoError(t, err)
	assert.Contains(t, c.Body, "Kelpwarden rota")
	assert.NotContains(t, c.Body, MediaStubSentinel)
}
