// SPDX-License-Identifier: Apache-2.0

// Package recovery settles a write a dead writer left half-done. Every
// write notes each file it is about to touch in an intent log first
// (internal/journal); the next writer reads that log and settles the
// write one way, decided by git: if its commit had reached the branch the
// write is completed (the derived catalog is brought in step), otherwise
// every file it touched is put back as HEAD has it, and the catalog with
// them: a writer updates its catalog while git commits, so the catalog
// may hold a write whose commit never landed. Either way the forest is
// again what a commit describes, and every acknowledged write is in HEAD.
//
// A Recoverer runs with the forest's writer lock held and is not safe for
// concurrent use; the lock and the writer's mutex serialise its callers.
package recovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/journal"
	"github.com/monkeyllm/vine/internal/replace"
)

// Result is what one repair did.
type Result struct {
	Op        string   // the interrupted write: plant, graft, prune, ...
	Completed bool     // the commit had landed and the write was finished
	Head      string   // HEAD after the repair
	Actions   []string // each repair, one line each
}

// CompleteFunc brings the derived state in step with node files (forest-
// relative paths): written ones are read again, removed ones dropped. It
// answers how many catalog rows it wrote and deleted. A landed write is
// completed with the files it changed; an undone one is followed by the
// files it put back (written) and the new ones it took away (removed).
type CompleteFunc func(ctx context.Context, written, removed []string) (put, del int, err error)

// Recoverer repairs the write a dead writer left. A nil Journal (a
// read-only forest) has nothing to repair.
type Recoverer struct {
	journal  *journal.Log
	repo     *gitops.Repo
	root     forest.Root
	complete CompleteFunc
	log      *slog.Logger
}

// New returns a Recoverer of the forest at root, whose writes j logs and
// repo commits; complete brings the catalog in step with the files a
// repair settled.
func New(j *journal.Log, repo *gitops.Repo, root forest.Root, complete CompleteFunc, log *slog.Logger) *Recoverer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recoverer{journal: j, repo: repo, root: root, complete: complete, log: log}
}

// Recover repairs the write a dead writer left, if any; nil when there was
// none. It runs with the writer lock held and before any write of its
// caller; crashed is set when that writer was another process, whose git
// lock files are settled too. A failed write of this process released its
// own.
func (r *Recoverer) Recover(ctx context.Context, crashed bool) (*Result, error) {
	if r == nil || r.journal == nil {
		return nil, nil
	}
	recs, began, err := r.journal.Pending()
	if err != nil {
		// Nothing says what the log describes; keep it for a person and
		// refuse to write over it.
		return nil, envelope.New(envelope.Locked, "an interrupted write left an unreadable intent log: "+err.Error(),
			"move .git/"+journal.FileName+" aside after checking `git status` in the forest, then open it again")
	}
	if recs == nil {
		return nil, r.journal.Discard()
	}
	res, err := r.settle(ctx, recs, began, crashed)
	if err != nil {
		return nil, err
	}
	r.sweepTemps(recs[1:], res)
	if err := r.journal.Discard(); err != nil {
		return nil, err
	}
	if crashed {
		r.log.Warn("repaired an interrupted write", "op", res.Op, "completed", res.Completed, "actions", res.Actions)
	}
	return res, nil
}

