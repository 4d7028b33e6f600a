// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
)

// seamClock is a day after the fixture was built, so a stamped updated
// date is visibly new.
func seamClock() time.Time { return fixture.Now.Add(24 * time.Hour) }

func seamOpen(t *testing.T, readOnly bool) (*Vine, string) {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	v, err := Open(context.Background(), dir, &Options{Now: seamClock, ReadOnly: readOnly})
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v, dir
}

func seamHead(t *testing.T, dir string) string {
	t.Helper()
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	sha, err := repo.Head()
	require.NoError(t, err)
	return sha
}

// seamFiles maps every node file of the forest to its bytes.
func seamFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == forest.DerivedDir) {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, forest.NodeExt) {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	}))
	return out
}

// dropLink removes the (rel, target) link from a node's copy.
func dropLink(n *forest.Node, rel, target string) {
	v, _ := n.Front.Get("links")
	items, _ := v.([]any)
	var kept []any
	for _, it := range items {
		if m, ok := it.(*forest.Frontmatter); ok && m.String("rel") == rel && m.String("target") == target {
			continue
		}
		kept = append(kept, it)
	}
	if len(kept) == 0 {
		n.Front.Delete("links")
		return
	}
	n.Front.Set("links", kept)
}

func TestMaintainCommitsOnlyTheStagedNode(t *testing.T) {
	ctx := context.Background()
	v, dir := seamOpen(t, false)
	const id = "operations/departure-checklist"
	before := seamFiles(t, dir)
	subject := gitops.RangerPruneSubject(id, "discovered-shortcut", "concepts/beaufort-scale")

	sha, err := v.Maintain(ctx, subject, func(e *Editor) error {
		n, err := e.Node(id)
		if err != nil {
			return err
		}
		dropLink(n, "discovered-shortcut", "concepts/beaufort-scale")
		return e.Put(n)
	})
	require.NoError(t, err)
	require.NotEmpty(t, sha)
	assert.Equal(t, sha, seamHead(t, dir))

	after := seamFiles(t, dir)
	for path, data := range before {
		if path == id+forest.NodeExt {
			assert.NotEqual(t, data, after[path], "the staged node is rewritten")
			continue
		}
		assert.Equal(t, data, after[path], "%s is untouched", path)
	}
	n := wrNode(t, dir, id)
	assert.Equal(t, seamClock().Format(time.DateOnly), n.Updated(), "updated comes from the Vine's clock")
	for _, l := range n.Links() {
		assert.NotEqual(t, "discovered-shortcut", l.Rel)
	}

	log, err := v.repo.Log(ctx, id+forest.NodeExt, 1, false)
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, subject, log[0].Subject)
	assert.Empty(t, log[0].By, "maintenance commits carry no principal")

	rec, err := v.Record(ctx, id)
	require.NoError(t, err)
	for _, e := range rec.Edges {
		assert.NotEqual(t, "concepts/beaufort-scale", e.Dst, "the catalog follows the commit")
	}
}

func TestMaintainSeesItsOwnStagedEdits(t *testing.T) {
	ctx := context.Background()
	v, dir := seamOpen(t, false)
	const id = "concepts/tide"
	sha, err := v.Maintain(ctx, "ranger(landmarks): refresh", func(e *Editor) error {
		n, err := e.Node(id)
		if err != nil {
			return err
		}
		n.Body += "\n\nFirst edit.\n"
		if err := e.Put(n); err != nil {
			return err
		}
		again, err := e.Node(id)
		if err != nil {
			return err
		}
		assert.Contains(t, again.Body, "First edit.", "Node returns the staged copy")
		again.Body += "\n\nSecond edit.\n"
		return e.Put(again)
	})
	require.NoError(t, err)
	require.NotEmpty(t, sha)
	n := wrNode(t, dir, id)
	assert.Contains(t, n.Body, "First edit.")
	assert.Contains(t, n.Body, "Second edit.")
}

func TestMaintainWithoutChangeMakesNoCommit(t *testing.T) {
	ctx := context.Background()
	v, dir := seamOpen(t, false)
	head, digest := seamHead(t, dir), testforest.TreeDigest(t, dir)
	tests := []struct {
		name string
		fn   func(e *Editor) error
	}{
		{"nothing staged", func(*Editor) error { return nil }},
		{"identical bytes", func(e *Editor) error {
			n, err := e.Node("concepts/tide")
			if err != nil {
				return err
			}
			return e.Put(n)
		}},
		{"an edit taken back", func(e *Editor) error {
			n, err := e.Node("concepts/tide")
			if err != nil {
				return err
			}
			orig := n.Body
			n.Body += "\n\nextra\n"
			if err := e.Put(n); err != nil {
				return err
			}
			n.Body = orig
			return e.Put(n)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sha, err := v.Maintain(ctx, gitops.RangerLandmarksSubject, tc.fn)
			require.NoError(t, err)
			assert.Empty(t, sha)
			assert.Equal(t, head, seamHead(t, dir))
			assert.Equal(t, digest, testforest.TreeDigest(t, dir))
		})
	}
}

