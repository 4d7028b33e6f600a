// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

// headFiles lists the files of HEAD's tree.
func headFiles(t *testing.T, r *Repo) []string {
	t.Helper()
	st := r.reader()
	h, err := headHash(st)
	require.NoError(t, err)
	c, err := object.GetCommit(st, h)
	require.NoError(t, err)
	tree, err := c.Tree()
	require.NoError(t, err)
	var names []string
	require.NoError(t, tree.Files().ForEach(func(f *object.File) error {
		names = append(names, f.Name)
		return nil
	}))
	slices.Sort(names)
	return names
}

func TestVersioned(t *testing.T) {
	for p, want := range map[string]bool{
		"a.md": true, "A.MD": true, "notes/x.Md": true, "_meta/schema.md": true,
		"b.db": false, "x/y.sqlite": false, "_assets/f.pdf": false, ".gitignore": false,
		"_assets/orig.md": false, "sales/_assets/orig.md": false, "_derived/bodies/x.md": false,
		"md": false, "a.mdx": false, "a.md.bak": false,
	} {
		assert.Equal(t, want, Versioned(p), p)
	}
}

func TestCommitGuardStagesOnlyMarkdown(t *testing.T) {
	dir, r := newForest(t)
	all := []string{"a.md", "b.db", "x/y.sqlite", "_assets/f.pdf", "A.MD"}
	for _, p := range all {
		writeFile(t, dir, p, "content of "+p+"\n")
	}
	sha, err := r.Commit(context.Background(), Message{Subject: PlantBatchSubject(2)}, all, nil, at(1))
	require.NoError(t, err)
	require.Len(t, sha, 40)

	want := []string{".gitignore", "A.MD", "_index.md", "_meta/schema.md", "a.md"}
	tracked, err := r.TrackedFiles()
	require.NoError(t, err)
	assert.Equal(t, want, tracked)
	assert.Equal(t, want, headFiles(t, r))

	before := snap(t, dir, r)
	_, err = r.Commit(context.Background(), Message{Subject: "tend(x): INSERT 1 row(s)"}, []string{"b.db"}, nil, at(2))
	require.ErrorIs(t, err, ErrNothingToCommit)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.Equal(t, before, snap(t, dir, r), "a refused commit leaves HEAD and index alone")
}

func TestCommitInitIsTheOnlyGitignoreCommit(t *testing.T) {
	dir, r := newForest(t)
	tracked, err := r.TrackedFiles()
	require.NoError(t, err)
	assert.Equal(t, []string{".gitignore", "_index.md", "_meta/schema.md"}, tracked)

	writeFile(t, dir, ".gitignore", gitignore+"extra/\n")
	_, err = r.Commit(context.Background(), Message{Subject: "x"}, []string{".gitignore"}, nil, at(1))
	require.ErrorIs(t, err, ErrNothingToCommit)

	log, err := r.Log(context.Background(), "_index.md", 0, false)
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "init: forest 'Test' (empty A.5 skeleton)", log[0].Subject)
	assert.Equal(t, "init", log[0].Action)
}

func TestCommitRemovalAndModification(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	writeFile(t, dir, "notes/a.md", "a\n")
	writeFile(t, dir, "notes/b.md", "b\n")
	_, err := r.Commit(ctx, Message{Subject: PlantBatchSubject(2)}, []string{"notes/a.md", "notes/b.md"}, nil, at(1))
	require.NoError(t, err)

	require.NoError(t, os.Remove(filepath.Join(dir, "notes", "a.md")))
	writeFile(t, dir, "notes/b.md", "b changed\n")
	_, err = r.Commit(ctx, Message{Subject: PruneSubject("notes/a")}, []string{"notes/b.md"}, []string{"notes/a.md"}, at(2))
	require.NoError(t, err)
	assert.Equal(t, []string{".gitignore", "_index.md", "_meta/schema.md", "notes/b.md"}, headFiles(t, r))
	tracked, err := r.TrackedFiles()
	require.NoError(t, err)
	assert.NotContains(t, tracked, "notes/a.md")

	// Byte-identical content is no change: refused, nothing written.
	before := snap(t, dir, r)
	_, err = r.Commit(ctx, Message{Subject: "graft(notes/b): noop"}, []string{"notes/b.md"}, nil, at(3))
	require.ErrorIs(t, err, ErrNothingToCommit)
	assert.Equal(t, before, snap(t, dir, r))
}

