// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/monkeyllm/vine/internal/interop"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests hold this package to what the git binary reads. They skip
// when git is not installed: the package itself never needs it.

func TestGitBinaryAgrees(t *testing.T) {
	h := buildHistory(t)
	dir := h.dir
	// An untracked payload and archive stay out, as the .gitignore says.
	writeFile(t, dir, "sales/report.db", "SQLite format 3\x00")
	writeFile(t, dir, "sales/_assets/orig.pdf", "%PDF-1.7")

	out := gitCmd(t, dir, "log", "--format=%an%n%ae%n%s")
	var want []string
	for _, step := range []string{"graft-after", "transplant", "other", "graft", "plant"} {
		want = append(want, Author.Name, Author.Email, subjectAt(t, h, step))
	}
	want = append(want, Author.Name, Author.Email, InitSubject("Test"))
	assert.Equal(t, want, lines(out))

	tracked, err := h.r.TrackedFiles()
	require.NoError(t, err)
	assert.Equal(t, tracked, lines(gitCmd(t, dir, "ls-files")))
	for _, p := range tracked {
		assert.True(t, Versioned(p) || p == ".gitignore", p)
	}

	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"), "index stat data matches the worktree")

	for _, follow := range []bool{false, true} {
		args := []string{"log", "--format=%H%x1f%(trailers:key=station-principal,valueonly,separator=%x2c)"}
		if follow {
			args = append(args, "--follow")
		}
		es, err := h.r.Log(context.Background(), "ideas/y.md", 0, follow)
		require.NoError(t, err)
		var ours []string
		for _, e := range es {
			ours = append(ours, e.SHA+"\x1f"+e.By)
		}
		assert.Equal(t, lines(gitCmd(t, dir, append(args, "--", "ideas/y.md")...)), ours, "follow=%v", follow)
	}
	es, err := h.r.Log(context.Background(), "notes/x.md", 0, false)
	require.NoError(t, err)
	assert.Equal(t, lines(gitCmd(t, dir, "log", "--format=%H", "--", "notes/x.md")), shas(es))
}

func subjectAt(t *testing.T, h *history, step string) string {
	t.Helper()
	for _, p := range []string{"ideas/y.md", "notes/x.md", "notes/other.md"} {
		es, err := h.r.Log(context.Background(), p, 0, true)
		require.NoError(t, err)
		for _, e := range es {
			if e.SHA == h.sha[step] {
				return e.Subject
			}
		}
	}
	t.Fatalf("no commit for step %s", step)
	return ""
}

func TestReferenceForestOpensAndGrows(t *testing.T) {
	dir := interop.Forest(t)

	r, err := Open(dir)
	require.NoError(t, err)
	head, err := r.Head()
	require.NoError(t, err)
	require.Len(t, head, 40)

	tracked, err := r.TrackedFiles()
	require.NoError(t, err)
	assert.Contains(t, tracked, ".gitignore")
	assert.Contains(t, tracked, "_index.md")
	for _, p := range tracked {
		assert.True(t, Versioned(p) || p == ".gitignore", p)
	}
	es, err := r.Log(context.Background(), "_index.md", 0, true)
	require.NoError(t, err)
	require.NotEmpty(t, es)
	assert.Equal(t, head, es[0].SHA)

	writeFile(t, dir, "notes/interop-probe.md", "---\nid: notes/interop-probe\n---\n\n# Probe\n")
	sha, err := r.Commit(context.Background(), Message{Subject: PlantSubject("notes/interop-probe", "Probe", "agent")},
		[]string{"notes/interop-probe.md", "sales/report-q1-2026.db"}, nil, at(1))
	require.NoError(t, err)
	after, err := r.TrackedFiles()
	require.NoError(t, err)
	assert.Equal(t, len(tracked)+1, len(after))
	assert.True(t, slices.Contains(after, "notes/interop-probe.md"))

	// The git binary reads the grown history (skips without git).
	assert.Equal(t, []string{sha, head}, lines(gitCmd(t, dir, "log", "--format=%H")))
	assert.Equal(t, after, lines(gitCmd(t, dir, "ls-files")))
	assert.Equal(t, Author.Name+"\n"+Author.Email+"\n"+PlantSubject("notes/interop-probe", "Probe", "agent"),
		strings.TrimSpace(gitCmd(t, dir, "log", "-1", "--format=%an%n%ae%n%s")))
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"))
}

func TestCommitAfterGitGC(t *testing.T) {
	// The Ranger ends its runs with `git gc --auto`: packed and pruned
	// loose objects must not break the next commit of an open Repo.
	h := buildHistory(t)
	ctx := context.Background()
	gitCmd(t, h.dir, "gc", "--prune=now", "--quiet")
	// A failed commit drops the in-memory index, so the next one must read
	// HEAD's commit, now packed, from the store.
	_, err := h.r.Commit(ctx, Message{Subject: "s"}, []string{"missing.md"}, nil, at(8))
	require.ErrorIs(t, err, os.ErrNotExist)
	writeFile(t, h.dir, "ideas/y.md", node("ideas/y", "tags:\n- c\n"))
	sha, err := h.r.Commit(ctx, Message{Subject: GraftSubject("ideas/y", PatchSummary{Set: []string{"tags"}})},
		[]string{"ideas/y.md"}, nil, at(9))
	require.NoError(t, err)
	es, err := h.r.Log(ctx, "ideas/y.md", 0, true)
	require.NoError(t, err)
	assert.Equal(t, sha, es[0].SHA)
	assert.Len(t, es, 5)
	assert.Empty(t, gitCmd(t, h.dir, "fsck", "--strict", "--no-progress"))
	assert.Empty(t, gitCmd(t, h.dir, "status", "--porcelain"))
}

func TestGCAuto(t *testing.T) {
	dir, r := newForest(t)
	gitCmd(t, dir, "--version") // skips without git
	assert.Equal(t, GCRan, r.GCAuto(context.Background()))
	writeFile(t, dir, "a.md", "a")
	_, err := r.Commit(context.Background(), Message{Subject: "s"}, []string{"a.md"}, nil, at(1))
	require.NoError(t, err)
}

func TestLogThroughMergeAgreesWithGit(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	g := func(args ...string) string {
		return gitCmd(t, dir, append([]string{"-c", "user.name=p", "-c", "user.email=p@x"}, args...)...)
	}
	commit := func(p, content string, minute int) {
		writeFile(t, dir, p, content)
		_, err := r.Commit(ctx, Message{Subject: PlantSubject(p, "T", "agent")}, []string{p}, nil, at(minute))
		require.NoError(t, err)
	}
	commit("a.md", "a1\n", 1)
	commit("b.md", "b1\n", 2)
	g("checkout", "-q", "-b", "side")
	writeFile(t, dir, "b.md", "b2 on side\n")
	g("commit", "-q", "-am", "side: edit b")
	g("checkout", "-q", DefaultBranch)
	commit("a.md", "a2\n", 3) // the checkout rewrote the index under the Repo
	g("merge", "-q", "--no-edit", "side")
	commit("b.md", "b3\n", 4)

	for _, p := range []string{"a.md", "b.md", "_index.md"} {
		es, err := r.Log(ctx, p, 0, false)
		require.NoError(t, err)
		assert.Equal(t, lines(g("log", "--format=%H", "--", p)), shas(es), p)
	}
	assert.Empty(t, g("fsck", "--strict", "--no-progress"))
	assert.Empty(t, g("status", "--porcelain"))
}
