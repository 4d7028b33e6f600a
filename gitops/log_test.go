// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// history is a small forest history exercising Log: a node planted,
// grafted under two principals, an unrelated plant, then a transplant.
type history struct {
	dir string
	r   *Repo
	sha map[string]string // step name -> commit
}

func node(id, extra string) string {
	return "---\nid: " + id + "\ntype: note\ntitle: T\n" + extra + "---\n\n# T\n\n" +
		strings.Repeat("A paragraph about the node that stays the same across the move.\n", 8)
}

func buildHistory(t *testing.T) *history {
	t.Helper()
	dir, r := newForest(t)
	h := &history{dir: dir, r: r, sha: map[string]string{}}
	commit := func(step string, ctx context.Context, subject string, add, remove []string, minute int) {
		t.Helper()
		sha, err := r.Commit(ctx, Message{Subject: subject}, add, remove, at(minute))
		require.NoError(t, err)
		h.sha[step] = sha
	}
	as := func(who string) context.Context {
		return WithTrailers(context.Background(), Trailer{PrincipalKey, who})
	}
	bg := context.Background()

	writeFile(t, dir, "notes/x.md", node("notes/x", ""))
	commit("plant", as("alice"), PlantSubject("notes/x", "T", "agent"), []string{"notes/x.md"}, nil, 1)
	writeFile(t, dir, "notes/x.md", node("notes/x", "tags:\n- a\n"))
	commit("graft", as("bob"), GraftSubject("notes/x", PatchSummary{Set: []string{"tags"}}), []string{"notes/x.md"}, nil, 2)
	writeFile(t, dir, "notes/other.md", node("notes/other", ""))
	commit("other", bg, PlantSubject("notes/other", "O", "agent"), []string{"notes/other.md"}, nil, 3)

	require.NoError(t, os.Remove(filepath.Join(dir, "notes", "x.md")))
	writeFile(t, dir, "ideas/y.md", node("ideas/y", "tags:\n- a\nmoved_from:\n- notes/x\n"))
	commit("transplant", bg, TransplantSubject("notes/x", "ideas/y"), []string{"ideas/y.md"}, []string{"notes/x.md"}, 4)
	writeFile(t, dir, "ideas/y.md", node("ideas/y", "tags:\n- a\n- b\nmoved_from:\n- notes/x\n"))
	commit("graft-after", as("carol"), GraftSubject("ideas/y", PatchSummary{Set: []string{"tags"}}), []string{"ideas/y.md"}, nil, 5)
	return h
}

func shas(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.SHA
	}
	return out
}

func TestLogNewestFirstWithActionAndBy(t *testing.T) {
	h := buildHistory(t)
	ctx := context.Background()

	es, err := h.r.Log(ctx, "notes/x.md", 0, false)
	require.NoError(t, err)
	assert.Equal(t, []string{h.sha["transplant"], h.sha["graft"], h.sha["plant"]}, shas(es),
		"the deletion, the graft and the plant; not the unrelated plant")
	assert.Equal(t, []string{"transplant", "graft", "plant"}, []string{es[0].Action, es[1].Action, es[2].Action})
	assert.Equal(t, []string{"", "bob", "alice"}, []string{es[0].By, es[1].By, es[2].By})
	assert.Equal(t, "graft(notes/x): set tags", es[1].Subject)
	assert.True(t, es[1].When.Equal(t0.Add(2*60e9)))
	assert.Equal(t, "notes/x.md", es[2].Path)

	es, err = h.r.Log(ctx, "notes/x.md", 2, false)
	require.NoError(t, err)
	assert.Equal(t, []string{h.sha["transplant"], h.sha["graft"]}, shas(es))

	es, err = h.r.Log(ctx, "nowhere.md", 10, true)
	require.NoError(t, err)
	assert.Empty(t, es)

	_, err = h.r.Log(ctx, "../x.md", 10, true)
	require.Error(t, err)
}

