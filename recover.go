package vine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/envelope"
	"github.com/monkeyllm/vine/internal/journal"
)

// Recovery is what a writable Open repaired after a writer died in the
// middle of a write (kill -9, a crash). Every write notes each file it is
// about to touch in an intent log first (internal/journal); the next
// writer reads that log and settles the write one way, decided by git:
// if its commit had reached the branch the write is completed (the index,
// the catalog), otherwise every file it touched is put back as HEAD has
// it. Either way the forest is again what a commit describes, and every
// write that was acknowledged is in HEAD.
type Recovery struct {
	// Op is the interrupted write: plant, graft, prune, transplant, ...
	Op string `json:"op"`
	// Completed is true when the write's commit had landed and the write
	// was finished, false when it was undone.
	Completed bool `json:"completed"`
	// Head is HEAD after the repair.
	Head string `json:"head"`
	// Actions lists each repair, one line each.
	Actions []string `json:"actions"`
}

// Recovered is the last repair v made of a write another writer left
// half-done (when it opened, or before one of its writes), nil when the
// forest never needed one.
func (v *Vine) Recovered() *Recovery { return v.recovery.Load() }

// recoverWrite repairs the write a dead writer left, if any. It runs with
// the writer lock held and before any write of this Vine; crashed is set
// when that writer was another process (Open), whose git lock files are
// settled too. A failed write of this process (settle) released its own.
func (v *Vine) recoverWrite(ctx context.Context, crashed bool) (*Recovery, error) {
	if v.journal == nil {
		return nil, nil
	}
	recs, began, err := v.journal.Pending()
	if err != nil {
		// Nothing says what the log describes; keep it for a person and
		// refuse to write over it.
		return nil, envelope.New(envelope.Locked, "an interrupted write left an unreadable intent log: "+err.Error(),
			"move .git/"+journal.FileName+" aside after checking `git status` in the forest, then open it again")
	}
	if recs == nil {
		return nil, v.journal.Discard()
	}
	base := recs[0].Base
	head, err := v.repo.Head()
	if err != nil {
		return nil, err
	}
	landed := head != base
	if landed {
		if parent, err := v.repo.Parent(head); err != nil || parent != base {
			return nil, envelope.New(envelope.Locked,
				"an interrupted write's branch has moved on since it began, so it cannot be settled safely",
				"check `git log` and `git status` in the forest, restore the files by hand, then remove .git/"+journal.FileName)
		}
	}
	rec := &Recovery{Op: recs[0].Op, Completed: landed, Head: head}
	if crashed {
		acts, err := v.repo.FinishInterrupted(began, landed)
		rec.Actions = append(rec.Actions, acts...)
		if err != nil {
			return nil, err
		}
	}
	if landed {
		err = v.completeWrite(ctx, recs[1:], rec)
	} else {
		err = v.undoWrite(recs[1:], head, rec)
	}
	if err != nil {
		return nil, err
	}
	v.sweepTemps(recs[1:], rec)
	if err := v.journal.Discard(); err != nil {
		return nil, err
	}
	if !crashed {
		return rec, nil
	}
	v.log.Warn("repaired an interrupted write", "op", rec.Op, "completed", rec.Completed, "actions", rec.Actions)
	return rec, nil
}