func TestMaintainRefusals(t *testing.T) {
	ctx := context.Background()
	v, dir := seamOpen(t, false)
	errOwn := errors.New("the function's own failure")
	edit := func(id string, change func(n *forest.Node)) func(e *Editor) error {
		return func(e *Editor) error {
			n, err := e.Node(id)
			if err != nil {
				return err
			}
			change(n)
			return e.Put(n)
		}
	}
	tests := []struct {
		name    string
		subject string
		fn      func(e *Editor) error
		code    Code
		err     error
	}{
		{"empty subject", " ", func(*Editor) error { return nil }, ESchema, nil},
		{"two-line subject", "ranger(prune): a\nb", func(*Editor) error { return nil }, ESchema, nil},
		{"absent node", "s", func(e *Editor) error { _, err := e.Node("nowhere/nothing"); return err }, ENotFound, nil},
		{"escaping id", "s", func(e *Editor) error { _, err := e.Node("../outside"); return err }, ENotFound, nil},
		{"put of a new node", "s", func(e *Editor) error {
			n, _ := e.Node("concepts/tide")
			n.ID = "concepts/brand-new"
			n.Front.Set("id", n.ID)
			return e.Put(n)
		}, ENotFound, nil},
		{"type changed", "s", edit("concepts/tide", func(n *forest.Node) { n.Front.Set("type", "note") }), EReadOnly, nil},
		{"created changed", "s", edit("concepts/tide", func(n *forest.Node) { n.Front.Set("created", "2020-01-01") }), EReadOnly, nil},
		{"undeclared rel", "s", edit("concepts/tide", func(n *forest.Node) {
			n.Front.Set("links", []any{forest.NewFrontmatter(
				forest.Field{Key: "rel", Value: "likes"}, forest.Field{Key: "target", Value: "concepts/swell"})})
		}), ESchema, nil},
		{"the function fails after a put", "s", func(e *Editor) error {
			if err := edit("concepts/tide", func(n *forest.Node) { n.Body += "\nx\n" })(e); err != nil {
				return err
			}
			return errOwn
		}, "", errOwn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			head, digest := seamHead(t, dir), testforest.TreeDigest(t, dir)
			sha, err := v.Maintain(ctx, tc.subject, tc.fn)
			require.Error(t, err)
			assert.Empty(t, sha)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
			} else {
				assert.Equal(t, tc.code, CodeOf(err), "%v", err)
			}
			assert.Equal(t, head, seamHead(t, dir), "no commit")
			assert.Equal(t, digest, testforest.TreeDigest(t, dir), "the forest is byte-identical")
		})
	}
}

func TestMaintainAndGCRefuseReadOnly(t *testing.T) {
	ctx := context.Background()
	v, dir := seamOpen(t, true)
	digest := testforest.TreeDigest(t, dir)
	called := false
	_, err := v.Maintain(ctx, gitops.RangerLandmarksSubject, func(*Editor) error { called = true; return nil })
	assert.Equal(t, EReadOnly, CodeOf(err))
	assert.False(t, called, "the function never runs on a read-only Vine")
	_, err = v.GCAuto(ctx)
	assert.Equal(t, EReadOnly, CodeOf(err))
	assert.Equal(t, digest, testforest.TreeDigest(t, dir))
}

func TestGCAutoReports(t *testing.T) {
	v, dir := seamOpen(t, false)
	head := seamHead(t, dir)
	got, err := v.GCAuto(context.Background())
	require.NoError(t, err)
	assert.Contains(t, []string{gitops.GCRan, gitops.GCUnavailable}, got)
	assert.Equal(t, head, seamHead(t, dir), "gc makes no commit")
}

func TestTrailsIsTheStoreSessionsDepositInto(t *testing.T) {
	ctx := context.Background()
	v, _ := seamOpen(t, false)
	_, err := v.CloseSession(ctx, true, []string{"concepts/tide"})
	require.NoError(t, err)
	h, err := v.Trails().Heat(ctx, []string{"concepts/tide"}, "")
	require.NoError(t, err)
	assert.Greater(t, h["concepts/tide"], 0.0)
}

func TestMaintainIsOneWriterAmongGrafts(t *testing.T) {
	ctx := context.Background()
	v, dir := seamOpen(t, false)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := v.Maintain(ctx, gitops.RangerLandmarksSubject, func(e *Editor) error {
				n, err := e.Node("concepts/tide")
				if err != nil {
					return err
				}
				n.Body += "\n\nmaintained " + string(rune('a'+i)) + "\n"
				return e.Put(n)
			})
			assert.NoError(t, err)
		}()
		go func() {
			defer wg.Done()
			s := "graft " + string(rune('a'+i))
			_, err := v.Graft(ctx, "concepts/tide", GraftPatch{AppendSection: &SectionEdit{Header: s, Body: s}})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	body := wrNode(t, dir, "concepts/tide").Body
	for i := range 4 {
		assert.Contains(t, body, "maintained "+string(rune('a'+i)), "no write is lost")
		assert.Contains(t, body, "## graft "+string(rune('a'+i)))
	}
}