func TestLogFollowsTransplant(t *testing.T) {
	h := buildHistory(t)
	ctx := context.Background()

	es, err := h.r.Log(ctx, "ideas/y.md", 0, false)
	require.NoError(t, err)
	assert.Equal(t, []string{h.sha["graft-after"], h.sha["transplant"]}, shas(es), "without follow the past stops at the move")

	es, err = h.r.Log(ctx, "ideas/y.md", 0, true)
	require.NoError(t, err)
	assert.Equal(t, []string{h.sha["graft-after"], h.sha["transplant"], h.sha["graft"], h.sha["plant"]}, shas(es))
	var paths, by []string
	for _, e := range es {
		paths = append(paths, e.Path)
		by = append(by, e.By)
	}
	assert.Equal(t, []string{"ideas/y.md", "ideas/y.md", "notes/x.md", "notes/x.md"}, paths)
	assert.Equal(t, []string{"carol", "", "bob", "alice"}, by)
}

func TestLogFollowsTransplantWholeRewrite(t *testing.T) {
	// A transplant whose new file shares nothing with the old is still a
	// move: the subject says so.
	dir, r := newForest(t)
	ctx := context.Background()
	writeFile(t, dir, "a/old.md", "one\n")
	first, err := r.Commit(ctx, Message{Subject: PlantSubject("a/old", "O", "agent")}, []string{"a/old.md"}, nil, at(1))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, "a", "old.md")))
	writeFile(t, dir, "b/new.md", "entirely different\ncontent\n")
	moved, err := r.Commit(ctx, Message{Subject: TransplantSubject("a/old", "b/new")}, []string{"b/new.md"}, []string{"a/old.md"}, at(2))
	require.NoError(t, err)

	es, err := r.Log(ctx, "b/new.md", 0, true)
	require.NoError(t, err)
	assert.Equal(t, []string{moved, first}, shas(es))

	// The same change under another subject is no rename: content differs.
	dir2, r2 := newForest(t)
	writeFile(t, dir2, "a/old.md", "one\n")
	_, err = r2.Commit(ctx, Message{Subject: "plant(a/old): O [source=agent]"}, []string{"a/old.md"}, nil, at(1))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir2, "a", "old.md")))
	writeFile(t, dir2, "b/new.md", "entirely different\ncontent\n")
	moved2, err := r2.Commit(ctx, Message{Subject: "by hand"}, []string{"b/new.md"}, []string{"a/old.md"}, at(2))
	require.NoError(t, err)
	es, err = r2.Log(ctx, "b/new.md", 0, true)
	require.NoError(t, err)
	assert.Equal(t, []string{moved2}, shas(es))
}

func TestLogFollowsPlainRename(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	body := node("a/old", "")
	writeFile(t, dir, "a/old.md", body)
	first, err := r.Commit(ctx, Message{Subject: "add"}, []string{"a/old.md"}, nil, at(1))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, "a", "old.md")))
	writeFile(t, dir, "b/new.md", body)
	moved, err := r.Commit(ctx, Message{Subject: "git mv by hand"}, []string{"b/new.md"}, []string{"a/old.md"}, at(2))
	require.NoError(t, err)

	es, err := r.Log(ctx, "b/new.md", 0, true)
	require.NoError(t, err)
	assert.Equal(t, []string{moved, first}, shas(es))
	assert.Equal(t, "git mv by hand", es[0].Action, "a subject without ( or : is its own action")
}

func TestLogCancelled(t *testing.T) {
	h := buildHistory(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := h.r.Log(ctx, "ideas/y.md", 0, true)
	require.ErrorIs(t, err, context.Canceled)
}

func TestLogUnbornBranch(t *testing.T) {
	r, err := Init(t.TempDir())
	require.NoError(t, err)
	es, err := r.Log(context.Background(), "_index.md", 5, true)
	require.NoError(t, err)
	assert.Empty(t, es)
}
