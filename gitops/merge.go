// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// How a pull joins two histories.
//
// The merge is per path, three-way: base is the merge base of ours (HEAD)
// and theirs (the fetched branch). A path only one side changed takes that
// side; a path both sides changed to the same bytes is that; a path both
// sides changed differently is a conflict. A forest's unit of meaning is
// the node file, so a conflict names nodes, never lines, and a person (or
// Prefer) decides whose node wins.
//
// A pull is planned first (PlanMerge), without touching anything; the
// caller writes the planned files into the worktree under its intent log,
// then FinishMerge moves the index and the branch, in commitLocked's
// order (index.lock, branch, rename), so a writer killed half-way is
// repaired the same way.

// MergeKind says what a pull has to do.
type MergeKind string

// The kinds of pull.
const (
	UpToDate    MergeKind = "up-to-date"   // theirs is already in ours
	Ahead       MergeKind = "ahead"        // ours descends from theirs: nothing to take, push instead
	FastForward MergeKind = "fast-forward" // ours is in theirs: move to theirs
	Merge       MergeKind = "merge"        // both wrote: a merge commit
)

// A Resolver joins two sides' different edits of one path from its three
// versions (base nil when both sides added the path). It answers the
// merged bytes, or ok false to leave the path a conflict. gitops knows no
// file format: the caller, who does, resolves the files it can (a branch
// index both sides added entries to).
type Resolver func(path string, base, ours, theirs []byte) (merged []byte, ok bool)

// Prefer settles conflicting paths: "" refuses, PreferOurs keeps ours,
// PreferTheirs takes theirs.
type Prefer string

// The ways to settle a conflict.
const (
	PreferNone   Prefer = ""
	PreferOurs   Prefer = "ours"
	PreferTheirs Prefer = "theirs"
)

// Change is one file a pull writes into the worktree.
type Change struct {
	Path    string // forest-relative, "/"-separated
	Hash    string // the blob to write; "" when the file is removed
	Mode    filemode.FileMode
	OurHash string // the blob ours has there; "" when ours has none
}

// Removed reports whether the change deletes the file.
func (c Change) Removed() bool { return c.Hash == "" }

// MergePlan is a planned pull.
type MergePlan struct {
	Kind      MergeKind
	Ours      string   // HEAD when planned
	Theirs    string   // the fetched commit
	Base      string   // the merge base ("" for none)
	Changes   []Change // files to write, by path
	Conflicts []string // paths both sides changed differently (unsettled)
	Settled   []string // conflicting paths Prefer settled
	Resolved  []string // conflicting paths the Resolver joined
	files     map[string]treeFile
}

type treeFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// PlanMerge plans joining theirs into HEAD. A path both sides changed
// differently goes to resolve first (nil: none), then to prefer. It
// writes nothing but the blobs resolve merged, which no ref names yet.
func (r *Repo) PlanMerge(theirs string, prefer Prefer, resolve Resolver) (*MergePlan, error) {
	st := r.reader()
	oursH, err := headHash(r.refFiles(st))
	if err != nil {
		return nil, fmt.Errorf("gitops: head: %w", err)
	}
	p := &MergePlan{Ours: oursH.String(), Theirs: theirs}
	tc, err := object.GetCommit(st, plumbing.NewHash(theirs))
	if err != nil {
		return nil, fmt.Errorf("gitops: read fetched commit %s: %w", theirs, err)
	}
	if oursH.IsZero() {
		p.Ours, p.Kind = "", FastForward
		return p, r.planFiles(p, nil, nil, tc)
	}
	if oursH == tc.Hash {
		p.Kind = UpToDate
		return p, nil
	}
	oc, err := object.GetCommit(st, oursH)
	if err != nil {
		return nil, fmt.Errorf("gitops: read HEAD: %w", err)
	}
	if in, err := tc.IsAncestor(oc); err != nil {
		return nil, fmt.Errorf("gitops: ancestry: %w", err)
	} else if in {
		p.Kind = Ahead
		return p, nil
	}
	if in, err := oc.IsAncestor(tc); err != nil {
		return nil, fmt.Errorf("gitops: ancestry: %w", err)
	} else if in {
		p.Kind = FastForward
		return p, r.planFiles(p, oc, nil, tc)
	}
	bases, err := oc.MergeBase(tc)
	if err != nil {
		return nil, fmt.Errorf("gitops: merge base: %w", err)
	}
	var bc *object.Commit
	if len(bases) > 0 {
		bc = bases[0]
		p.Base = bc.Hash.String()
	}
	p.Kind = Merge
	return p, r.planMerged(p, oc, bc, tc, prefer, resolve)
}

