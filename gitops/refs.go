// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/replace"
)

// maxSymrefDepth bounds symbolic-ref chains, as git does.
const maxSymrefDepth = 5

// refReader reads one reference, as storer.ReferenceStorer does.
type refReader interface {
	Reference(plumbing.ReferenceName) (*plumbing.Reference, error)
}

// refFiles reads references for a commit, which reads HEAD and its branch
// five times. Where the git directory holds its own refs (dir), a loose
// ref that is a regular file is read straight from it: go-git resolves
// the path through its chroot twice, an lstat per component for a stat
// and again for the open, and took 45 us a read. Everything else (a
// packed ref, an empty or odd file, a name that is not a plain ref path,
// a linked worktree's shared refs) is go-git's to answer, as before.
type refFiles struct {
	st  refReader
	dir string
}

func (f refFiles) Reference(name plumbing.ReferenceName) (*plumbing.Reference, error) {
	if f.dir == "" || !plainRefName(string(name)) {
		return f.st.Reference(name)
	}
	line, ok := readRefFile(filepath.Join(f.dir, filepath.FromSlash(string(name))))
	if !ok {
		return f.st.Reference(name)
	}
	return plumbing.NewReferenceFromStrings(string(name), line), nil
}

// readRefFile is the trimmed content of the loose ref file at p, when p
// is a regular file (not a symlink) of at most maxRefFile bytes holding
// more than white space; a file that changes size while it is read is
// not read either.
func readRefFile(p string) (string, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size() > maxRefFile {
		return "", false
	}
	file, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer file.Close()
	var buf [maxRefFile + 1]byte
	n, err := file.Read(buf[:])
	if err != nil || int64(n) != fi.Size() {
		return "", false
	}
	line := strings.TrimSpace(string(buf[:n]))
	return line, line != ""
}

// refFiles reads references from st, or from their files where this
// Repo's git directory holds its own refs.
func (r *Repo) refFiles(st refReader) refFiles { return refFiles{st: st, dir: r.refs} }

// maxRefFile bounds the loose ref files refFiles reads itself: a hash or
// a "ref: " line with a newline.
const maxRefFile = 1 << 10

// plainRefName reports whether name is HEAD or a clean path under refs/,
// the only names refFiles reads from a file itself.
func plainRefName(name string) bool {
	if name == string(plumbing.HEAD) {
		return true
	}
	// path.Clean leaves no "." or ".." segment and no "//"; a segment
	// starting with '.' (which git refuses too) is left to go-git.
	return strings.HasPrefix(name, "refs/") && path.Clean(name) == name &&
		!strings.Contains(name, "/.") && !strings.ContainsAny(name, "\\\x00")
}

// headTarget names the reference a commit advances — the branch HEAD points
// at, or HEAD itself when detached — and its current commit (zero while the
// branch is unborn).
func headTarget(st refReader) (plumbing.ReferenceName, plumbing.Hash, error) {
	name := plumbing.HEAD
	for range maxSymrefDepth {
		ref, err := st.Reference(name)
		if errors.Is(err, plumbing.ErrReferenceNotFound) && name != plumbing.HEAD {
			return name, plumbing.ZeroHash, nil
		}
		if err != nil {
			return "", plumbing.ZeroHash, err
		}
		if ref.Type() != plumbing.SymbolicReference {
			return name, ref.Hash(), nil
		}
		name = ref.Target()
	}
	return "", plumbing.ZeroHash, fmt.Errorf("symbolic reference chain from HEAD longer than %d", maxSymrefDepth)
}

// headHash is HEAD's commit, zero while the branch is unborn.
func headHash(st refReader) (plumbing.Hash, error) {
	_, h, err := headTarget(st)
	return h, err
}

