// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"os"
	"path/filepath"
)

// GitignoreContent is the exact .gitignore Init writes (spec §1): five
// LF-terminated lines, 44 bytes. Binaries and derived state stay out of git;
// "_assets/" has no leading slash so it matches per-branch asset folders at
// any depth.
const GitignoreContent = "_derived/\n.vine.lock\n*.db\n*.sqlite\n_assets/\n"

// Names of the fixed parts of a forest's layout.
const (
	// DerivedDir holds the disposable derived layer (catalog, trails,
	// caches); the markdown files win every disagreement with it.
	DerivedDir = "_derived"
	// AssetsDir holds archived originals, per branch, at any depth.
	AssetsDir = "_assets"
	// GitDir is the forest's own repository.
	GitDir = ".git"
	// MetaDir holds the system nodes (the dialect) and engine config.
	MetaDir = "_meta"
	// LockFile is the writer lock card at the forest root (C.9).
	LockFile = ".vine.lock"
	// IndexFile is the file name of every branch index.
	IndexFile = "_index.md"
	// NodeExt is the extension of every node file; ids omit it.
	NodeExt = ".md"
	// SchemaID is the id of the dialect node.
	SchemaID = "_meta/schema"
	// RootIndexID is the id of the master branch.
	RootIndexID = "_index"
)

// IsForest reports whether dir is a forest: it holds an _index.md (C.0).
// Single-forest tooling should also check for _meta/schema.md so a
// mistargeted command never litters a random directory.
func IsForest(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, IndexFile))
	return err == nil && fi.Mode().IsRegular()
}

// IsExcludedDir reports whether a directory with this name is never walked
// for nodes, at any depth.
func IsExcludedDir(name string) bool {
	return name == DerivedDir || name == AssetsDir || name == GitDir
}