// filesOf lists a commit's files; nil commit, none.
func filesOf(c *object.Commit) (map[string]treeFile, error) {
	out := map[string]treeFile{}
	if c == nil {
		return out, nil
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	err = t.Files().ForEach(func(f *object.File) error {
		out[f.Name] = treeFile{hash: f.Hash, mode: f.Mode}
		return nil
	})
	return out, err
}

// planFiles plans moving the worktree from ours to theirs' files.
func (r *Repo) planFiles(p *MergePlan, oc, _ *object.Commit, tc *object.Commit) error {
	ours, err := filesOf(oc)
	if err != nil {
		return fmt.Errorf("gitops: list HEAD: %w", err)
	}
	next, err := filesOf(tc)
	if err != nil {
		return fmt.Errorf("gitops: list fetched commit: %w", err)
	}
	p.files = next
	p.Changes = diffFiles(ours, next)
	return nil
}

// planMerged merges the three trees path by path.
func (r *Repo) planMerged(p *MergePlan, oc, bc, tc *object.Commit, prefer Prefer, resolve Resolver) error {
	ours, err := filesOf(oc)
	if err != nil {
		return fmt.Errorf("gitops: list HEAD: %w", err)
	}
	base, err := filesOf(bc)
	if err != nil {
		return fmt.Errorf("gitops: list merge base: %w", err)
	}
	theirs, err := filesOf(tc)
	if err != nil {
		return fmt.Errorf("gitops: list fetched commit: %w", err)
	}
	merged := map[string]treeFile{}
	for _, path := range unionKeys(ours, base, theirs) {
		o, oOK := ours[path]
		b, bOK := base[path]
		t, tOK := theirs[path]
		same := func(x treeFile, xOK bool, y treeFile, yOK bool) bool { return xOK == yOK && x == y }
		pick, pickOK := o, oOK
		switch {
		case same(o, oOK, t, tOK), same(t, tOK, b, bOK):
		case same(o, oOK, b, bOK):
			pick, pickOK = t, tOK
		case oOK && tOK && r.resolveInto(&pick, resolve, path, b, bOK, o, t):
			p.Resolved = append(p.Resolved, path)
		case prefer == PreferTheirs:
			pick, pickOK = t, tOK
			p.Settled = append(p.Settled, path)
		case prefer == PreferOurs:
			p.Settled = append(p.Settled, path)
		default:
			p.Conflicts = append(p.Conflicts, path)
		}
		if pickOK {
			merged[path] = pick
		}
	}
	p.files = merged
	p.Changes = diffFiles(ours, merged)
	return nil
}

// resolveInto asks resolve to join ours and theirs at path and, when it
// can, stores the merged blob and points pick at it.
func (r *Repo) resolveInto(pick *treeFile, resolve Resolver, path string, b treeFile, bOK bool, o, t treeFile) bool {
	if resolve == nil || o.mode != t.mode || o.mode != filemode.Regular {
		return false
	}
	var base []byte
	if bOK {
		var err error
		if base, err = r.Blob(b.hash.String()); err != nil {
			return false
		}
	}
	ours, err := r.Blob(o.hash.String())
	if err != nil {
		return false
	}
	theirs, err := r.Blob(t.hash.String())
	if err != nil {
		return false
	}
	merged, ok := resolve(path, base, ours, theirs)
	if !ok {
		return false
	}
	blob := r.reader().NewEncodedObject()
	blob.SetType(plumbing.BlobObject)
	blob.SetSize(int64(len(merged)))
	w, err := blob.Writer()
	if err != nil {
		return false
	}
	if _, err := w.Write(merged); err != nil || w.Close() != nil {
		return false
	}
	h, err := r.reader().SetEncodedObject(blob)
	if err != nil {
		return false
	}
	*pick = treeFile{hash: h, mode: o.mode}
	return true
}

func unionKeys(ms ...map[string]treeFile) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// diffFiles lists what turns from into to.
func diffFiles(from, to map[string]treeFile) []Change {
	var out []Change
	for _, path := range unionKeys(from, to) {
		f, fOK := from[path]
		t, tOK := to[path]
		switch {
		case fOK && tOK && f == t:
		case !tOK:
			out = append(out, Change{Path: path, OurHash: f.hash.String()})
		default:
			c := Change{Path: path, Hash: t.hash.String(), Mode: t.mode}
			if fOK {
				c.OurHash = f.hash.String()
			}
			out = append(out, c)
		}
	}
	return out
}

// Blob is the content of a blob (a Change's Hash).
func (r *Repo) Blob(hash string) ([]byte, error) {
	b, err := object.GetBlob(r.reader(), plumbing.NewHash(hash))
	if err != nil {
		return nil, fmt.Errorf("gitops: read blob %s: %w", hash, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("gitops: read blob %s: %w", hash, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("gitops: read blob %s: %w", hash, err)
	}
	return data, nil
}

// FinishMerge lands a planned pull whose files the caller has written:
// for a fast-forward the branch moves to theirs, for a merge a commit
// with parents ours and theirs records the merged tree. The index is
// rebuilt for the changed paths from the files on disk. It refuses when
// HEAD moved since the plan. It answers the new HEAD.
func (r *Repo) FinishMerge(ctx context.Context, p *MergePlan, msg Message, opt Options) (string, error) {
	if p.Kind != FastForward && p.Kind != Merge {
		return p.Ours, nil
	}
	text, err := msg.render(opt.Trailers, TrailersFrom(ctx))
	if err != nil {
		return "", err
	}
	when := opt.When
	if when.IsZero() {
		when = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	lock, err := r.lockIndex()
	if err != nil {
		return "", err
	}
	defer lock.release()
	r.cache = nil
	r.st.Reindex() // the fetch added a pack this storage has not seen
	ref, cur, err := headTarget(r.refFiles(r.st))
	if err != nil {
		return "", fmt.Errorf("gitops: resolve HEAD: %w", err)
	}
	if cur.String() != p.Ours && !(cur.IsZero() && p.Ours == "") {
		return "", fmt.Errorf("gitops: HEAD moved from %s to %s during the pull", p.Ours, cur)
	}
	target := plumbing.NewHash(p.Theirs)
	if p.Kind == Merge {
		if target, err = r.storeMergeCommit(p, text, when); err != nil {
			return "", err
		}
	}
	idx, err := r.st.Index()
	if err != nil {
		return "", fmt.Errorf("gitops: read index: %w", err)
	}
	if err := r.restage(idx, p.Changes); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if _, err := lock.Write(encodeIndex(idx)); err != nil {
		return "", fmt.Errorf("gitops: write index: %w", err)
	}
	if err := setRef(r.dot, r.refs, r.refFiles(r.st), ref, target, cur); err != nil {
		return "", err
	}
	if err := lock.commit(); err != nil {
		if rerr := setRef(r.dot, r.refs, r.refFiles(r.st), ref, cur, target); rerr != nil {
			return "", fmt.Errorf("gitops: replace index: %w (and restoring %s failed: %v)", err, ref, rerr)
		}
		return "", fmt.Errorf("gitops: replace index: %w", err)
	}
	return target.String(), nil
}

// restage points the index entries of the changed paths at their new
// blobs, with the stat data of the files the caller wrote.
func (r *Repo) restage(idx *index.Index, changes []Change) error {
	for _, c := range changes {
		if c.Removed() {
			_, _ = idx.Remove(c.Path)
			continue
		}
		fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(c.Path)))
		if err != nil {
			return fmt.Errorf("gitops: stage %s: %w", c.Path, err)
		}
		e, err := idx.Entry(c.Path)
		if errors.Is(err, index.ErrEntryNotFound) {
			e = idx.Add(c.Path)
		}
		*e = index.Entry{Name: c.Path, Hash: plumbing.NewHash(c.Hash), Mode: c.Mode, ModifiedAt: fi.ModTime(), Size: uint32(fi.Size())}
		fillStat(e, fi)
	}
	sortEntries(idx)
	return nil
}

// storeMergeCommit writes the merged tree and the merge commit as loose
// objects: merges are rare, and the commit packs (pack.go) are the path
// of ordinary writes.
func (r *Repo) storeMergeCommit(p *MergePlan, text string, when time.Time) (plumbing.Hash, error) {
	tree, err := r.storeTree(p.files, "")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := object.Signature{Name: Author.Name, Email: Author.Email, When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: text, TreeHash: tree,
		ParentHashes: []plumbing.Hash{plumbing.NewHash(p.Ours), plumbing.NewHash(p.Theirs)}}
	return storeObject(r.st, c)
}

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func storeObject(st storer.EncodedObjectStorer, o encoder) (plumbing.Hash, error) {
	obj := st.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitops: encode object: %w", err)
	}
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitops: store object: %w", err)
	}
	return h, nil
}