// settle decides from HEAD whether the logged write landed, then completes
// or undoes it.
func (r *Recoverer) settle(ctx context.Context, recs []journal.Record, began time.Time, crashed bool) (*Result, error) {
	base := recs[0].Base
	head, err := r.repo.Head()
	if err != nil {
		return nil, err
	}
	landed := head != base
	if landed {
		// A write moves HEAD by one commit; a pull by a merge commit on
		// base, or by a fast-forward of any length: base is then an
		// ancestor of HEAD either way.
		if ok, err := descends(r.repo, base, head); err != nil || !ok {
			return nil, envelope.New(envelope.Locked,
				"an interrupted write's branch has moved on since it began, so it cannot be settled safely",
				"check `git log` and `git status` in the forest, restore the files by hand, then remove .git/"+journal.FileName)
		}
	}
	res := &Result{Op: recs[0].Op, Completed: landed, Head: head}
	if crashed {
		acts, err := r.repo.FinishInterrupted(began, landed)
		res.Actions = append(res.Actions, acts...)
		if err != nil {
			return nil, err
		}
	}
	if landed {
		err = r.completeWrite(ctx, recs[1:], res)
	} else {
		err = r.undoWrite(ctx, recs[1:], head, res)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// descends reports whether head descends from base; every commit
// descends from an unborn branch's "".
func descends(repo *gitops.Repo, base, head string) (bool, error) {
	if base == "" {
		return true, nil
	}
	return repo.IsAncestor(base, head)
}

// completeWrite brings the derived catalog in step with a landed commit:
// the files are final, only the steps after the commit were lost.
func (r *Recoverer) completeWrite(ctx context.Context, recs []journal.Record, res *Result) error {
	var written, removed []string
	for _, rec := range recs {
		switch rec.Kind {
		case journal.Put:
			written = append(written, rec.Path)
		case journal.Remove:
			removed = append(removed, rec.Path)
		}
	}
	put, del, err := r.complete(ctx, written, removed)
	if err != nil {
		return err
	}
	res.Actions = append(res.Actions, fmt.Sprintf("brought the catalog in step: %d node(s) written, %d removed", put, del))
	return nil
}

// undoWrite puts every file the write touched back as HEAD has it, newest
// change first, then the catalog rows of its node files.
func (r *Recoverer) undoWrite(ctx context.Context, recs []journal.Record, head string, res *Result) error {
	if err := r.restoreAll(recs, head, res); err != nil {
		return err
	}
	var back, gone []string
	seen := make(map[string]bool)
	for _, rec := range recs {
		if rec.Kind != journal.Put && rec.Kind != journal.Remove || seen[rec.Path] {
			continue
		}
		seen[rec.Path] = true
		if p, ok := r.local(rec.Path); ok && exists(p) {
			back = append(back, rec.Path)
		} else {
			gone = append(gone, rec.Path)
		}
	}
	if r.complete == nil || len(back)+len(gone) == 0 {
		return nil
	}
	put, del, err := r.complete(ctx, back, gone)
	if err != nil {
		return err
	}
	res.Actions = append(res.Actions, fmt.Sprintf("put the catalog back with the files: %d node(s) written, %d removed", put, del))
	return nil
}

// restoreAll undoes each logged change, newest first.
func (r *Recoverer) restoreAll(recs []journal.Record, head string, res *Result) error {
	for i := len(recs) - 1; i >= 0; i-- {
		rec := recs[i]
		var err error
		switch rec.Kind {
		case journal.Put, journal.Remove:
			err = r.restoreFromHead(head, rec.Path, res)
		case journal.Move:
			err = r.moveBack(rec.Path, rec.To, res)
		case journal.Born:
			err = r.unbornFile(rec.Path, res)
		case journal.Dir:
			r.removeEmptyDirs(rec.Path, res)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// local maps a forest-relative path of the intent log to its file,
// inside the forest.
func (r *Recoverer) local(rel string) (string, bool) {
	p, err := r.root.File(rel)
	return p, err == nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TempPattern names WriteAtomic's temporary files; a repair sweeps them.
const TempPattern = ".vine-*.tmp"

// Sidecars are the files SQLite may keep beside a database; they belong to
// the payload and travel (and are removed) with it.
var Sidecars = []string{"-wal", "-shm", "-journal"}

// WriteAtomic replaces path with data through a temporary file named after
// TempPattern put in place by replace.File, so a reader never sees half a
// file and a repair can sweep what a killed writer left (the new file
// before the swap, the old one after it).
func WriteAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPattern)
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return err
	}
	if err := replace.File(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}
