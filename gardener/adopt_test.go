// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

var smallTree = map[string]string{
	"back-end/291-provider-budget.md": "# Provider budget\n\nThe provider budget for 2026 is 12,400 USD a month. It covers hosting and backups.\n",
	"back-end/notes.txt":              "Plain notes about the queue. Nothing else here.\n",
	"handbook/onboarding/welcome.md":  "# Welcome\n\nWelcome to the team. Read the runbooks first.\n",
	"top.md":                          "# ADR-0002 Storage\n\nWe store blobs in object storage.\n",
	"skip/.hidden.md":                 "hidden",
	"skip/~$lock.docx":                "lock",
	"skip/a.tmp":                      "tmp",
	"node_modules/x.md":               "# no",
}

func TestAdoptMirrorsTheTree(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, smallTree)
	var stages []string
	g := New(v, &Options{OnStage: func(file string, s Stage) { stages = append(stages, file+":"+string(s)) }})

	rep, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"back-end/291-provider-budget", "back-end/notes", "handbook/onboarding/welcome", "top"}, rep.Planted)
	assert.Equal(t, []string{"back-end/_index", "handbook/_index", "handbook/onboarding/_index"}, rep.Branches)
	assert.Empty(t, rep.Errors)
	assert.Empty(t, rep.Unsupported, "ignored names are never walked")
	assert.Contains(t, stages, "top.md:convert")
	assert.Contains(t, stages, "top.md:curate")
	assert.Contains(t, stages, "top.md:plant")
	validate(t, v)

	// One commit per document and per branch, on top of init.
	assert.Len(t, subjects(t, v), 1+len(rep.Planted)+len(rep.Branches))
	assert.Contains(t, subjects(t, v), "plant(top): ADR-0002 Storage [source=ingest]")

	n := node(t, v, "back-end/291-provider-budget")
	assert.Equal(t, "note", n.Type())
	assert.Equal(t, "ingest", n.Source())
	assert.Equal(t, 0.7, n.Confidence())
	assert.Equal(t, "back-end/291-provider-budget.md", n.Front.String("source_path"))
	assert.Len(t, n.Front.String("source_hash"), 64)
	assert.Equal(t, []string{"BE-291", "back-end/291", "291"}, n.Aliases())
	assert.True(t, strings.HasPrefix(n.Origin(), "file:///"), n.Origin())
	assert.Equal(t, "The provider budget for 2026 is 12,400 USD a month. It covers hosting and backups.", n.Summary())
	assert.Contains(t, n.Body, "12,400 USD")

	b := node(t, v, "back-end/_index")
	assert.Equal(t, "back end", b.Title())
	assert.Equal(t, "Documents adopted from source folder 'back-end'.", b.Summary())
	assert.Equal(t, "ingest", b.Source())
	assert.Equal(t, []string{"ADR-0002"}, node(t, v, "top").Aliases())

	cfg, err := LoadConfig(v.Dir())
	require.NoError(t, err)
	real, _ := filepath.EvalSymlinks(src)
	assert.Equal(t, real, cfg.SourceRoot, "adopt records its source")
}

func TestSyncReconciles(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, smallTree)
	g := New(v, nil)
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	before := head(t, v)

	rep, err := g.Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Len(t, rep.Unchanged, 4)
	assert.Empty(t, rep.Updated)
	assert.Equal(t, before, head(t, v), "an unchanged tree makes no commit")

	// Change one file (new size), delete another.
	writeFile(t, src, "top.md", []byte("# ADR-0002 Storage\n\nWe store blobs in object storage, replicated twice.\n"))
	require.NoError(t, os.Remove(filepath.Join(src, "back-end/notes.txt")))
	rep, err = g.Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"top"}, rep.Updated)
	assert.Equal(t, []string{"back-end/notes"}, rep.Stale)
	assert.Len(t, rep.Unchanged, 2)
	assert.Contains(t, node(t, v, "top").Body, "replicated twice")
	assert.Equal(t, "We store blobs in object storage.", node(t, v, "top").Summary(), "a refresh keeps the approved summary")
	assert.FileExists(t, filepath.Join(v.Dir(), "back-end/notes.md"), "the Gardener never deletes")
	assert.Equal(t, "gardener(sync): top", subjects(t, v)[0])
	validate(t, v)
}

