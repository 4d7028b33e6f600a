// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/gittest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// origin is a bare repository holding the fixture forest, reachable at
// url over file:// or over the in-process smart-HTTP server.
type origin struct {
	url    string
	token  string
	remote RemoteOptions
}

// newOrigin pushes the fixture forest to a new bare repository and
// answers its URL over transport ("file", "http" or "ssh").
func newOrigin(t *testing.T, transport string) origin {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{Now: plantClock})
	bare := gittest.Bare(t)
	o := origin{url: gittest.FileURL(bare)}
	switch transport {
	case "http":
		srv := gittest.NewServer(t, filepath.Dir(bare))
		srv.Token = "s3cret-token"
		o = origin{url: srv.RepoURL(filepath.Base(bare)), token: srv.Token}
	case "ssh":
		srv := gittest.NewSSHServer(t, filepath.Dir(bare))
		o = origin{url: srv.RepoURL(filepath.Base(bare)), remote: RemoteOptions{SSHKey: srv.KeyFile, SSHKnownHosts: srv.KnownHosts}}
	}
	ctx := context.Background()
	require.NoError(t, v.SetRemote(ctx, "origin", o.url))
	_, err := v.Push(ctx, o.opts())
	require.NoError(t, err)
	return o
}

func (o origin) opts() RemoteOptions {
	r := o.remote
	r.Token = o.token
	return r
}

// cloneT clones the origin into a new directory and opens it writable.
func cloneT(t *testing.T, o origin, name string) (*Vine, string, *CloneResult) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	res, err := Clone(context.Background(), o.url, dir, o.opts())
	require.NoError(t, err)
	return openT(t, dir, &Options{Now: plantClock}), dir, res
}

func plantRemoteNote(t *testing.T, v *Vine, id, parent, summary string) {
	t.Helper()
	_, err := v.Call(context.Background(), "plant", []byte(fmt.Sprintf(
		`{"node": {"id": %q, "type": "note", "title": %q, "summary": %q, "parent": %q}}`, id, id, summary, parent)))
	require.NoError(t, err)
}

func locateFinds(t *testing.T, v *Vine, query, id string) bool {
	t.Helper()
	res, err := v.Locate(context.Background(), query, LocateOptions{K: 5})
	require.NoError(t, err)
	return slices.ContainsFunc(res.Results, func(h LocateHit) bool { return h.ID == id })
}

// Clone, plant on the origin's side, push, the replica pulls, and locate
// on the replica finds the node: over file://, over HTTP with a token and
// over SSH with a key checked against known_hosts.
func TestCloneAndPullCarryANewNode(t *testing.T) {
	for _, transport := range []string{"file", "http", "ssh"} {
		t.Run(transport, func(t *testing.T) {
			ctx := context.Background()
			o := newOrigin(t, transport)
			writer, _, _ := cloneT(t, o, "writer")
			replica, replicaDir, res := cloneT(t, o, "replica")
			assert.Greater(t, res.Nodes, 10)
			assert.NotEmpty(t, res.PayloadsMissing, "payloads stay out of git, so the clone names the datasets it lacks")
			assert.Contains(t, res.PayloadsMissing, "finance/ledger-2026")

			plantRemoteNote(t, writer, "operations/kelp-survey", "operations/_index", "Kelp survey of the northern reef, counted by divers each spring.")
			pushed, err := writer.Push(ctx, o.opts())
			require.NoError(t, err)
			assert.False(t, pushed.UpToDate)
			require.False(t, locateFinds(t, replica, "kelp survey reef", "operations/kelp-survey"))

			var stages []string
			opts := PullOptions{RemoteOptions: o.opts()}
			opts.Progress = func(p Progress) { stages = append(stages, p.Op) }
			pulled, err := replica.Pull(ctx, opts)
			require.NoError(t, err)
			assert.Equal(t, "fast-forward", pulled.Kind)
			assert.Equal(t, pushed.Commit, pulled.Head)
			assert.Contains(t, pulled.Written, "operations/kelp-survey")
			assert.Contains(t, stages, "fetch")
			assert.Contains(t, stages, "pull")
			assert.True(t, locateFinds(t, replica, "kelp survey reef", "operations/kelp-survey"))
			assert.Equal(t, pushed.Commit, testforest.Head(t, replicaDir))

			again, err := replica.Pull(ctx, opts)
			require.NoError(t, err)
			assert.Equal(t, "up-to-date", again.Kind)
		})
	}
}