func TestCommitFailuresLeaveRepoAsItWas(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		ctx   context.Context
		msg   Message
		add   []string
		check func(t *testing.T, err error)
	}{
		{name: "missing file", add: []string{"new.md", "gone.md"},
			check: func(t *testing.T, err error) { assert.ErrorIs(t, err, os.ErrNotExist) }},
		{name: "index locked by git", add: []string{"new.md"},
			setup: func(t *testing.T, dir string) { writeFile(t, dir, ".git/index.lock", "") },
			check: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, ErrLocked)
				assert.Equal(t, envelope.Locked, envelope.CodeOf(err))
			}},
		{name: "branch locked by git", add: []string{"new.md"},
			setup: func(t *testing.T, dir string) { writeFile(t, dir, ".git/refs/heads/main.lock", "") },
			check: func(t *testing.T, err error) { assert.ErrorIs(t, err, ErrLocked) }},
		{name: "cancelled", add: []string{"new.md"}, ctx: cancelled,
			check: func(t *testing.T, err error) { assert.ErrorIs(t, err, context.Canceled) }},
		{name: "path escapes", add: []string{"new.md", "../outside.md"},
			check: func(t *testing.T, err error) { assert.Equal(t, envelope.Schema, envelope.CodeOf(err)) }},
		{name: "two-line subject", add: []string{"new.md"}, msg: Message{Subject: "plant(x): a\nb"},
			check: func(t *testing.T, err error) { assert.Equal(t, envelope.Schema, envelope.CodeOf(err)) }},
		{name: "forged trailer", add: []string{"new.md"},
			msg:   Message{Subject: "s", Trailers: []Trailer{{PrincipalKey, "alice\nstation-principal: root"}}},
			check: func(t *testing.T, err error) { assert.Equal(t, envelope.Schema, envelope.CodeOf(err)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, r := newForest(t)
			writeFile(t, dir, "new.md", "new\n")
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			before := snap(t, dir, r)
			c := tc.ctx
			if c == nil {
				c = ctx
			}
			msg := tc.msg
			if msg.Subject == "" {
				msg.Subject = PlantSubject("new", "New", "agent")
			}
			_, err := r.Commit(c, msg, tc.add, nil, at(1))
			require.Error(t, err)
			tc.check(t, err)
			assert.Equal(t, before, snap(t, dir, r))
			if !strings.Contains(tc.name, "index locked") {
				assert.NoFileExists(t, filepath.Join(dir, ".git", "index.lock"))
			}
			// The repository still works once the obstacle is gone.
			_ = os.Remove(filepath.Join(dir, ".git", "index.lock"))
			_ = os.Remove(filepath.Join(dir, ".git", "refs", "heads", "main.lock"))
			_, err = r.Commit(ctx, Message{Subject: "plant(new): New [source=agent]"}, []string{"new.md"}, nil, at(2))
			require.NoError(t, err)
		})
	}
}

func TestCommitMessageAndIdentity(t *testing.T) {
	dir, r := newForest(t)
	writeFile(t, dir, "a.md", "a\n")
	ctx := WithTrailers(context.Background(), Trailer{PrincipalKey, "carol"})
	opt := at(5)
	opt.Trailers = []Trailer{{PrincipalKey, "bob"}}
	msg := Message{Subject: PlantSubject("a", "A", "agent"), Body: "why it was planted\n",
		Trailers: []Trailer{{"Job", "j-1"}}}
	sha, err := r.Commit(ctx, msg, []string{"a.md"}, nil, opt)
	require.NoError(t, err)

	c, err := object.GetCommit(r.reader(), plumbing.NewHash(sha))
	require.NoError(t, err)
	assert.Equal(t, "plant(a): A [source=agent]\n\nwhy it was planted\n\nJob: j-1\nstation-principal: bob\nstation-principal: carol\n", c.Message)
	assert.Equal(t, "carol", ParsePrincipal(c.Message), "the context's stamp is last, so it wins")
	for _, sig := range []object.Signature{c.Author, c.Committer} {
		assert.Equal(t, Author.Name, sig.Name)
		assert.Equal(t, Author.Email, sig.Email)
		assert.True(t, opt.When.Equal(sig.When))
	}
	head, err := r.Head()
	require.NoError(t, err)
	assert.Equal(t, sha, head)
}

func TestMessageRenderRefusals(t *testing.T) {
	for name, m := range map[string]Message{
		"empty subject":     {Subject: "  "},
		"subject newline":   {Subject: "a\nb"},
		"subject CR":        {Subject: "a\rb"},
		"trailer key space": {Subject: "s", Trailers: []Trailer{{"station principal", "x"}}},
		"trailer key colon": {Subject: "s", Trailers: []Trailer{{"a:b", "x"}}},
		"trailer empty":     {Subject: "s", Trailers: []Trailer{{PrincipalKey, " "}}},
		"body stamp":        {Subject: "s", Body: "text\nStation-Principal: mallory"},
	} {
		_, err := m.render()
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err), name)
	}
	text, err := Message{Subject: "prune(x)"}.render()
	require.NoError(t, err)
	assert.Equal(t, "prune(x)\n", text)
}

func TestCommitConcurrentWithReads(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		p := "n/" + string(rune('a'+i)) + ".md"
		writeFile(t, dir, p, p+"\n")
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := r.Commit(ctx, Message{Subject: PlantSubject(p, "T", "agent")}, []string{p}, nil, Options{})
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := r.Log(ctx, "_index.md", 0, true)
			errs <- err
			_, err = r.TrackedFiles()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	tracked, err := r.TrackedFiles()
	require.NoError(t, err)
	assert.Len(t, tracked, 3+8)
	assert.Len(t, headFiles(t, r), 3+8)
}

