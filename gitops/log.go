// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Entry is one commit of a file's history.
type Entry struct {
	SHA     string    // full commit sha
	Subject string    // git's %s: the message's first paragraph on one line
	Message string    // the whole message
	Action  string    // ParseAction(Subject)
	By      string    // ParsePrincipal(Message); "" for engine-only writes
	When    time.Time // author date, in the author's zone
	Path    string    // the file's path at this commit
}

// renameScore is git's default similarity threshold for rename detection.
const renameScore = 50

// Log lists the commits that changed path (root-relative, slash-separated),
// newest first, at most limit of them (limit <= 0: all). It is `git log --
// path`: a commit is listed when the file's blob or mode differs from its
// parent's, which includes the commit that deleted it; a merge is listed
// only when it differs from every parent, and is otherwise walked through
// the parent it agrees with.
//
// With follow, a commit where the path appears continues under the path it
// came from, so a transplanted node's past is whole. The rule: a commit
// whose subject is TransplantSubject(old, new), with path = new + ".md",
// old + ".md" present in the parent and gone in the commit, is a move from
// old + ".md" — a transplant rewrites the passport, so its content alone
// need not look like a rename. Any other commit where the path appears is
// matched by git's own rename detection (similarity >= 50%) against the
// paths it deleted.
func (r *Repo) Log(ctx context.Context, path string, limit int, follow bool) ([]Entry, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	st := r.reader()
	head, err := headHash(r.refFiles(st))
	if err != nil {
		return nil, fmt.Errorf("gitops: log: resolve HEAD: %w", err)
	}
	if head.IsZero() {
		return nil, nil
	}
	w := &walker{ctx: ctx, st: st, follow: follow, memo: map[memoKey]blobAt{}, seen: map[plumbing.Hash]bool{}}
	out, err := w.walk(head, path, limit)
	if err != nil {
		return nil, fmt.Errorf("gitops: log %s: %w", path, err)
	}
	return out, nil
}

// blobAt is what a path names in one commit's tree.
type blobAt struct {
	hash   plumbing.Hash
	mode   filemode.FileMode
	exists bool
}

type memoKey struct {
	tree plumbing.Hash
	path string
}

type walker struct {
	ctx    context.Context
	st     storer.EncodedObjectStorer
	follow bool
	memo   map[memoKey]blobAt
	seen   map[plumbing.Hash]bool
	queue  commitQueue
}

func (w *walker) walk(head plumbing.Hash, path string, limit int) ([]Entry, error) {
	c, err := object.GetCommit(w.st, head)
	if err != nil {
		return nil, err
	}
	w.push(c, path)
	var out []Entry
	for w.queue.Len() > 0 && (limit <= 0 || len(out) < limit) {
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		it := heap.Pop(&w.queue).(queued)
		show, err := w.visit(it.c, it.path)
		if err != nil {
			return nil, err
		}
		if show {
			out = append(out, entryOf(it.c, it.path))
		}
	}
	return out, nil
}

// visit decides whether c changed path and queues the parents to walk.
func (w *walker) visit(c *object.Commit, path string) (bool, error) {
	cur, err := w.at(c, path)
	if err != nil {
		return false, err
	}
	parents, err := w.parents(c)
	if err != nil {
		return false, err
	}
	if len(parents) == 0 {
		return cur.exists, nil
	}
	var differs []*object.Commit
	for _, p := range parents {
		pb, err := w.at(p, path)
		if err != nil {
			return false, err
		}
		if pb == cur {
			// Unchanged against this parent: not listed, and for a merge
			// only the side the file came from is walked (git's history
			// simplification).
			w.push(p, path)
			return false, nil
		}
		differs = append(differs, p)
	}
	for _, p := range differs {
		next := path
		if w.follow && cur.exists {
			if pb, _ := w.at(p, path); !pb.exists {
				if from, err := w.renamedFrom(c, p, path); err != nil {
					return false, err
				} else if from != "" {
					next = from
				}
			}
		}
		w.push(p, next)
	}
	return true, nil
}