// lockFile is git's lock protocol for one file of the git directory: create
// <name>.lock exclusively, write the new content into it, rename it over
// <name>. Until the rename the old file is untouched, and any git process
// meanwhile refuses to write <name>.
type lockFile struct {
	fs   billy.Filesystem
	name string
	f    billy.File
	done bool
	// dir, when set, is the git directory's path, and commit puts the lock
	// in place with replace.File: a swap that leaves the old content under
	// <name>.lock for an instant. A repair that finds such a lock tells
	// the old content from the new (FinishInterrupted).
	dir string
}

func acquire(fs billy.Filesystem, name string) (*lockFile, error) {
	f, err := fs.OpenFile(name+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, os.ErrExist) {
		age := ""
		if fi, serr := fs.Stat(name + ".lock"); serr == nil {
			age = fmt.Sprintf(" (made %s ago)", time.Since(fi.ModTime()).Round(time.Second))
		}
		return nil, refuse(ErrLocked, envelope.Locked,
			fmt.Sprintf("the forest's git repository is locked: %s.lock exists%s, so a git process is writing %s, or one died while writing it", name, age, name),
			"retry once that git process has finished; if no git command is running on this forest, the lock is orphaned: remove .git/"+name+".lock (the engine never overrides a git lock it did not make)")
	}
	if err != nil {
		return nil, fmt.Errorf("gitops: lock %s: %w", name, err)
	}
	return &lockFile{fs: fs, name: name, f: f}, nil
}

// lockIndex takes git's lock on the index. The index lock is put in place
// by a swap (lockFile.dir): at 2,000 files the index is 180 KB, and a
// rename over it cost 30-180 us on ext4, which starts writing a file out
// when it replaces another; the swap costs about 15.
func (r *Repo) lockIndex() (*lockFile, error) {
	l, err := acquire(r.dot, "index")
	if err == nil {
		l.dir = r.dot.Root()
	}
	return l, err
}

// Write appends to the lock file's new content.
func (l *lockFile) Write(p []byte) (int, error) { return l.f.Write(p) }

// commit closes the lock file and renames it over the target.
func (l *lockFile) commit() error {
	if err := l.f.Close(); err != nil {
		return err
	}
	rename := l.fs.Rename
	if l.dir != "" {
		rename = func(from, to string) error {
			return replace.File(filepath.Join(l.dir, filepath.FromSlash(from)), filepath.Join(l.dir, filepath.FromSlash(to)))
		}
	}
	if err := rename(l.name+".lock", l.name); err != nil {
		return err
	}
	l.done = true
	return nil
}

// release abandons the lock, leaving the target as it was. It is a no-op
// after commit, so it can be deferred.
func (l *lockFile) release() {
	if l.done {
		return
	}
	l.done = true
	_ = l.f.Close()
	_ = l.fs.Remove(l.name + ".lock")
}

// setRef moves ref from old to next under the ref's lock, refusing when the
// ref no longer holds old (another writer got there first). A zero next
// deletes the loose ref, which undoes the birth of a branch.
//
// dir is the git directory's path when the refs live in it (Repo.refs),
// else "".
func setRef(fs billy.Filesystem, dir string, st refReader, name plumbing.ReferenceName, next, old plumbing.Hash) error {
	l, err := acquire(fs, name.String())
	if err != nil {
		return err
	}
	l.dir = dir
	defer l.release()
	cur := plumbing.ZeroHash
	ref, err := st.Reference(name)
	switch {
	case err == nil:
		cur = ref.Hash()
	case !errors.Is(err, plumbing.ErrReferenceNotFound):
		return fmt.Errorf("gitops: read %s: %w", name, err)
	}
	if cur != old {
		return fmt.Errorf("gitops: %s moved from %s to %s during the commit", name, old, cur)
	}
	if next.IsZero() {
		if err := fs.Remove(name.String()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if _, err := io.WriteString(l, next.String()+"\n"); err != nil {
		return fmt.Errorf("gitops: write %s: %w", name, err)
	}
	if err := l.commit(); err != nil {
		return fmt.Errorf("gitops: update %s: %w", name, err)
	}
	return nil
}