func TestStepsReportActions(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"a.md": "# A\n\nText.", "b.xyz": "?", "c.md": "# C\n\nMore."})
	var progress []vine.Progress
	s, err := New(v, &Options{Progress: func(p vine.Progress) { progress = append(progress, p) }}).AdoptSteps(ctx, src, "")
	require.NoError(t, err)
	assert.Equal(t, 3, s.Total())
	var steps []Step
	for step, err := range s.All(ctx) {
		require.NoError(t, err)
		steps = append(steps, step)
	}
	assert.Equal(t, []Step{
		{File: "a.md", Index: 1, Total: 3, Action: ActionPlanted},
		{File: "b.xyz", Index: 2, Total: 3, Action: ActionUnsupported},
		{File: "c.md", Index: 3, Total: 3, Action: ActionPlanted},
	}, steps)
	assert.Equal(t, []string{"b.xyz"}, s.Result().Unsupported)
	assert.Equal(t, vine.Progress{Op: "adopt", Done: 3, Total: 3}, progress[2])
}

func TestCancellationLeavesWholeDocuments(t *testing.T) {
	v := newForest(t)
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n+".md"] = "# " + n + "\n\nBody of " + n + "."
	}
	src := writeTree(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(v, nil).AdoptSteps(ctx, src, "")
	require.NoError(t, err)
	for range 2 {
		_, ok, err := s.Next(ctx)
		require.NoError(t, err)
		require.True(t, ok)
	}
	cancel()
	_, ok, err := s.Next(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, ok)
	assert.Equal(t, []string{"a", "b"}, s.Partial().Planted)
	assert.Len(t, subjects(t, v), 3, "init + exactly two documents")
	assert.NoFileExists(t, filepath.Join(v.Dir(), "c.md"))

	// A bare sync finishes the job: the source was recorded before step 1.
	rep, err := New(v, nil).Sync(context.Background(), SyncOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"c", "d", "e"}, rep.Planted)
	assert.Equal(t, []string{"a", "b"}, rep.Unchanged)
}

func TestDestSpellings(t *testing.T) {
	ctx := context.Background()
	for _, dest := range []string{"inbox", "inbox/", "inbox/_index"} {
		t.Run(dest, func(t *testing.T) {
			v := newForest(t)
			src := writeTree(t, map[string]string{"a.md": "# A\n\nText."})
			g := New(v, nil)
			rep, err := g.Adopt(ctx, src, dest)
			require.NoError(t, err)
			assert.Equal(t, []string{"inbox/a"}, rep.Planted)
			assert.Equal(t, []string{"inbox/_index"}, rep.Branches)
			assert.Equal(t, "Documents adopted into branch 'inbox'.", node(t, v, "inbox/_index").Summary())

			// Files met for the first time by a sync go under the recorded
			// dest; known ones keep their place.
			writeFile(t, src, "b.md", []byte("# B\n\nNew."))
			rep, err = g.Sync(ctx, SyncOptions{})
			require.NoError(t, err)
			assert.Equal(t, []string{"inbox/b"}, rep.Planted)
			assert.Equal(t, []string{"inbox/a"}, rep.Unchanged)
		})
	}
	v := newForest(t)
	src := writeTree(t, map[string]string{"a.md": "# A\n\nText."})
	rep, err := New(v, nil).Adopt(ctx, src, "_index")
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, rep.Planted, "_index is the root")
}

// TestFailedStepLeavesTheReport: a step that fails after it began to
// report (a hook's error line, a planted branch) is taken back from the
// report whole, and the steps before it stay.
func TestFailedStepLeavesTheReport(t *testing.T) {
	v := newForest(t)
	src := writeTree(t, map[string]string{"a.md": "# A\n\nText.", "sub/b.md": "# B\n\nText."})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var hookCalls int
	hook := NamedHook{Name: "cancel-second", Hook: func(ctx context.Context, d *Draft) error {
		hookCalls++
		if hookCalls == 2 {
			cancel() // the document in hand is then not written
			return errors.New("cancelled here")
		}
		return nil
	}}
	s, err := New(v, &Options{Hooks: []NamedHook{hook}}).AdoptSteps(ctx, src, "")
	require.NoError(t, err)
	_, ok, err := s.Next(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	before := s.Partial()
	_, ok, err = s.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, ok)
	assert.Equal(t, before, s.Partial())
	assert.Equal(t, []string{"a"}, s.Partial().Planted)
	assert.Empty(t, s.Partial().Errors, "the failed step's hook line is gone with it")
}
