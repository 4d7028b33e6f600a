// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// branchCurator is a Curator that also writes branch summaries.
type branchCurator struct {
	fakeCurator
	inputs []BranchInput
	answer func(BranchInput) (string, error)
}

func (b *branchCurator) CurateBranch(_ context.Context, in BranchInput) (string, CurateStats, error) {
	b.inputs = append(b.inputs, in)
	s, err := b.answer(in)
	return s, CurateStats{}, err
}

func TestRollupWithoutModel(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{
		"harbour/tides.md":      "# Tide tables\n\nSpring and neap.",
		"harbour/boats/rope.md": "# Rope care\n\nDry the ropes.",
		"harbour/boats/net.md":  "# Net repair\n\nMend the nets.",
	})
	g := New(v, nil)
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)

	rep, err := g.Rollup(ctx, RollupOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Rolled)
	assert.Equal(t, 2, rep.Fallbacks)
	boats := node(t, v, "harbour/boats/_index")
	assert.Equal(t, "Region 'boats': Net repair, Rope care.", boats.Summary())
	harbour := node(t, v, "harbour/_index")
	assert.Equal(t, "Region 'harbour': boats, Tide tables.", harbour.Summary())
	assert.Contains(t, harbour.Body, "- [[harbour/boats/_index]] — Region 'boats': Net repair, Rope care.",
		"the new summary is carried into the parent's entry")
	assert.NotEqual(t, "Region", strings.Fields(node(t, v, "_index").Summary())[0], "a hand-made branch is not rolled up")
	validate(t, v)

	before := head(t, v)
	rep, err = g.Rollup(ctx, RollupOptions{})
	require.NoError(t, err)
	assert.Zero(t, rep.Rolled, "the same summary writes nothing")
	assert.Equal(t, before, head(t, v))
}

func TestRollupWithBranchCurator(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"a/x.md": "# X\n\nText.", "b/y.md": "# Y\n\nText."})
	bc := &branchCurator{answer: func(in BranchInput) (string, error) {
		if in.Title == "b" {
			return "", errors.New("timeout")
		}
		return "Folder a: the X document, nothing else.", nil
	}}
	g := New(v, &Options{Curator: bc})
	bc.fakeCurator.answer = func(CurateInput) (*CurateOutput, error) { return &CurateOutput{}, nil }
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	rep, err := g.Rollup(ctx, RollupOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Curation.BranchRollups)
	assert.Equal(t, 1, rep.Curation.BranchFallbacks)
	assert.Equal(t, "Folder a: the X document, nothing else.", node(t, v, "a/_index").Summary())
	assert.Equal(t, "Region 'b': Y.", node(t, v, "b/_index").Summary())
	require.Len(t, bc.inputs, 2)
	assert.Equal(t, "- [[a/x]] — Text.", bc.inputs[0].Entries, "entry lines, never bodies")
}

func TestRecurateAndUnrecorded(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"back-end/7-cache.md": "# Cache\n\nWarm it."})
	g := New(v, nil)
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	writeFile(t, v.Dir(), ConfigFile, append(mustRead(t, v.Dir()+"/"+ConfigFile), []byte("aliases: {back-end: SRV}\n")...))

	rep, err := g.RecurateAliases(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"back-end/7-cache"}, rep.Updated)
	assert.Equal(t, []string{"BE-7", "back-end/7", "7", "SRV-7"}, node(t, v, "back-end/7-cache").Aliases())
	assert.Equal(t, "recurate(aliases): back-end/7-cache", subjects(t, v)[0])
	rep, err = g.RecurateAliases(ctx)
	require.NoError(t, err)
	assert.Empty(t, rep.Updated, "idempotent")

	none, err := g.UnrecordedSources(ctx)
	require.NoError(t, err)
	assert.Empty(t, none)
	_, err = g.Upload(ctx, []UploadFile{{Name: "ok.md", Data: []byte("# Ok\n\nFine.")}, {Name: "dir/bad.csv", Data: []byte("x\n")}}, "")
	require.NoError(t, err)
	left, err := g.UnrecordedSources(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"dir/bad.csv"}, left)
}