// storeTree writes the tree of the files under prefix (recursively) and
// answers its hash.
func (r *Repo) storeTree(files map[string]treeFile, prefix string) (plumbing.Hash, error) {
	dirs := map[string]bool{}
	t := &object.Tree{}
	for path, f := range files {
		if !strings.HasPrefix(path, prefix) {
			continue
		}
		name, _, nested := strings.Cut(path[len(prefix):], "/")
		if nested {
			dirs[name] = true
			continue
		}
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: f.mode, Hash: f.hash})
	}
	for d := range dirs {
		h, err := r.storeTree(files, prefix+d+"/")
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t.Entries = append(t.Entries, object.TreeEntry{Name: d, Mode: filemode.Dir, Hash: h})
	}
	// git orders a directory as if its name ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(t.Entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	return storeObject(r.st, t)
}

// IsAncestor reports whether commit a is b or one of b's ancestors.
func (r *Repo) IsAncestor(a, b string) (bool, error) {
	if a == b {
		return true, nil
	}
	st := r.reader()
	ac, err := object.GetCommit(st, plumbing.NewHash(a))
	if err != nil {
		return false, fmt.Errorf("gitops: read commit %s: %w", a, err)
	}
	bc, err := object.GetCommit(st, plumbing.NewHash(b))
	if err != nil {
		return false, fmt.Errorf("gitops: read commit %s: %w", b, err)
	}
	return ac.IsAncestor(bc)
}