// Credentials are per call: a wrong token is refused E_FORBIDDEN, and a
// URL carrying a password is never recorded.
func TestRemoteCredentialsAreNeverStored(t *testing.T) {
	ctx := context.Background()
	o := newOrigin(t, "http")
	_, err := Clone(ctx, o.url, filepath.Join(t.TempDir(), "x"), RemoteOptions{Token: "wrong"})
	assert.Equal(t, EForbidden, CodeOf(err), "%v", err)
	v, dir, _ := cloneT(t, o, "c")
	err = v.SetRemote(ctx, "backup", "https://me:pw@example.com/f.git")
	assert.Equal(t, ESchema, CodeOf(err))
	cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	require.NoError(t, err)
	assert.NotContains(t, string(cfg), o.token)
	assert.NotContains(t, string(cfg), "pw@")
}

// Both sides wrote different nodes: the pull merges them with a merge
// commit, and the catalog equals a fresh reindex.
func TestDivergentPullMergesDifferentNodes(t *testing.T) {
	ctx := context.Background()
	o := newOrigin(t, "file")
	a, _, _ := cloneT(t, o, "a")
	b, bDir, _ := cloneT(t, o, "b")
	plantRemoteNote(t, a, "operations/tide-gauge", "operations/_index", "Tide gauge readings at the harbour mouth, logged hourly.")
	_, err := a.Push(ctx, RemoteOptions{})
	require.NoError(t, err)
	plantRemoteNote(t, b, "concepts/upwelling", "concepts/_index", "Upwelling brings cold nutrient-rich water to the surface.")

	res, err := b.Pull(ctx, PullOptions{})
	require.NoError(t, err)
	assert.Equal(t, "merge", res.Kind)
	assert.Contains(t, res.Written, "operations/tide-gauge")
	assert.True(t, locateFinds(t, b, "tide gauge harbour", "operations/tide-gauge"))
	assert.True(t, locateFinds(t, b, "upwelling nutrient", "concepts/upwelling"))
	assert.Equal(t, freshCatalog(t, bDir), catalogDump(t, b), "the incremental update equals a fresh reindex")
	g, err := git.PlainOpen(bDir)
	require.NoError(t, err)
	merge, err := g.CommitObject(plumbing.NewHash(res.Head))
	require.NoError(t, err)
	assert.Equal(t, "pull(origin): merge origin/main", strings.TrimSpace(merge.Message))
	assert.Len(t, merge.ParentHashes, 2, "a merge commit has both sides as parents")

	// Writes go on on top of the merge commit.
	plantRemoteNote(t, b, "concepts/thermocline", "concepts/_index", "The thermocline separates warm surface water from the cold deep.")
	assert.True(t, locateFinds(t, b, "thermocline warm surface", "concepts/thermocline"))

	// The merge pushes, and the other side fast-forwards to it.
	_, err = b.Push(ctx, RemoteOptions{})
	require.NoError(t, err)
	res, err = a.Pull(ctx, PullOptions{})
	require.NoError(t, err)
	assert.Equal(t, "fast-forward", res.Kind)
	assert.True(t, locateFinds(t, a, "upwelling nutrient", "concepts/upwelling"))
}

// Both sides planted a different node under the same branch: both
// changed the branch's index, yet no node conflicts, so the pull joins
// the index entry by entry (indexmerge.go) and lands a merge.
func TestDivergentPlantsUnderOneBranchJoinItsIndex(t *testing.T) {
	ctx := context.Background()
	o := newOrigin(t, "file")
	a, _, _ := cloneT(t, o, "a")
	b, bDir, _ := cloneT(t, o, "b")
	plantRemoteNote(t, a, "concepts/salinity", "concepts/_index", "Salinity rises where evaporation outpaces rain and rivers.")
	_, err := a.Push(ctx, RemoteOptions{})
	require.NoError(t, err)
	plantRemoteNote(t, b, "concepts/upwelling", "concepts/_index", "Upwelling brings cold nutrient-rich water to the surface.")

	res, err := b.Pull(ctx, PullOptions{})
	require.NoError(t, err)
	assert.Equal(t, "merge", res.Kind)
	assert.Equal(t, []string{"concepts/_index"}, res.Joined)
	data, err := os.ReadFile(filepath.Join(bDir, "concepts", "_index.md"))
	require.NoError(t, err)
	text := string(data)
	assert.Contains(t, text, "[[concepts/salinity]]")
	assert.Contains(t, text, "[[concepts/upwelling]]")
	n, err := forest.Parse("concepts/_index", data)
	require.NoError(t, err)
	notes, _, ok := forest.ParseCoverage(n.Coverage())
	require.True(t, ok, n.Coverage())
	assert.Equal(t, forest.CountEntries(n.Body, forest.SectionDirect), notes, "coverage counts the joined entries")
	assert.True(t, locateFinds(t, b, "salinity evaporation", "concepts/salinity"))
	assert.Equal(t, freshCatalog(t, bDir), catalogDump(t, b), "the incremental update equals a fresh reindex")

	// The joined index is an ordinary one: the next plant builds on it,
	// and the other side fast-forwards to the merge.
	plantRemoteNote(t, b, "concepts/thermocline", "concepts/_index", "The thermocline separates warm surface water from the cold deep.")
	_, err = b.Push(ctx, RemoteOptions{})
	require.NoError(t, err)
	res, err = a.Pull(ctx, PullOptions{})
	require.NoError(t, err)
	assert.Equal(t, "fast-forward", res.Kind)
	assert.True(t, locateFinds(t, a, "upwelling nutrient", "concepts/upwelling"))
}