// undoWrite puts every file the write touched back as HEAD has it, newest
// change first.
func (v *Vine) undoWrite(recs []journal.Record, head string, rec *Recovery) error {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		var err error
		switch r.Kind {
		case journal.Put, journal.Remove:
			err = v.restoreFromHead(head, r.Path, rec)
		case journal.Move:
			err = v.moveBack(r.Path, r.To, rec)
		case journal.Born:
			err = v.unbornFile(r.Path, rec)
		case journal.Dir:
			v.removeEmptyDirs(r.Path, rec)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// completeWrite brings the derived catalog in step with a landed commit:
// the files are final, only the steps after the commit were lost.
func (v *Vine) completeWrite(ctx context.Context, recs []journal.Record, rec *Recovery) error {
	var written, removed []string
	for _, r := range recs {
		switch r.Kind {
		case journal.Put:
			written = append(written, r.Path)
		case journal.Remove:
			removed = append(removed, r.Path)
		}
	}
	put, del, err := v.indexAgain(ctx, written, removed)
	if err != nil {
		return err
	}
	rec.Actions = append(rec.Actions, fmt.Sprintf("brought the catalog in step: %d node(s) written, %d removed", put, del))
	v.loadDialect()
	return nil
}

// indexAgain brings the catalog in step with node files (forest-relative
// paths) that were written or removed behind its back: the written ones
// are read and upserted, the removed ones deleted. Paths that are not
// node files are passed over. It answers how many rows it wrote and
// deleted.
func (v *Vine) indexAgain(ctx context.Context, written, removed []string) (put, del int, err error) {
	var recs []catalog.Record
	for _, p := range written {
		if id, ok := nodePath(p); ok {
			if n, err := v.readNode(id); err == nil {
				recs = append(recs, recordOf(n))
			}
		}
	}
	var ids []string
	for _, p := range removed {
		if id, ok := nodePath(p); ok {
			ids = append(ids, id)
		}
	}
	if len(recs) > 0 {
		if err := v.cat.Upsert(ctx, recs...); err != nil {
			return 0, 0, err
		}
	}
	if len(ids) > 0 {
		if err := v.cat.Delete(ctx, ids...); err != nil {
			return len(recs), 0, err
		}
	}
	return len(recs), len(ids), nil
}

// nodePath is the id of a versioned node file path.
func nodePath(p string) (string, bool) {
	id, ok := strings.CutSuffix(p, forest.NodeExt)
	return id, ok && gitops.Versioned(p)
}

// local maps a forest-relative path of the intent log to its file,
// inside the forest.
func (v *Vine) local(rel string) (string, bool) {
	p, err := v.root.File(rel)
	return p, err == nil
}

// restoreFromHead makes rel hold what HEAD holds there, or nothing.
func (v *Vine) restoreFromHead(head, rel string, rec *Recovery) error {
	file, ok := v.local(rel)
	if !ok {
		return nil
	}
	want, inHead, err := v.repo.FileAt(head, rel)
	if err != nil {
		return err
	}
	have, err := forest.ReadFile(file)
	switch {
	case !inHead && errors.Is(err, fs.ErrNotExist):
		return nil
	case !inHead:
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		rec.Actions = append(rec.Actions, "removed "+rel+", which no commit holds")
		return nil
	case err == nil && bytes.Equal(have, want):
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := writeAtomic(file, want); err != nil {
		return err
	}
	rec.Actions = append(rec.Actions, "restored "+rel+" as HEAD has it")
	return nil
}

// moveBack returns a file outside git (a payload) to where it was, when it
// reached its destination and its origin is free.
func (v *Vine) moveBack(from, to string, rec *Recovery) error {
	src, ok1 := v.local(to)
	dst, ok2 := v.local(from)
	if !ok1 || !ok2 || !exists(src) || exists(dst) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	rec.Actions = append(rec.Actions, "moved "+to+" back to "+from)
	return nil
}

// unbornFile removes a payload the write created, with SQLite's files.
func (v *Vine) unbornFile(rel string, rec *Recovery) error {
	file, ok := v.local(rel)
	if !ok {
		return nil
	}
	removed := false
	for _, f := range append([]string{file}, sidecarsOf(file)...) {
		if err := os.Remove(f); err == nil {
			removed = true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if removed {
		rec.Actions = append(rec.Actions, "removed "+rel+", a payload no commit names")
	}
	return nil
}

// sidecarsOf lists the SQLite files beside a database.
func sidecarsOf(file string) []string {
	out := make([]string, len(sqliteSidecars))
	for i, s := range sqliteSidecars {
		out[i] = file + s
	}
	return out
}

// removeEmptyDirs removes a directory the write created, and the empty
// directories below it; a directory holding any file is kept.
func (v *Vine) removeEmptyDirs(rel string, rec *Recovery) {
	dir, ok := v.local(rel)
	if !ok || dir == v.root.Dir() {
		return
	}
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	slices.Reverse(dirs) // deepest first
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
	if !exists(dir) {
		rec.Actions = append(rec.Actions, "removed the empty folder "+rel)
	}
}

// sweepTemps removes the temporary files writeAtomic may have left in the
// folders the write touched.
func (v *Vine) sweepTemps(recs []journal.Record, rec *Recovery) {
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Kind != journal.Put {
			continue
		}
		dir := path.Dir(r.Path)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		abs, ok := v.local(dir)
		if dir == "." {
			abs, ok = v.root.Dir(), true
		}
		if !ok {
			continue
		}
		tmps, _ := filepath.Glob(filepath.Join(abs, tempPattern))
		for _, t := range tmps {
			if os.Remove(t) == nil {
				rel, _ := filepath.Rel(v.root.Dir(), t)
				rec.Actions = append(rec.Actions, "removed the temporary file "+filepath.ToSlash(rel))
			}
		}
	}
}
