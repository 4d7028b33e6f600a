// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"errors"
	"fmt"
	"github.com/klauspost/compress/zlib"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/monkeyllm/vine/envelope"
)

// Identity is a git author or committer.
type Identity struct {
	Name  string
	Email string
}

// Author is who writes every engine commit, as author and as committer
// (spec §4). Who asked for a write is a trailer, never the author: the core
// is principal-blind.
var Author = Identity{Name: "vine", Email: "vine@monkeyllm.local"}

// DefaultBranch is the branch a repository made by [Init] starts on.
// Repositories made elsewhere keep theirs: commits always advance whatever
// HEAD names, so a forest made by the reference (git's "master") opens and
// grows unchanged.
const DefaultBranch = "main"

// Repo is the git repository of one forest.
//
// Its methods are safe for concurrent use: commits are serialized inside the
// Repo, and reads (Head, TrackedFiles, Log) each use their own view of the
// object store, so a long history walk never delays a commit. Across
// processes the forest's writer lock decides who writes; git's lock files
// additionally refuse a commit while a git process holds the index or the
// branch, so at most one writer at a time ever changes the repository.
type Repo struct {
	root string              // absolute forest root = worktree top level
	dot  billy.Filesystem    // the git directory
	refs string              // the git directory's path when it holds the branch refs itself (no commondir), else ""
	st   *filesystem.Storage // write-side storage, used under mu only
	objs cache.Object        // decoded-object cache shared by readers (it locks itself)

	mu    sync.Mutex   // serializes commits; guards st and cache
	cache *indexCache  // the index as last committed; nil = read from disk
	packs time.Time    // objects/pack's mtime when st last indexed the packs
	zw    *zlib.Writer // reused by the pack writers, under mu
	// zwAhead compresses the entries made ahead (startEntries), under mu
	// and then by their goroutine alone until it is waited for.
	zwAhead *zlib.Writer
	batch   []newObject // objects the commit in progress adds, under mu
	pend    pending     // the current round of packs (pack.go), under mu
	prefix  packPrefix  // the start of the last commit pack (pack.go), under mu
	// indexBufs hold the index files the last two commits wrote, the
	// latest first, under mu: the cached index's encoded entries point
	// into the latest (indexCache.enc).
	indexBufs [2][]byte
	// treeStack is the treeBuilder's stack, kept between commits under mu:
	// a folder of 1,800 files grew a fresh one to 100 KB on every commit.
	treeStack []treeItem

	remoteMu sync.Mutex // serializes fetch, push and remote config (remote.go)
}

// Init returns the forest's own repository at dir, creating it (and dir)
// when dir is not already the top level of a repository. A repository
// further up the tree is ignored on purpose: the forest gets its own. New
// repositories start on [DefaultBranch].
func Init(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("gitops: init %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(abs, git.GitDirName)); err == nil {
		return Open(abs)
	}
	opts := &git.PlainInitOptions{InitOptions: git.InitOptions{
		DefaultBranch: plumbing.NewBranchReferenceName(DefaultBranch),
	}}
	if _, err := git.PlainInitWithOptions(abs, opts); err != nil {
		return nil, fmt.Errorf("gitops: init %s: %w", abs, err)
	}
	return Open(abs)
}

// Open returns the repository whose top level is dir. It refuses with
// [ErrNotTopLevel] (E_SCHEMA) when dir has no .git of its own, even if a
// parent directory is a repository: that one belongs to someone else.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("gitops: open %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(abs, git.GitDirName)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, notTopLevel(abs)
		}
		return nil, fmt.Errorf("gitops: open %s: %w", abs, err)
	}
	g, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{
		DetectDotGit:          false,
		EnableDotGitCommonDir: true,
	})
	if err != nil {
		return nil, fmt.Errorf("gitops: open %s: %w", abs, err)
	}
	st, ok := g.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("gitops: open %s: unexpected storage %T", abs, g.Storer)
	}
	r := &Repo{root: abs, dot: steadyListing{st.Filesystem()}, st: st, objs: cache.NewObjectLRU(readerCacheSize)}
	if _, err := os.Stat(filepath.Join(r.dot.Root(), "commondir")); errors.Is(err, fs.ErrNotExist) {
		r.refs = r.dot.Root()
	}
	return r, nil
}

func notTopLevel(dir string) error {
	msg := fmt.Sprintf("forest root %q is not the top level of its own git repository (it has no .git)", dir)
	if outer := enclosingRepo(filepath.Dir(dir)); outer != "" {
		msg += fmt.Sprintf("; it lies inside the repository at %q, which must never receive forest commits", outer)
	}
	return refuse(ErrNotTopLevel, envelope.Schema, msg,
		"initialize the forest so it gets a repository of its own, then open it again")
}

// enclosingRepo names the nearest ancestor holding a .git, or "".
func enclosingRepo(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, git.GitDirName)); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// refreshPacks makes the write storage see packs made since it last
// looked. go-git indexes the pack directory once per storage; after a
// `git gc` packs and prunes loose objects, HEAD's commit would otherwise
// be unreadable to it.
func (r *Repo) refreshPacks() {
	fi, err := r.dot.Stat("objects/pack")
	if err != nil {
		return
	}
	if !fi.ModTime().Equal(r.packs) {
		r.st.Reindex()
		r.packs = fi.ModTime()
	}
}

// Root is the absolute path of the forest root, the repository's top level.
func (r *Repo) Root() string { return r.root }

// readerCacheSize bounds the objects readers keep between calls: enough
// for the commits and trees of a long history walk, small enough for a
// registry holding many forests open.
const readerCacheSize = 32 * cache.MiByte

// reader returns a fresh view of the object store. go-git storages are not
// safe for concurrent use, and a view per read keeps readers off the commit
// mutex; git's write-then-rename discipline makes what they see consistent.
// The views share one object cache (objects are immutable), so repeated
// history reads do not go back to disk.
func (r *Repo) reader() *readStore {
	return &readStore{filesystem.NewStorage(r.dot, r.objs)}
}

// readStore is a reader's view. A view lists the packs once, at its first
// object read, so an object a commit packed after that listing is not in
// it: an object not found is looked for once more, after listing the
// packs again. Not finding is rare (a shallow clone's boundary), so the
// second listing costs nothing on the paths that matter. (A listing that
// missed packs installed before it was go-billy failing the listing when a
// name vanished under it: steadyListing.)
type readStore struct{ *filesystem.Storage }

// EncodedObject reads an object, listing the packs again before it says
// the object is not there.
func (s *readStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.Storage.EncodedObject(t, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		s.Reindex()
		o, err = s.Storage.EncodedObject(t, h)
	}
	return o, err
}

// Head is the full sha of the commit HEAD points at, or "" while the branch
// has no commit yet.
func (r *Repo) Head() (string, error) {
	h, err := headHash(r.refFiles(r.reader()))
	if err != nil {
		return "", fmt.Errorf("gitops: head: %w", err)
	}
	if h.IsZero() {
		return "", nil
	}
	return h.String(), nil
}

// TrackedFiles lists the paths in the index, slash-separated and sorted
// bytewise, each once: what `git ls-files` prints.
func (r *Repo) TrackedFiles() ([]string, error) {
	idx, err := r.reader().Index()
	if err != nil {
		return nil, fmt.Errorf("gitops: read index: %w", err)
	}
	names := make([]string, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}