// A push behind the remote is refused E_CONFLICT: pull first.
func TestPushBehindTheRemoteIsRefused(t *testing.T) {
	ctx := context.Background()
	o := newOrigin(t, "file")
	a, _, _ := cloneT(t, o, "a")
	b, _, _ := cloneT(t, o, "b")
	plantRemoteNote(t, a, "operations/a-note", "operations/_index", "A note planted on the first clone of the forest.")
	_, err := a.Push(ctx, RemoteOptions{})
	require.NoError(t, err)
	plantRemoteNote(t, b, "concepts/b-note", "concepts/_index", "A note planted on the second clone of the forest.")
	_, err = b.Push(ctx, RemoteOptions{})
	assert.Equal(t, EConflict, CodeOf(err), "%v", err)
}

// The same node changed differently on both sides: the pull is refused
// E_CONFLICT naming it and the way out, and the worktree, the index, HEAD
// and the catalog are exactly as they were. --prefer then settles it.
func TestConflictingPullIsRefusedAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	o := newOrigin(t, "file")
	a, _, _ := cloneT(t, o, "a")
	b, bDir, _ := cloneT(t, o, "b")
	graft := func(v *Vine, summary string) {
		_, err := v.Call(ctx, "graft", []byte(fmt.Sprintf(
			`{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"summary": %q}}}`, summary)))
		require.NoError(t, err)
	}
	graft(a, "Ice comes from the co-op plant on the east quay, twice a day.")
	_, err := a.Push(ctx, RemoteOptions{})
	require.NoError(t, err)
	graft(b, "Ice comes by truck from the inland plant every morning.")

	work, index, head, cat := worktreeDigest(t, bDir), gitIndex(t, bDir), testforest.Head(t, bDir), catalogDump(t, b)
	_, err = b.Pull(ctx, PullOptions{})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, EConflict, e.Code)
	assert.Contains(t, e.Message, "operations/ice-supply")
	assert.Contains(t, e.Hint, "--prefer ours")
	assert.Equal(t, 409, e.Code.HTTPStatus())
	assert.Equal(t, work, worktreeDigest(t, bDir), "the worktree is byte-identical")
	assert.Equal(t, index, gitIndex(t, bDir), "the index is byte-identical")
	assert.Equal(t, head, testforest.Head(t, bDir))
	assert.Equal(t, cat, catalogDump(t, b), "the catalog is unchanged")

	_, err = b.Pull(ctx, PullOptions{Prefer: "sideways"})
	assert.Equal(t, ESchema, CodeOf(err))
	res, err := b.Pull(ctx, PullOptions{Prefer: "theirs"})
	require.NoError(t, err)
	assert.Equal(t, "merge", res.Kind)
	assert.Contains(t, res.Settled, "operations/ice-supply")
	n, err := b.readNode("operations/ice-supply")
	require.NoError(t, err)
	assert.Equal(t, "Ice comes from the co-op plant on the east quay, twice a day.", n.Summary())
	assert.Equal(t, freshCatalog(t, bDir), catalogDump(t, b))
}