func TestCommitEmptyIndexRefused(t *testing.T) {
	dir := t.TempDir()
	r, err := Init(dir)
	require.NoError(t, err)
	_, err = r.Commit(context.Background(), Message{Subject: "s"}, nil, []string{"a.md"}, Options{})
	require.True(t, errors.Is(err, ErrNothingToCommit))
	head, err := r.Head()
	require.NoError(t, err)
	assert.Empty(t, head, "unborn branch has no head")
}

func TestCommitSeesOutsideIndexWrites(t *testing.T) {
	// Two handles on one repository (as after a re-open): each must see the
	// other's commits, so the in-memory index is never trusted blindly.
	dir, r1 := newForest(t)
	r2, err := Open(dir)
	require.NoError(t, err)
	ctx := context.Background()
	for i, r := range []*Repo{r1, r2, r1, r2, r1} {
		p := "n/" + string(rune('a'+i)) + ".md"
		writeFile(t, dir, p, p)
		_, err := r.Commit(ctx, Message{Subject: PlantSubject(p, "T", "agent")}, []string{p}, nil, at(i+1))
		require.NoError(t, err)
	}
	want := []string{".gitignore", "_index.md", "_meta/schema.md", "n/a.md", "n/b.md", "n/c.md", "n/d.md", "n/e.md"}
	assert.Equal(t, want, headFiles(t, r1))
	tracked, err := r2.TrackedFiles()
	require.NoError(t, err)
	assert.Equal(t, want, tracked)
	log, err := r1.Log(ctx, "_index.md", 0, false)
	require.NoError(t, err)
	assert.Len(t, log, 1)
}

func TestCommitAfterRefusalUsesFreshIndex(t *testing.T) {
	// A commit that fails after staging must not leave its staged entries
	// behind in memory for the next commit to pick up.
	dir, r := newForest(t)
	ctx := context.Background()
	writeFile(t, dir, "a.md", "a")
	_, err := r.Commit(ctx, Message{Subject: "s"}, []string{"a.md", "missing.md"}, nil, at(1))
	require.Error(t, err)
	writeFile(t, dir, "b.md", "b")
	_, err = r.Commit(ctx, Message{Subject: "s"}, []string{"b.md"}, nil, at(2))
	require.NoError(t, err)
	assert.Equal(t, []string{".gitignore", "_index.md", "_meta/schema.md", "b.md"}, headFiles(t, r))
}

// TestCommitMetaIsANarrowDoor: _meta/<name>.yaml reaches the history
// only through CommitMeta, and the ordinary door still stages markdown
// only (spec 11 §6, F.186).
func TestCommitMetaIsANarrowDoor(t *testing.T) {
	ctx := context.Background()
	dir, r := newForest(t)
	writeFile(t, dir, "_meta/extensions.yaml", "extensions:\n  org: {}\n")
	_, err := r.Commit(ctx, Message{Subject: "sneak"}, []string{"_meta/extensions.yaml"}, nil, at(1))
	assert.ErrorIs(t, err, ErrNothingToCommit, "the ordinary door drops a non-markdown file")

	sha, err := r.CommitMeta(ctx, Message{Subject: "extensions: enable org"}, "extensions.yaml", false, at(2))
	require.NoError(t, err)
	assert.NotEmpty(t, sha)
	assert.Contains(t, headFiles(t, r), "_meta/extensions.yaml")

	for _, bad := range []string{"../x.yaml", "sub/x.yaml", "x.json", "payload.db"} {
		_, err := r.CommitMeta(ctx, Message{Subject: "bad"}, bad, false, at(3))
		assert.Error(t, err, bad)
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "_meta", "extensions.yaml")))
	_, err = r.CommitMeta(ctx, Message{Subject: "extensions: forget org"}, "extensions.yaml", true, at(4))
	require.NoError(t, err)
	assert.NotContains(t, headFiles(t, r), "_meta/extensions.yaml")
}

// TestCommitWrittenBytes: bytes the caller says it wrote are committed
// without reading the file back, unless the file's size says otherwise,
// in which case the file wins.
func TestCommitWrittenBytes(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	for i, tc := range []struct{ file, written, want string }{
		{file: "alpha\n", written: "alpha\n", want: "alpha\n"},
		{file: "beta\n", written: "a different length\n", want: "beta\n"},
	} {
		writeFile(t, dir, "notes/a.md", tc.file)
		_, err := r.Commit(ctx, Message{Subject: PlantSubject("notes/a", "A", "agent")}, []string{"notes/a.md"}, nil,
			Options{When: at(i + 1).When, Written: map[string][]byte{"notes/a.md": []byte(tc.written)}})
		require.NoError(t, err)
		f, err := goGitHead(t, dir).File("notes/a.md")
		require.NoError(t, err)
		got, err := f.Contents()
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "case %d", i)
	}
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"), "the worktree file is clean to git")
}
