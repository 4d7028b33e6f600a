// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SkippedFile is an entry Walk passed over instead of failing: Path is
// forest-relative with "/" separators, Reason says why in a few words.
type SkippedFile struct {
	Path   string
	Reason string
}

// Reasons Walk reports.
const (
	SkipSymlinkEscape   = "symlink escapes forest"
	SkipSymlinkBroken   = "broken symlink"
	SkipSymlinkCycle    = "symlink cycle"
	SkipSymlinkExcluded = "symlink into a directory that holds no nodes"
	SkipUnreadableDir   = "unreadable directory"
	SkipBadID           = "file name cannot be an id"
	SkipNotRegular      = "not a regular file (a FIFO, device or socket named like a node)"
	SkipDirNamedNode    = "a directory named like a node file"
)

// Walk calls fn for every node file of the forest, in sorted order: each
// *.md file, skipping directories named _derived, _assets and .git at any
// depth. Symlinks are followed only while they stay inside the root and
// outside those directories; any other link, a cycle, an unreadable
// directory or a file whose name cannot be an id is skipped and reported,
// never fatal, so one bad entry cannot stop a reindex. An error from fn
// stops the walk and is returned.
func (r Root) Walk(fn func(id, path string) error) ([]SkippedFile, error) {
	if r.dir == "" {
		return nil, errZeroRoot()
	}
	w := walker{root: r, fn: fn}
	if err := w.dir(r.dir, r.dir, "", nil); err != nil {
		return w.skipped, err
	}
	return w.skipped, nil
}

// walker carries one Walk's state.
type walker struct {
	root    Root
	fn      func(id, path string) error
	skipped []SkippedFile
}

func (w *walker) skip(rel, reason string) {
	w.skipped = append(w.skipped, SkippedFile{Path: rel, Reason: reason})
}

// dir walks the directory at path, whose symlink-free location is real and
// forest-relative name is rel. chain holds the real paths of the
// directories above it, so a link back to one of them is reported as a
// cycle rather than walked forever.
func (w *walker) dir(path, real, rel string, chain []string) error {
	chain = append(chain, real)
	entries, err := os.ReadDir(path)
	if err != nil {
		if rel == "" {
			return err
		}
		w.skip(rel, SkipUnreadableDir)
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		childPath := filepath.Join(path, name)
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		if err := w.entry(e, childPath, filepath.Join(real, name), childRel, chain); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) entry(e fs.DirEntry, path, real, rel string, chain []string) error {
	mode := e.Type()
	if mode&fs.ModeSymlink != 0 {
		return w.link(path, rel, chain)
	}
	if mode.IsDir() {
		if IsExcludedDir(e.Name()) {
			return nil
		}
		if strings.HasSuffix(rel, NodeExt) {
			w.skip(rel, SkipDirNamedNode) // its files are walked; the name is still a mistake
		}
		return w.dir(path, real, rel, chain)
	}
	if mode.IsRegular() {
		return w.file(path, rel)
	}
	if strings.HasSuffix(rel, NodeExt) {
		w.skip(rel, SkipNotRegular)
	}
	return nil
}

// link follows a symlink only while its target stays in the forest. Only
// links that could hold or be nodes (directories, *.md) are reported.
func (w *walker) link(path, rel string, chain []string) error {
	isNode := strings.HasSuffix(rel, NodeExt)
	real, err := filepath.EvalSymlinks(path)
	var fi os.FileInfo
	if err == nil {
		fi, err = os.Stat(real)
	}
	if err != nil {
		if isNode {
			w.skip(rel, SkipSymlinkBroken)
		}
		return nil
	}
	if !fi.IsDir() && !isNode {
		return nil
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		w.skip(rel, SkipNotRegular)
		return nil
	}
	if fi.IsDir() && IsExcludedDir(filepath.Base(path)) {
		return nil
	}
	if real == w.root.dir {
		w.skip(rel, SkipSymlinkCycle)
		return nil
	}
	realRel, inside := w.root.rel(real)
	switch {
	case !inside:
		w.skip(rel, SkipSymlinkEscape)
		return nil
	case underExcluded(realRel):
		w.skip(rel, SkipSymlinkExcluded)
		return nil
	case !fi.IsDir():
		return w.file(path, rel)
	}
	for _, seen := range chain {
		if seen == real || strings.HasPrefix(seen, real+string(filepath.Separator)) {
			w.skip(rel, SkipSymlinkCycle)
			return nil
		}
	}
	return w.dir(path, real, rel, chain)
}

// file reports a node file; rel is its forest-relative slash path.
func (w *walker) file(path, rel string) error {
	if !strings.HasSuffix(rel, NodeExt) {
		return nil
	}
	id := strings.TrimSuffix(rel, NodeExt)
	if _, base := splitLast(id); base == "" || badIDShape(id) != "" {
		w.skip(rel, SkipBadID)
		return nil
	}
	return w.fn(id, path)
}

// underExcluded reports whether a forest-relative path has a segment that
// is an excluded directory.
func underExcluded(rel string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		if IsExcludedDir(seg) {
			return true
		}
	}
	return false
}