// A read replica serves eight concurrent readers while it follows a
// stream of pushes: every read answers, the replica ends at the origin's
// commit, and its catalog equals a fresh reindex.
func TestReplicaFollowsPushesWhileServingReaders(t *testing.T) {
	ctx := context.Background()
	pushes := 50
	if testing.Short() {
		pushes = 12
	}
	o := newOrigin(t, "http")
	writer, _, _ := cloneT(t, o, "writer")
	replicaDir := filepath.Join(t.TempDir(), "replica")
	_, err := Clone(ctx, o.url, replicaDir, o.opts())
	require.NoError(t, err)
	replica := openT(t, replicaDir, &Options{ReadOnly: true})

	reads := []struct{ name, args string }{
		{"locate", `{"query": "harbour radio schedule"}`},
		{"look", `{"id": "operations/_index"}`},
		{"pick", `{"id": "operations/radio-schedule"}`},
		{"scan", `{"parent_id": "operations/_index"}`},
		{"sniff", `{"terms": "channel"}`},
		{"move", `{"id": "concepts/swell", "direction": "both"}`},
	}
	var stop atomic.Bool
	var served, failed atomic.Int64
	var wg sync.WaitGroup
	for r := range 8 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				c := reads[(r+i)%len(reads)]
				if _, err := replica.Call(ctx, c.name, []byte(c.args)); err != nil {
					failed.Add(1)
					t.Errorf("%s while following: %v", c.name, err)
					return
				}
				served.Add(1)
			}
		})
	}
	fctx, cancel := context.WithCancel(ctx)
	followed := make(chan error, 1)
	var syncs atomic.Int64
	go func() {
		followed <- replica.Follow(fctx, FollowOptions{RemoteOptions: o.opts(), Every: 5 * time.Millisecond,
			Synced: func(res *PullResult, err error) {
				if res != nil && res.Kind != "up-to-date" {
					t.Logf("sync %s %d written at %s", res.Kind, len(res.Written), time.Now().Format("05.000"))
				}
				if err != nil {
					t.Errorf("sync: %v", err)
				}
				syncs.Add(1)
			}})
	}()
	var last string
	for i := range pushes {
		plantRemoteNote(t, writer, fmt.Sprintf("operations/stream-%02d", i), "operations/_index",
			fmt.Sprintf("Stream note %d pushed to the origin for the replica to follow.", i))
		p, err := writer.Push(ctx, o.opts())
		require.NoError(t, err)
		last = p.Commit
	}
	deadline := time.Now().Add(120 * time.Second)
	for (replica.Origin() == nil || replica.Origin().Head != last) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	assert.ErrorIs(t, <-followed, context.Canceled)
	stop.Store(true)
	wg.Wait()

	require.Equal(t, last, testforest.Head(t, replicaDir), "the replica reached the origin's last commit")
	assert.Zero(t, failed.Load())
	assert.Greater(t, served.Load(), int64(pushes))
	st := replica.Origin()
	require.NotNil(t, st)
	assert.Equal(t, last, st.Commit)
	assert.Equal(t, last, st.Head)
	assert.Empty(t, st.Error)
	assert.Less(t, st.LagSeconds, 60.0)
	assert.True(t, locateFinds(t, replica, fmt.Sprintf("stream note %d", pushes-1), fmt.Sprintf("operations/stream-%02d", pushes-1)))
	assert.True(t, freshCatalog(t, replicaDir) == catalogDump(t, replica), "the followed catalog equals a fresh reindex")
	_, err = replica.Call(ctx, "plant", []byte(`{"node": {"id": "operations/x", "type": "note", "title": "X", "summary": "A write on the replica is refused.", "parent": "operations/_index"}}`))
	assert.Equal(t, EReadOnly, CodeOf(err), "the replica stays read-only for its callers")
	t.Logf("%d pushes, %d syncs, %d reads served", pushes, syncs.Load(), served.Load())
}

// freshCatalog is the catalog a full reindex of a copy of dir's node
// files builds.
func freshCatalog(t *testing.T, dir string) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "fresh")
	require.NoError(t, os.CopyFS(cp, os.DirFS(dir)))
	require.NoError(t, os.RemoveAll(filepath.Join(cp, "_derived")))
	v := openT(t, cp, &Options{ReadOnly: true})
	return catalogDump(t, v)
}

// worktreeDigest hashes every file outside .git and _derived.
func worktreeDigest(t *testing.T, dir string) string {
	t.Helper()
	var paths []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "_derived") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() != ".vine.lock" {
			paths = append(paths, p)
		}
		return nil
	}))
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		io.WriteString(h, p+"\x00")
		_, err = io.Copy(h, f)
		f.Close()
		require.NoError(t, err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func gitIndex(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	return string(data)
}

// A pull never overwrites a file edited by hand and not committed: it is
// refused E_CONFLICT naming the file, which keeps its bytes.
func TestPullRefusesToOverwriteUncommittedEdits(t *testing.T) {
	ctx := context.Background()
	o := newOrigin(t, "file")
	a, _, _ := cloneT(t, o, "a")
	b, bDir, _ := cloneT(t, o, "b")
	plantRemoteNote(t, a, "operations/buoy-log", "operations/_index", "Buoy log of the harbour mouth, read every morning.")
	_, err := a.Push(ctx, RemoteOptions{})
	require.NoError(t, err)
	index := filepath.Join(bDir, "operations", "_index.md")
	data, err := os.ReadFile(index)
	require.NoError(t, err)
	edited := append(data, []byte("\nA line typed by hand.\n")...)
	require.NoError(t, os.WriteFile(index, edited, 0o644))
	head := testforest.Head(t, bDir)

	_, err = b.Pull(ctx, PullOptions{})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, EConflict, e.Code)
	assert.Contains(t, e.Message, "operations/_index.md")
	assert.Contains(t, e.Message, "uncommitted")
	got, err := os.ReadFile(index)
	require.NoError(t, err)
	assert.Equal(t, edited, got, "the hand edit is kept")
	assert.Equal(t, head, testforest.Head(t, bDir))
	assert.NoFileExists(t, filepath.Join(bDir, "operations", "buoy-log.md"))
}
