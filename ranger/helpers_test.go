// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/ranger"
)

// now is the tests' clock: a day after the fixture was built.
var now = fixture.Now.Add(24 * time.Hour)

func clock() time.Time { return now }

// openFixture builds the fixture forest, lets edit change its files the
// way a person with an editor would, and opens it writable on the test
// clock.
func openFixture(t *testing.T, edit func(dir string, man *fixture.Manifest)) (*vine.Vine, string, *fixture.Manifest) {
	t.Helper()
	dir, man := testforest.Fixture(t)
	if edit != nil {
		edit(dir, man)
	}
	// The first open builds the derived layer, and its upkeep (the body
	// index) goes on in the background; closing waits for it. The forest
	// is reopened settled, so a test comparing _derived byte for byte sees
	// only what it calls write.
	v, err := vine.Open(context.Background(), dir, &vine.Options{Now: clock})
	require.NoError(t, err)
	require.NoError(t, v.Close())
	v, err = vine.Open(context.Background(), dir, &vine.Options{Now: clock})
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v, dir, man
}

func newRanger(t *testing.T, v *vine.Vine, opts ...ranger.Option) *ranger.Ranger {
	t.Helper()
	r, err := ranger.New(v, append([]ranger.Option{ranger.WithClock(clock), ranger.WithoutGC()}, opts...)...)
	require.NoError(t, err)
	return r
}

func readNode(t *testing.T, dir, id string) *forest.Node {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt))
	require.NoError(t, err)
	n, err := forest.Parse(id, data)
	require.NoError(t, err)
	return n
}

// editNode rewrites a node file by hand.
func editNode(t *testing.T, dir, id string, edit func(n *forest.Node)) {
	t.Helper()
	n := readNode(t, dir, id)
	edit(n)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt), n.Bytes(), 0o644))
}

// link is a link entry; a nil confidence leaves the key out.
func link(rel, target string, confidence any, extra ...forest.Field) *forest.Frontmatter {
	e := forest.NewFrontmatter(forest.Field{Key: "rel", Value: rel}, forest.Field{Key: "target", Value: target})
	if confidence != nil {
		e.Set("confidence", confidence)
	}
	for _, f := range extra {
		e.Set(f.Key, f.Value)
	}
	return e
}

func addLinks(n *forest.Node, entries ...*forest.Frontmatter) {
	v, _ := n.Front.Get("links")
	items, _ := v.([]any)
	for _, e := range entries {
		items = append(items, e)
	}
	n.Front.Set("links", items)
}

// entriesFor returns the node's link entries for one (rel, target) pair.
func entriesFor(n *forest.Node, rel, target string) []*forest.Frontmatter {
	var out []*forest.Frontmatter
	for _, l := range n.Links() {
		if l.Rel == rel && l.Target == target {
			out = append(out, l.Entry)
		}
	}
	return out
}

func head(t *testing.T, dir string) string {
	t.Helper()
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	sha, err := repo.Head()
	require.NoError(t, err)
	return sha
}

// commit is one commit as the tests inspect it.
type commit struct {
	Subject string
	Files   []string
}

// commitsSince lists the commits after base, newest first, with the
// files each one changed.
func commitsSince(t *testing.T, dir, base string) []commit {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	iter, err := repo.Log(&git.LogOptions{})
	require.NoError(t, err)
	defer iter.Close()
	var out []commit
	for {
		c, err := iter.Next()
		require.NoError(t, err, "commit %s is not in the history", base)
		if c.Hash.String() == base {
			return out
		}
		stats, err := c.Stats()
		require.NoError(t, err)
		cm := commit{Subject: strings.SplitN(c.Message, "\n", 2)[0]}
		for _, st := range stats {
			cm.Files = append(cm.Files, st.Name)
		}
		out = append(out, cm)
	}
}

// heatRows dumps the whole heat table, keyed by scope|node.
func heatRows(t *testing.T, v *vine.Vine) map[string][2]float64 {
	t.Helper()
	rows, err := v.Trails().DB().Query("SELECT scope, node_id, heat, updated FROM heat")
	require.NoError(t, err)
	defer rows.Close()
	out := map[string][2]float64{}
	for rows.Next() {
		var scope, id string
		var h, u float64
		require.NoError(t, rows.Scan(&scope, &id, &h, &u))
		out[scope+"|"+id] = [2]float64{h, u}
	}
	require.NoError(t, rows.Err())
	return out
}

func deposit(t *testing.T, v *vine.Vine, heat float64, at time.Time, ids ...string) {
	t.Helper()
	require.NoError(t, v.Trails().Deposit(context.Background(), "", ids, heat, at))
}

// derivedDigest hashes every name and byte under _derived, except the
// SQLite wal-index (-shm): it is shared memory that every reader of an
// open WAL database updates, so it says nothing about writes.
func derivedDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	root := filepath.Join(dir, forest.DerivedDir)
	var paths []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !strings.HasSuffix(p, "-shm") {
			paths = append(paths, p)
		}
		return nil
	}))
	slices.Sort(paths)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		io.WriteString(h, rel+"\x00"+fi.Mode().String()+"\x00")
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// leaves lists the fixture's non-branch, non-system node ids, sorted,
// without those in skip.
func leaves(man *fixture.Manifest, skip ...string) []string {
	var out []string
	for _, id := range man.Nodes {
		if !forest.IsIndex(id) && !forest.IsSystem(id) && !slices.Contains(skip, id) {
			out = append(out, id)
		}
	}
	return out
}
