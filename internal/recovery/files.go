// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/journal"
)

// restoreFromHead makes rel hold what HEAD holds there, or nothing.
func (r *Recoverer) restoreFromHead(head, rel string, res *Result) error {
	file, ok := r.local(rel)
	if !ok {
		return nil
	}
	want, inHead, err := r.repo.FileAt(head, rel)
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
		res.Actions = append(res.Actions, "removed "+rel+", which no commit holds")
		return nil
	case err == nil && bytes.Equal(have, want):
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := WriteAtomic(file, want); err != nil {
		return err
	}
	res.Actions = append(res.Actions, "restored "+rel+" as HEAD has it")
	return nil
}

// moveBack returns a file outside git (a payload) to where it was, when it
// reached its destination and its origin is free.
func (r *Recoverer) moveBack(from, to string, res *Result) error {
	src, ok1 := r.local(to)
	dst, ok2 := r.local(from)
	if !ok1 || !ok2 || !exists(src) || exists(dst) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	res.Actions = append(res.Actions, "moved "+to+" back to "+from)
	return nil
}

// unbornFile removes a payload the write created, with SQLite's files.
func (r *Recoverer) unbornFile(rel string, res *Result) error {
	file, ok := r.local(rel)
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
		res.Actions = append(res.Actions, "removed "+rel+", a payload no commit names")
	}
	return nil
}

// sidecarsOf lists the SQLite files beside a database.
func sidecarsOf(file string) []string {
	out := make([]string, len(Sidecars))
	for i, s := range Sidecars {
		out[i] = file + s
	}
	return out
}

// removeEmptyDirs removes a directory the write created, and the empty
// directories below it; a directory holding any file is kept.
func (r *Recoverer) removeEmptyDirs(rel string, res *Result) {
	dir, ok := r.local(rel)
	if !ok || dir == r.root.Dir() {
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
		res.Actions = append(res.Actions, "removed the empty folder "+rel)
	}
}

// sweepTemps removes the temporary files WriteAtomic may have left in the
// folders the write touched.
func (r *Recoverer) sweepTemps(recs []journal.Record, res *Result) {
	seen := map[string]bool{}
	for _, rec := range recs {
		if rec.Kind != journal.Put {
			continue
		}
		dir := path.Dir(rec.Path)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		abs, ok := r.local(dir)
		if dir == "." {
			abs, ok = r.root.Dir(), true
		}
		if !ok {
			continue
		}
		tmps, _ := filepath.Glob(filepath.Join(abs, TempPattern))
		for _, t := range tmps {
			if os.Remove(t) == nil {
				rel, _ := filepath.Rel(r.root.Dir(), t)
				res.Actions = append(res.Actions, "removed the temporary file "+filepath.ToSlash(rel))
			}
		}
	}
}
