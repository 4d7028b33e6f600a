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

func TestHooks(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	writeFile(t, v.Dir(), ConfigFile, []byte("curation:\n  default_tags: [Adopted, adopted, 'two words']\n"))
	src := writeTree(t, map[string]string{"ops/a.md": "# A\n\nAbout anchors.", "ops/b.md": "# B\n\nAbout buoys."})
	hooks := []NamedHook{
		{Name: "tagger", Hook: func(_ context.Context, d *Draft) error {
			d.Tags = append(d.Tags, "Âncora", "not a tag!")
			d.Summary = "Anchor notes: " + d.Title + "."
			return nil
		}},
		{Name: "mover", Hook: func(_ context.Context, d *Draft) error {
			*d = Draft{ID: "elsewhere/x", Parent: "_index", Type: "concept", Title: d.Title, Summary: d.Summary,
				Tags: d.Tags, SourcePath: "x", Body: d.Body + "\n\nAppended by a hook."}
			return nil
		}},
		{Name: "failing", Hook: func(_ context.Context, d *Draft) error {
			d.Title = "never kept"
			return errors.New("service down")
		}},
		{Name: "panicking", Hook: func(_ context.Context, d *Draft) error { panic("boom") }},
	}
	rep, err := New(v, &Options{Hooks: hooks, OnStage: func(string, Stage) { panic("observer") }}).Adopt(ctx, src, "")
	require.NoError(t, err, "a panicking observer never stops a batch")
	assert.Equal(t, []string{"ops/a", "ops/b"}, rep.Planted)
	assert.Equal(t, []string{
		"on_curate hook 'failing': service down", "on_curate hook 'panicking': panic: boom",
		"on_curate hook 'failing': service down", "on_curate hook 'panicking': panic: boom",
	}, rep.Errors)
	assert.Equal(t, 4, rep.TagsDropped, "'two words' and 'not a tag!' on each draft")

	a := node(t, v, "ops/a")
	assert.Equal(t, "note", a.Type(), "a hook cannot retype a node")
	assert.Equal(t, "A", a.Title(), "a failing hook's changes are discarded")
	assert.Equal(t, "Anchor notes: A.", a.Summary())
	assert.Equal(t, []string{"adopted", "âncora"}, a.Tags())
	assert.Contains(t, a.Body, "Appended by a hook.", "a hook may change a document's body")
	assert.Equal(t, "ops/a.md", a.Front.String("source_path"))
	validate(t, v)
}

func TestRegisteredHooksRunFirst(t *testing.T) {
	var order []string
	RegisterHook("test-registered", func(_ context.Context, d *Draft) error {
		if strings.HasPrefix(d.SourcePath, "order-") {
			order = append(order, "registered")
		}
		return nil
	})
	v := newForest(t)
	src := writeTree(t, map[string]string{"order-a.md": "# A\n\nText."})
	local := NamedHook{Name: "local", Hook: func(context.Context, *Draft) error { order = append(order, "local"); return nil }}
	_, err := New(v, &Options{Hooks: []NamedHook{local}}).Adopt(context.Background(), src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"registered", "local"}, order)
}

// fakeCurator answers from a script and records what it was asked.
type fakeCurator struct {
	inputs []CurateInput
	answer func(in CurateInput) (*CurateOutput, error)
}

func (f *fakeCurator) Curate(_ context.Context, in CurateInput) (*CurateOutput, error) {
	f.inputs = append(f.inputs, in)
	return f.answer(in)
}

