// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// GitDir is the absolute path of the repository's git directory, where a
// writer keeps state that must survive it but never be versioned.
func (r *Repo) GitDir() string { return r.dot.Root() }

// FileAt returns the content of path (forest-relative, "/"-separated) in
// commit's tree, and whether the tree holds a file there.
func (r *Repo) FileAt(commit, path string) ([]byte, bool, error) {
	c, err := object.GetCommit(r.reader(), plumbing.NewHash(commit))
	if err != nil {
		return nil, false, fmt.Errorf("gitops: read commit %s: %w", commit, err)
	}
	f, err := c.File(path)
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("gitops: read %s at %s: %w", path, commit, err)
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, false, fmt.Errorf("gitops: read %s at %s: %w", path, commit, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, false, fmt.Errorf("gitops: read %s at %s: %w", path, commit, err)
	}
	return data, true, nil
}

// Parent is the first parent of commit, "" for a root commit.
func (r *Repo) Parent(commit string) (string, error) {
	c, err := object.GetCommit(r.reader(), plumbing.NewHash(commit))
	if err != nil {
		return "", fmt.Errorf("gitops: read commit %s: %w", commit, err)
	}
	if len(c.ParentHashes) == 0 {
		return "", nil
	}
	return c.ParentHashes[0].String(), nil
}

// lockSlack allows for the file system's timestamp granularity when a
// lock's age is compared with the time a write began.
const lockSlack = time.Second

// FinishInterrupted settles the lock files a writer of this repository
// left when it died after since, the time its write began; the caller
// holds the forest's writer lock, so no other engine writer can own them.
// landed says whether the dead writer's commit reached the branch. If it
// did, index.lock holds the complete new index (it is written before the
// branch moves), so it is renamed into place, finishing the commit —
// unless the writer died right after swapping it in (lockIndex): then the
// index holds HEAD's tree already and the lock the old index, which is
// removed. If the commit did not land, the lock is removed. A lock older
// than since belongs to someone else and is left alone. It returns what
// it did, for the repair report.
func (r *Repo) FinishInterrupted(since time.Time, landed bool) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cache = nil
	var done []string
	ref, head, err := headTarget(r.refFiles(r.st))
	if err != nil {
		return nil, fmt.Errorf("gitops: resolve HEAD: %w", err)
	}
	for _, name := range []string{"index", ref.String()} {
		lock := name + ".lock"
		fi, err := r.dot.Stat(lock)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return done, fmt.Errorf("gitops: stat %s: %w", lock, err)
		}
		if fi.ModTime().Before(since.Add(-lockSlack)) {
			continue
		}
		if name == "index" && landed {
			swapped, err := r.indexHolds(head)
			if err != nil {
				return done, err
			}
			if !swapped {
				if err := r.dot.Rename(lock, name); err != nil {
					return done, fmt.Errorf("gitops: finish %s: %w", lock, err)
				}
				done = append(done, "completed the index of the landed commit")
				continue
			}
		}
		if err := r.dot.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
			return done, fmt.Errorf("gitops: remove %s: %w", lock, err)
		}
		done = append(done, "removed the orphaned "+lock)
	}
	return done, nil
}

// indexHolds reports whether the index describes the tree of commit h
// (false for the zero hash of an unborn branch). The trees are computed,
// not stored: the objects go to the batch of the next commit, which
// starts by emptying it.
func (r *Repo) indexHolds(h plumbing.Hash) (bool, error) {
	if h.IsZero() {
		return false, nil
	}
	head, err := object.GetCommit(r.reader(), h)
	if err != nil {
		return false, fmt.Errorf("gitops: read HEAD: %w", err)
	}
	c, err := r.loadIndex()
	if err != nil {
		return false, err
	}
	r.cache = nil
	tree, err := r.writeTree(c)
	r.batch = r.batch[:0]
	// An index no tree can be written from (a merge conflict) is not HEAD's.
	return err == nil && tree == head.TreeHash, nil
}

// HeadFiles lists the files of HEAD's tree, path to git blob hash (hex),
// for a comparison with the worktree; empty while the branch is unborn.
func (r *Repo) HeadFiles() (map[string]string, error) {
	st := r.reader()
	h, err := headHash(r.refFiles(st))
	if err != nil {
		return nil, fmt.Errorf("gitops: head: %w", err)
	}
	out := map[string]string{}
	if h.IsZero() {
		return out, nil
	}
	c, err := object.GetCommit(st, h)
	if err != nil {
		return nil, fmt.Errorf("gitops: read HEAD: %w", err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("gitops: read HEAD's tree: %w", err)
	}
	err = tree.Files().ForEach(func(f *object.File) error {
		out[f.Name] = f.Hash.String()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitops: list HEAD's tree: %w", err)
	}
	return out, nil
}

// BlobHash is the hash git gives a file holding data (hex).
func BlobHash(data []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, data).String()
}
