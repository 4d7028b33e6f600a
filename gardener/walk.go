// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// ignoredParts are path parts the walk never enters or takes (G.3 §10.3).
var ignoredParts = []string{".git", ".svn", ".hg", "__pycache__", "node_modules", forest.DerivedDir, forest.AssetsDir}

// ignoredGlobs are file and folder names the walk skips, beside config
// ignore globs.
var ignoredGlobs = []string{"~$*", "*.tmp", "*.lock", ".DS_Store", "Thumbs.db"}

// source is a resolved source root.
type source struct {
	root   string // absolute, symlinks resolved
	staged bool   // inside the forest's own _derived/ (upload staging)
}

// resolveSource applies the containment gate (G.3 §10.2) to a source the
// caller named, against the forest at forestDir. Every refusal is
// E_SCHEMA; none falls back to a default directory.
func resolveSource(op, forestDir, named string) (source, error) {
	if strings.TrimSpace(named) == "" {
		return source{}, envelope.New(envelope.Schema,
			op+": no source named: parameter 'source' is empty and no source_root is recorded",
			"name the directory to ingest (adopt SOURCE); a bare sync needs an earlier adopt")
	}
	abs, err := filepath.Abs(named)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return source{}, envelope.New(envelope.Schema, op+": source not found: "+named,
			"name an existing directory")
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return source{}, envelope.New(envelope.Schema, op+": source is not a directory: "+named,
			"name a directory; single files are synced with --path or uploaded")
	}
	if within(abs, forestDir) {
		return source{}, envelope.New(envelope.Schema,
			op+": source "+named+" is or contains the forest itself",
			"name a directory beside the forest, not above it: a source above a forest would pour it into itself")
	}
	if within(forestDir, abs) {
		derived := filepath.Join(forestDir, forest.DerivedDir)
		if !within(derived, abs) || abs == derived {
			return source{}, envelope.New(envelope.Schema, op+": source "+named+" lies inside the forest",
				"ingest a directory outside the forest; the forest's files are its nodes already")
		}
		return source{root: abs, staged: true}, nil
	}
	return source{root: abs}, nil
}

// within reports whether p is dir or lies under it (both absolute and
// clean).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// walker lists the files of a source tree.
type walker struct {
	root   string
	ignore []string // name globs, built-in and configured
}

func newWalker(root string, extra []string) walker {
	return walker{root: root, ignore: append(slices.Clone(ignoredGlobs), extra...)}
}

// skip reports whether a file or folder name is never taken.
func (w walker) skip(name string) bool {
	if strings.HasPrefix(name, ".") || slices.Contains(ignoredParts, name) {
		return true
	}
	for _, g := range w.ignore {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// files walks the tree and returns source-relative paths with "/",
// sorted. Ignored names are not descended; a folder below the root that
// holds an _index.md is another forest and is pruned whole; symlinks are
// taken only when they name a regular file inside the root. Nothing is
// read but directory listings.
func (w walker) files() ([]string, error) {
	var out []string
	err := filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == w.root {
				return err
			}
			return nil // an unreadable corner costs only itself
		}
		if p == w.root {
			return nil
		}
		if w.skip(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if _, err := os.Lstat(filepath.Join(p, forest.IndexFile)); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 && !w.fileLink(p) {
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(w.root, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	slices.Sort(out)
	return out, err
}

// fileLink reports whether the symlink at p resolves to a regular file
// inside the root.
func (w walker) fileLink(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !within(w.root, real) {
		return false
	}
	fi, err := os.Stat(real)
	return err == nil && fi.Mode().IsRegular()
}

// targetPath checks one targeted sync path (G.8 §10.2 rule 4): relative,
// and resolving under the root after "..", and after symlinks for the
// part that exists. It returns the clean source-relative path. A lexical
// prefix test is not enough: "../../etc/passwd" still starts with the
// root's name.
func targetPath(root, p string) (string, error) {
	bad := func(why string) error {
		return envelope.New(envelope.Schema, "sync: path "+quote(p)+" "+why,
			"name a file relative to the source root, e.g. reports/q1.csv")
	}
	if strings.TrimSpace(p) == "" {
		return "", bad("is empty")
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", bad("is absolute")
	}
	clean := filepath.Clean(filepath.FromSlash(p))
	if clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", bad("leaves the source root")
	}
	full := filepath.Join(root, clean)
	real, err := resolveExisting(full)
	if err != nil {
		return "", err
	}
	if !within(root, real) || real == root {
		return "", bad("leaves the source root")
	}
	if fi, err := os.Stat(full); err == nil && fi.IsDir() {
		return "", bad("is a directory")
	}
	return filepath.ToSlash(clean), nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// p and joins the rest back on.
func resolveExisting(p string) (string, error) {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(cur) == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

func quote(s string) string { return "'" + s + "'" }