func (w *walker) push(c *object.Commit, path string) {
	if w.seen[c.Hash] {
		return
	}
	w.seen[c.Hash] = true
	heap.Push(&w.queue, queued{c: c, path: path, seq: w.queue.next})
	w.queue.next++
}

// parents loads c's parents; a parent missing from the store (a shallow
// clone's boundary) ends the walk there, as it does for git.
func (w *walker) parents(c *object.Commit) ([]*object.Commit, error) {
	var ps []*object.Commit
	for _, h := range c.ParentHashes {
		p, err := object.GetCommit(w.st, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// at resolves path in c's tree. Lookups are memoized by (tree, rest of
// path) at every level, so walking commits that left the path's directory
// alone costs one root tree read each: the unchanged subtree hash is
// already known.
func (w *walker) at(c *object.Commit, path string) (blobAt, error) {
	return w.lookup(c.TreeHash, path)
}

func (w *walker) lookup(tree plumbing.Hash, path string) (blobAt, error) {
	key := memoKey{tree, path}
	if b, ok := w.memo[key]; ok {
		return b, nil
	}
	t, err := object.GetTree(w.st, tree)
	if err != nil {
		return blobAt{}, err
	}
	seg, rest, nested := strings.Cut(path, "/")
	var b blobAt
	e, err := t.FindEntry(seg)
	switch {
	case errors.Is(err, object.ErrEntryNotFound):
	case err != nil:
		return blobAt{}, err
	case !nested && e.Mode != filemode.Dir:
		b = blobAt{hash: e.Hash, mode: e.Mode, exists: true}
	case nested && e.Mode == filemode.Dir:
		if b, err = w.lookup(e.Hash, rest); err != nil {
			return blobAt{}, err
		}
	}
	w.memo[key] = b
	return b, nil
}

// renamedFrom names the path that became path in c, or "" (see Log).
func (w *walker) renamedFrom(c, parent *object.Commit, path string) (string, error) {
	if oldID, newID, ok := parseTransplant(subjectOf(c.Message)); ok && newID+".md" == path {
		old := oldID + ".md"
		before, err := w.at(parent, old)
		if err != nil {
			return "", err
		}
		after, err := w.at(c, old)
		if err != nil {
			return "", err
		}
		if before.exists && !after.exists {
			return old, nil
		}
	}
	from, err := parent.Tree()
	if err != nil {
		return "", err
	}
	to, err := c.Tree()
	if err != nil {
		return "", err
	}
	changes, err := object.DiffTreeWithOptions(w.ctx, from, to,
		&object.DiffTreeOptions{DetectRenames: true, RenameScore: renameScore})
	if err != nil {
		return "", err
	}
	for _, ch := range changes {
		if ch.To.Name == path && ch.From.Name != "" && ch.From.Name != path {
			return ch.From.Name, nil
		}
	}
	return "", nil
}

// parseTransplant reads `transplant(<old> -> <new>)`.
func parseTransplant(subject string) (oldID, newID string, ok bool) {
	inner, found := strings.CutPrefix(subject, "transplant(")
	if !found {
		return "", "", false
	}
	inner, found = strings.CutSuffix(inner, ")")
	if !found {
		return "", "", false
	}
	oldID, newID, found = strings.Cut(inner, " -> ")
	oldID, newID = strings.TrimSpace(oldID), strings.TrimSpace(newID)
	if !found || oldID == "" || newID == "" {
		return "", "", false
	}
	return oldID, newID, true
}

func entryOf(c *object.Commit, path string) Entry {
	subject := subjectOf(c.Message)
	return Entry{
		SHA:     c.Hash.String(),
		Subject: subject,
		Message: c.Message,
		Action:  ParseAction(subject),
		By:      ParsePrincipal(c.Message),
		When:    c.Author.When,
		Path:    path,
	}
}

// commitQueue orders commits newest committer date first, as git log does;
// ties keep discovery order.
type commitQueue struct {
	items []queued
	next  int
}

type queued struct {
	c    *object.Commit
	path string
	seq  int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.c.Committer.When.Equal(b.c.Committer.When) {
		return a.c.Committer.When.After(b.c.Committer.When)
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}
