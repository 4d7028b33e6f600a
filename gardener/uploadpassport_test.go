// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// askedCurator counts the drafts it is asked about.
type askedCurator struct {
	mu     sync.Mutex
	titles []string
}

func (c *askedCurator) Curate(_ context.Context, in CurateInput) (*CurateOutput, error) {
	c.mu.Lock()
	c.titles = append(c.titles, in.Title)
	c.mu.Unlock()
	return &CurateOutput{Summary: "What the model said about it."}, nil
}

// TestUploadPassportReplacesTheCurator (J.8.4): a passported file never
// reaches the model and is planted with what its sender said, under the
// rules every passport obeys; a file without one keeps the Curator; a
// re-sent file is refreshed and its passport listed as ignored.
func TestUploadPassportReplacesTheCurator(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	cur := &askedCurator{}
	g := New(v, &Options{Curator: cur})
	_, err := g.Upload(ctx, []UploadFile{{Name: "target.md", Data: []byte("# Target\n\nThe node linked to.")}}, "inbox")
	require.NoError(t, err)
	cur.titles = nil

	pp := &UploadPassport{Title: "Harbour survey 2026", Summary: "  The survey of the  harbour floor. ",
		Tags: []string{"survey", "bad tag!"}, Aliases: []string{"floor survey"},
		Links: []PassportLink{{Target: "inbox/target", Note: "the baseline"}, {Target: "inbox/missing"}, {Target: "inbox/_index"}},
		Notes: "Scanned by the harbour office."}
	rep, err := g.Upload(ctx, []UploadFile{
		{Name: "survey.md", Data: []byte("# Survey\n\nDepths along the pier."), Passport: pp},
		{Name: "plain.md", Data: []byte("# Plain\n\nNo passport here.")},
	}, "inbox")
	require.NoError(t, err)
	assert.Equal(t, []string{"inbox/survey", "inbox/plain"}, rep.Planted)
	assert.Equal(t, []string{"Plain"}, cur.titles, "the passported draft never reached the model")
	assert.Equal(t, 1, rep.TagsDropped, "a tag breaking the tag rule is dropped and counted")
	assert.Empty(t, rep.PassportsIgnored)
	validate(t, v)

	n := node(t, v, "inbox/survey")
	assert.Equal(t, "Harbour survey 2026", n.Title())
	assert.Equal(t, "The survey of the harbour floor.", n.Summary(), "the summary is fitted")
	assert.Contains(t, n.Tags(), "survey")
	assert.NotContains(t, n.Tags(), "bad tag!")
	assert.Contains(t, n.Aliases(), "floor survey")
	links := n.Links()
	require.Len(t, links, 1, "only a link to an existing, non-branch node is kept")
	assert.Equal(t, "inbox/target", links[0].Target)
	assert.Equal(t, "related-to", links[0].Rel)
	assert.InDelta(t, 0.3, links[0].Confidence, 0)
	assert.Contains(t, n.Body, "## Notes\n\nScanned by the harbour office.")
	assert.Equal(t, "What the model said about it.", node(t, v, "inbox/plain").Summary())

	rep, err = g.Upload(ctx, []UploadFile{{Name: "survey.md", Data: []byte("# Survey\n\nDepths along the pier, revised."),
		Passport: &UploadPassport{Title: "Another title"}}}, "inbox")
	require.NoError(t, err)
	assert.Equal(t, []string{"inbox/survey"}, rep.Updated)
	assert.Equal(t, []string{"survey.md"}, rep.PassportsIgnored, "a refresh keeps the passport the forest holds")
	assert.Equal(t, "Harbour survey 2026", node(t, v, "inbox/survey").Title())
}

// TestUploadPassportRefusals: a passport breaking J.8.4's rules refuses
// the whole upload (E_SCHEMA naming the entry) before anything is staged.
func TestUploadPassportRefusals(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	g := New(v, nil)
	staging := filepath.Join(v.Dir(), filepath.FromSlash(StagingDir))
	many := make([]string, 17)
	for i := range many {
		many[i] = "alias " + string(rune('a'+i))
	}
	cases := map[string]*UploadPassport{
		"title":   {Title: strings.Repeat("t", 201)},
		"summary": {Summary: "This document describes the harbour."},
		"aliases": {Aliases: many},
		"alias":   {Aliases: []string{strings.Repeat("a", 81)}},
		"links":   {Links: []PassportLink{{Target: "inbox/x", Rel: "supersedes"}}},
		"notes":   {Notes: strings.Repeat("n", 4001)},
	}
	for field, pp := range cases {
		t.Run(field, func(t *testing.T) {
			testforest.Unchanged(t, v.Dir(), func() {
				_, err := g.Upload(ctx, []UploadFile{{Name: "ok.md", Data: []byte("# Ok")},
					{Name: "bad.md", Data: []byte("# Bad"), Passport: pp}}, "")
				require.Error(t, err)
				assert.Equal(t, vine.ESchema, vine.CodeOf(err))
				assert.Contains(t, err.Error(), "files[1]")
				assert.Contains(t, err.Error(), "passport")
			})
			entries, _ := os.ReadDir(staging)
			assert.Empty(t, entries, "nothing staged")
		})
	}
}

// TestPreviewUploadWritesNothing: a previewed upload collects the drafts
// it would plant and leaves the forest, staging included, as it was.
func TestPreviewUploadWritesNothing(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	staging := filepath.Join(v.Dir(), filepath.FromSlash(StagingDir))
	testforest.Unchanged(t, v.Dir(), func() {
		rep, err := NewPreview(v, nil).Upload(ctx, []UploadFile{{Name: "memo.md", Data: []byte("# Memo\n\nThe pier closes at dusk.")}}, "inbox")
		require.NoError(t, err)
		require.Len(t, rep.Drafts, 1)
		assert.Equal(t, "inbox/memo", rep.Drafts[0].ID)
		assert.Equal(t, "The pier closes at dusk.", rep.Drafts[0].Summary)
		assert.Equal(t, []string{"inbox/memo"}, rep.Planted, "planted means would plant on a preview")
		assert.Empty(t, rep.Consumed)
	})
	entries, _ := os.ReadDir(staging)
	assert.Empty(t, entries, "a preview stages nothing in the forest")
}
