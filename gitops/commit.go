// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/monkeyllm/vine/envelope"
)

// Options are the per-call settings of a commit.
type Options struct {
	// When is the author and committer time; zero means time.Now().
	When time.Time
	// Trailers follow the message's own trailers (and precede those of
	// WithTrailers). The adapter passes station-principal here.
	Trailers []Trailer
	// Written holds, for paths in add, the bytes the caller has just
	// written to them, which are hashed instead of read back: a folder's
	// index is rewritten whole by every write into the folder. The stat
	// data is still read from the file, and a file whose size is not the
	// length of its bytes here is read back as usual. Commit keeps none of
	// these slices once it returns: the caller may reuse them.
	Written map[string][]byte
	// Prehashed holds hashes of Written's bytes computed ahead (Prehash);
	// Commit waits for them and uses those of the very slices in Written.
	Prehashed *Prehashed
}

// gitignoreName is the one non-markdown file the forest versions, and only
// at init.
const gitignoreName = ".gitignore"

// initPaths are the files CommitInit stages (spec §1, Init).
var initPaths = []string{"_index.md", "_meta/schema.md", gitignoreName}

// Versioned reports whether Commit would stage path: it ends in ".md" (any
// case) and lies under no directory named _derived, _assets or .git, the
// places whose markdown is not a node and which the forest's .gitignore
// keeps out.
func Versioned(p string) bool {
	if len(p) < 3 || !strings.EqualFold(p[len(p)-3:], ".md") {
		return false
	}
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if d == "_derived" || d == "_assets" || strings.EqualFold(d, ".git") {
			return false
		}
	}
	return true
}

// Commit stages exactly the named root-relative, slash-separated paths —
// add for files written or modified, remove for files deleted — and commits
// them on the branch HEAD names. It returns the new commit's full sha.
//
// The guard: only [Versioned] paths are staged; every other path is dropped
// without a word. If no path survives, or the staged tree equals HEAD's,
// Commit refuses with [ErrNothingToCommit] and writes nothing. A path in
// both lists is staged from disk. Files are read as they are on disk;
// Commit never modifies the worktree, so a removal's file should already be
// gone.
//
// On any failure the index and the branch are left as they were; at most
// some unreachable objects remain, which git collects.
func (r *Repo) Commit(ctx context.Context, msg Message, add, remove []string, opt Options) (string, error) {
	return r.commit(ctx, msg, add, remove, opt, doorNodes)
}

// CommitMeta commits one forest setting file: name is a file directly
// under _meta/ ending in .yaml or .md ("extensions.yaml"), staged as add
// (written) or removed. It is the narrow second door of spec 11 §6: the
// ordinary Commit still stages markdown only, so no other non-markdown
// file can reach the history this way.
func (r *Repo) CommitMeta(ctx context.Context, msg Message, name string, removed bool, opt Options) (string, error) {
	if strings.Contains(name, "/") || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".md")) {
		return "", invalid(fmt.Sprintf("%q is not a .yaml or .md file name for _meta/", name),
			"name a file directly under _meta/, e.g. extensions.yaml")
	}
	p := metaDir + name
	if removed {
		return r.commit(ctx, msg, nil, []string{p}, opt, doorMeta)
	}
	return r.commit(ctx, msg, []string{p}, nil, opt, doorMeta)
}

// metaDir is the folder of forest settings.
const metaDir = "_meta/"

// door is which paths a commit may stage.
type door int

const (
	doorNodes door = iota // Versioned paths only
	doorInit              // the init skeleton, .gitignore included
	doorMeta              // one file directly under _meta/
)

// CommitInit commits the skeleton Init wrote — _index.md, _meta/schema.md
// and .gitignore, the only commit that may stage a non-markdown file —
// with subject InitSubject(title).
func (r *Repo) CommitInit(ctx context.Context, title string, opt Options) (string, error) {
	return r.commit(ctx, Message{Subject: InitSubject(title)}, initPaths, nil, opt, doorInit)
}