func TestCuratorAndEdgeProposals(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	// A first batch gives the catalog something to propose.
	seed := writeTree(t, map[string]string{
		"tides/tide-tables.md": "# Tide tables\n\nTide tables for the harbour, spring and neap tides.",
		"tides/tide-clock.md":  "# Tide clock\n\nHow the tide clock at the harbour is read.",
	})
	_, err := New(v, nil).Adopt(ctx, seed, "")
	require.NoError(t, err)

	cur := &fakeCurator{answer: func(in CurateInput) (*CurateOutput, error) {
		related := []Related{{ID: "invented/node", Note: "not offered"}}
		for _, c := range in.Candidates {
			related = append(related, Related{ID: c.ID, Note: strings.Repeat("n", 200)})
		}
		return &CurateOutput{
			Summary: "Harbour tide guide: reading tide tables and the tide clock, spring and neap tides.",
			Tags:    []string{"Marés", "tides", "bad tag"},
			Aliases: []string{"Harbour Guide", "made up alias"},
			Related: related,
			Stats:   CurateStats{LLMSummaries: 1, Retries: 1},
		}, nil
	}}
	writeFile(t, v.Dir(), ConfigFile, append(mustRead(t, v.Dir()+"/"+ConfigFile), []byte("curation:\n  directives: Name the harbour.\n")...))
	src := writeTree(t, map[string]string{"guides/tide-guide.md": "# Tide guide\n\nThe harbour guide to tide tables and the tide clock."})
	rep, err := New(v, &Options{Curator: cur}).Sync(ctx, SyncOptions{Source: src})
	require.NoError(t, err)
	require.Equal(t, []string{"guides/tide-guide"}, rep.Planted, rep.Errors)

	require.Len(t, cur.inputs, 1)
	in := cur.inputs[0]
	assert.Equal(t, "Tide guide", in.Title)
	assert.Contains(t, in.Body, "tide clock", "the Curator sees the full text")
	assert.Equal(t, "Name the harbour.", in.Directives)
	var ids []string
	for _, c := range in.Candidates {
		ids = append(ids, c.ID)
	}
	assert.ElementsMatch(t, []string{"tides/tide-tables", "tides/tide-clock"}, ids, "branches and the draft itself are never candidates")

	n := node(t, v, "guides/tide-guide")
	assert.Equal(t, "Harbour tide guide: reading tide tables and the tide clock, spring and neap tides.", n.Summary())
	assert.Equal(t, []string{"marés", "tides"}, n.Tags())
	assert.Equal(t, []string{"Harbour Guide"}, n.Aliases(), "an alias must occur in the text")
	links := n.Links()
	require.Len(t, links, 2, "only offered candidates")
	for _, l := range links {
		assert.Equal(t, "related-to", l.Rel)
		assert.Equal(t, 0.3, l.Confidence)
		assert.Len(t, l.Entry.String("note"), 120)
	}
	assert.Equal(t, 0.7, n.Confidence(), "node confidence stays 0.7")
	assert.Equal(t, 1, rep.Curation.LLMSummaries)
	assert.Equal(t, 1, rep.Curation.Retries)
	assert.Equal(t, 2, rep.Curation.LinksProposed)
	assert.Equal(t, 1, rep.TagsDropped)
	validate(t, v)
}

func TestCuratorFailureKeepsDerivedScent(t *testing.T) {
	v := newForest(t)
	cur := &fakeCurator{answer: func(CurateInput) (*CurateOutput, error) {
		return nil, errors.New("dial tcp 10.0.0.1:8080: connection refused")
	}}
	src := writeTree(t, map[string]string{"a.md": "# A\n\nPlain derived summary."})
	rep, err := New(v, &Options{Curator: cur}).Adopt(context.Background(), src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, rep.Planted, "a missing model never blocks")
	assert.Equal(t, "Plain derived summary.", node(t, v, "a").Summary())
	assert.Equal(t, 1, rep.Curation.TransportErrors)
	assert.Equal(t, 1, rep.Curation.Fallbacks)
	assert.Zero(t, rep.Curation.Rejected)
	assert.Contains(t, rep.Curation.Error, "connection refused")
}

func TestRefreshNeverCurates(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"a.md": "# A\n\nFirst text."})
	cur := &fakeCurator{answer: func(CurateInput) (*CurateOutput, error) {
		return &CurateOutput{Summary: "Curated once: the first text of A."}, nil
	}}
	var stages []Stage
	g := New(v, &Options{Curator: cur, OnStage: func(_ string, s Stage) { stages = append(stages, s) }})
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	writeFile(t, src, "a.md", []byte("# A\n\nSecond, longer text."))
	stages = nil
	_, err = g.Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Len(t, cur.inputs, 1, "a refresh keeps the approved scent")
	assert.Equal(t, []Stage{StageConvert, StagePlant}, stages)
	assert.Equal(t, "Curated once: the first text of A.", node(t, v, "a").Summary())
}

func TestCandidateFilter(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	seed := writeTree(t, map[string]string{
		"public/tide-tables.md": "# Tide tables\n\nTide tables for the harbour.",
		"secret/tide-codes.md":  "# Tide codes\n\nTide codes for the harbour.",
	})
	_, err := New(v, nil).Adopt(ctx, seed, "")
	require.NoError(t, err)
	cur := &fakeCurator{answer: func(in CurateInput) (*CurateOutput, error) { return &CurateOutput{}, nil }}
	inScope := func(id string) bool { return strings.HasPrefix(id, "public/") }
	src := writeTree(t, map[string]string{"public/tide-guide.md": "# Tide guide\n\nHarbour tide tables and codes."})
	_, err = New(v, &Options{Curator: cur, CandidateFilter: inScope}).Sync(ctx, SyncOptions{Source: src})
	require.NoError(t, err)
	require.Len(t, cur.inputs, 1)
	require.Len(t, cur.inputs[0].Candidates, 1)
	assert.Equal(t, "public/tide-tables", cur.inputs[0].Candidates[0].ID, "out-of-scope ids never reach the model")
}