func (r *Repo) commit(ctx context.Context, msg Message, add, remove []string, opt Options, d door) (string, error) {
	defer opt.Prehashed.Wait() // the caller may reuse the bytes once Commit returns
	text, err := msg.render(opt.Trailers, TrailersFrom(ctx))
	if err != nil {
		return "", err
	}
	add, remove, err = selectPaths(add, remove, d)
	if err != nil {
		return "", err
	}
	if len(add)+len(remove) == 0 {
		return "", refuse(ErrNothingToCommit, envelope.Schema,
			"nothing to commit: none of the paths given is a .md file the forest versions",
			"only markdown is committed; payloads and _assets stay on disk, untracked")
	}
	when := opt.When
	if when.IsZero() {
		when = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commitLocked(ctx, text, add, remove, when, opt)
}

// selectPaths validates every path, applies the guard and deduplicates,
// dropping from remove what add stages anyway.
func selectPaths(add, remove []string, d door) ([]string, []string, error) {
	keep := func(list []string) ([]string, error) {
		var out []string
		for _, p := range list {
			if err := checkPath(p); err != nil {
				return nil, err
			}
			if Versioned(p) || d == doorInit && p == gitignoreName ||
				d == doorMeta && strings.HasPrefix(p, metaDir) && !strings.Contains(p[len(metaDir):], "/") {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return slices.Compact(out), nil
	}
	a, err := keep(add)
	if err != nil {
		return nil, nil, err
	}
	rm, err := keep(remove)
	if err != nil {
		return nil, nil, err
	}
	rm = slices.DeleteFunc(rm, func(p string) bool { _, found := slices.BinarySearch(a, p); return found })
	return a, rm, nil
}

// checkPath refuses paths that are not clean, relative and inside the
// worktree: git would store them verbatim and break the tree.
func checkPath(p string) error {
	bad := p == "" || path.IsAbs(p) || path.Clean(p) != p || p == "." ||
		strings.HasPrefix(p, "../") || p == ".." || strings.ContainsAny(p, "\x00\\")
	if !bad {
		for _, seg := range strings.Split(p, "/") {
			if strings.EqualFold(seg, ".git") {
				bad = true
			}
		}
	}
	if bad {
		return invalid(fmt.Sprintf("path %q is not a clean forest-relative path", p),
			"pass paths relative to the forest root with '/' separators, e.g. notes/idea.md")
	}
	return nil
}

// commitLocked does the work under r.mu. Order is what makes it atomic:
// objects first (harmless if abandoned), then the new index into
// index.lock, then the branch (the commit point), then index.lock put in
// place of the index; if that last step fails the branch is moved back.
func (r *Repo) commitLocked(ctx context.Context, text string, add, remove []string, when time.Time, opt Options) (sha string, err error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	lock, err := r.lockIndex()
	if err != nil {
		return "", err
	}
	defer lock.release()

	r.refreshPacks()
	r.batch = r.batch[:0]
	ref, parent, err := headTarget(r.refFiles(r.st))
	if err != nil {
		return "", fmt.Errorf("gitops: resolve HEAD: %w", err)
	}
	c, err := r.loadIndex()
	if err != nil {
		return "", err
	}
	// Staging edits the cached index in place: unless the commit lands,
	// forget it so the next commit reads the untouched file.
	r.cache = nil
	for _, p := range remove {
		c.remove(p) // absent already: nothing to stage
	}
	for _, p := range add {
		if err := r.stage(c, p, opt.Written[p], opt.Prehashed); err != nil {
			return "", err
		}
	}
	entries := r.startEntries()
	defer entries.wait()
	encoded := r.encodeIndex(c)
	defer encoded.wait()
	tree, err := r.writeTree(c)
	if err != nil {
		return "", err
	}
	if err := r.refuseUnchanged(c, tree, parent); err != nil {
		return "", err
	}
	h, err := r.writeCommit(text, tree, parent, when)
	if err != nil {
		return "", err
	}
	if err := r.writeCommitPack(entries); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	enc := encoded.wait()
	if _, err := lock.Write(r.indexBufs[0]); err != nil {
		return "", fmt.Errorf("gitops: write index: %w", err)
	}
	if err := setRef(r.dot, r.refs, r.refFiles(r.st), ref, h, parent); err != nil {
		return "", err
	}
	if err := lock.commit(); err != nil {
		if rerr := setRef(r.dot, r.refs, r.refFiles(r.st), ref, parent, h); rerr != nil {
			return "", fmt.Errorf("gitops: replace index: %w (and restoring %s failed: %v)", err, ref, rerr)
		}
		return "", fmt.Errorf("gitops: replace index: %w", err)
	}
	if fi, err := os.Stat(r.indexFile()); err == nil {
		c.file, c.head, c.tree, c.enc = fi, h, tree, enc
		r.cache = c
	}
	r.maybeMerge()
	return h.String(), nil
}

// encodeIndex renders c's index into r.indexBufs[0] on another goroutine.
// The file depends on the staged entries alone, not on the trees or the
// commit, and at 2,000 files it is 180 KB to render and checksum: that
// runs while the trees, the commit and its pack are written. The result
// is the new entry offsets (indexCache.enc). Until wait returns, nothing
// may touch r.indexBufs or c.enc, on any path.
func (r *Repo) encodeIndex(c *indexCache) *ahead[[]uint32] {
	// c.enc points into the last commit's index; render into the other
	// buffer. A cache without enc is encoded whole, so which buffer holds
	// what matters only while the cache lives.
	r.indexBufs[0], r.indexBufs[1] = r.indexBufs[1], r.indexBufs[0]
	return goAhead(func() []uint32 {
		var enc []uint32
		r.indexBufs[0], enc = appendIndex(r.indexBufs[0][:0], c.idx, r.indexBufs[1], c.enc)
		return enc
	})
}

// stage writes p's content as a blob and points p's index entry at it,
// with the file's stat data so git sees the worktree file as clean. data
// is what the caller wrote to p, nil when unknown (Options.Written), and
// pre may hold its hash.
func (r *Repo) stage(c *indexCache, p string, data []byte, pre *Prehashed) error {
	abs := filepath.Join(r.root, filepath.FromSlash(p))
	// Stat before reading: if the file changes in between, the stat data
	// disagrees with the blob and git re-hashes instead of trusting it.
	fi, err := os.Lstat(abs)
	if err != nil {
		return fmt.Errorf("gitops: stage %s: %w", p, err)
	}
	mode, err := filemode.NewFromOSFileMode(fi.Mode())
	if err != nil || mode == filemode.Dir || mode == filemode.Submodule {
		return fmt.Errorf("gitops: stage %s: not a regular file or symlink (%s)", p, fi.Mode())
	}
	switch {
	case mode == filemode.Symlink:
		target, lerr := os.Readlink(abs)
		data, err = []byte(filepath.ToSlash(target)), lerr
	case data == nil || int64(len(data)) != fi.Size():
		data, err = os.ReadFile(abs)
	}
	if err != nil {
		return fmt.Errorf("gitops: stage %s: %w", p, err)
	}
	// A file rewritten with the bytes the index has for it needs no blob.
	h, ok := pre.sum(p, data)
	if !ok {
		h = plumbing.ComputeHash(plumbing.BlobObject, data)
	}
	if !c.holds(p, h) {
		r.putHashed(h, plumbing.BlobObject, data, p)
	}
	e := c.entry(p)
	*e = index.Entry{Name: p, Hash: h, Mode: mode, ModifiedAt: fi.ModTime(), Size: uint32(fi.Size())}
	fillStat(e, fi)
	return nil
}

// putObject adds an object to the commit's pack (pack.go) and returns its
// hash. key names the path the object is a version of, so the round
// stores it as a delta against an earlier version ("" for none).
func (r *Repo) putObject(t plumbing.ObjectType, data []byte, key string) plumbing.Hash {
	h := plumbing.ComputeHash(t, data)
	r.putHashed(h, t, data, key)
	return h
}

// putHashed is putObject for data already hashed as h. An object the
// round or this commit holds already is not added again. One only an older
// pack or a loose file holds is: asking the store cost a lookup through
// go-git's chroot for every object of every commit (about 20 us each),
// for a hit that comes only when content returns to an earlier version,
// and a duplicate object is harmless to git and go-git alike.
func (r *Repo) putHashed(h plumbing.Hash, t plumbing.ObjectType, data []byte, key string) {
	if _, ok := r.pend.at[h]; ok || slices.ContainsFunc(r.batch, func(o newObject) bool { return o.hash == h }) {
		return
	}
	r.batch = append(r.batch, newObject{hash: h, typ: t, data: data, key: key})
}

// refuseUnchanged refuses a commit whose tree is HEAD's: git would refuse
// it too, and an empty commit records no write.
func (r *Repo) refuseUnchanged(c *indexCache, tree, parent plumbing.Hash) error {
	same := tree == emptyTree
	switch {
	case parent.IsZero():
	case parent == c.head:
		same = c.tree == tree
	default:
		hc, err := object.GetCommit(r.st, parent)
		if err != nil {
			// In a pack of ours the write storage has not indexed, or
			// listed in one a merge has deleted since (pack.go).
			r.st.Reindex()
			hc, err = object.GetCommit(r.st, parent)
		}
		if err != nil {
			return fmt.Errorf("gitops: read HEAD commit: %w", err)
		}
		same = hc.TreeHash == tree
	}
	if !same {
		return nil
	}
	return refuse(ErrNothingToCommit, envelope.Schema,
		"nothing to commit: the staged .md files are byte-identical to the last commit",
		"skip the commit when a write changes no bytes")
}

// emptyTree is the hash of the tree with no entries.
var emptyTree = plumbing.ComputeHash(plumbing.TreeObject, nil)

func (r *Repo) writeCommit(text string, tree, parent plumbing.Hash, when time.Time) (plumbing.Hash, error) {
	sig := object.Signature{Name: Author.Name, Email: Author.Email, When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: text, TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	o := &plumbing.MemoryObject{}
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitops: encode commit: %w", err)
	}
	data, err := readAll(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitops: encode commit: %w", err)
	}
	return r.putObject(plumbing.CommitObject, data, ""), nil
}

// readAll is the content of an in-memory object.
func readAll(o *plumbing.MemoryObject) ([]byte, error) {
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// fillStat is replaced per platform to record the stat fields git compares.
var fillStat = func(*index.Entry, fs.FileInfo) {}
