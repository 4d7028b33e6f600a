// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/monkeyllm/vine/envelope"
)

// idHint teaches the shape of an id to a caller that sent a bad one.
const idHint = "ids are root-relative paths with / separators and no .md extension, " +
	"e.g. projects/_index or projects/mixerllm/architecture"

// Name limits. A file system refuses a name over 255 bytes (NAME_MAX) and
// a path over 4096 (PATH_MAX) with ENAMETOOLONG; the shape checks refuse
// such ids and paths by name first, so the answer is a refusal the caller
// can act on, never an E_INTERNAL.
const (
	// MaxNameBytes is the longest segment of an id or of a forest path,
	// and the longest node file name (the id's last segment plus ".md").
	MaxNameBytes = 255
	// MaxIDBytes is the longest id or forest-relative path: within
	// PATH_MAX once joined to the forest's own directory.
	MaxIDBytes = 1024
)

// IDTooLong says why id is longer than a node's file can be named, or "".
func IDTooLong(id string) string {
	if reason := PathTooLong(id); reason != "" {
		return reason
	}
	if _, base := splitLast(id); len(base)+len(NodeExt) > MaxNameBytes {
		return fmt.Sprintf("ends in a segment of %d bytes, over the limit of %d for a node name (%d with %s)",
			len(base), MaxNameBytes-len(NodeExt), MaxNameBytes, NodeExt)
	}
	return ""
}

// PathTooLong says why a forest-relative slash path is longer than a file
// system allows, or "".
func PathTooLong(rel string) string {
	if len(rel) > MaxIDBytes {
		return fmt.Sprintf("is %d bytes long, over the limit of %d", len(rel), MaxIDBytes)
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if len(seg) > MaxNameBytes {
			return fmt.Sprintf("has a segment of %d bytes, over the limit of %d", len(seg), MaxNameBytes)
		}
	}
	return ""
}

// HostPathTooLong says why a host folder a forest is to be made in (a
// new forest, a restore target) is longer than a file system allows, or
// "". The folder is named by the host, so the reason names the segment
// by its length only, never the machine path.
func HostPathTooLong(dir string) string {
	const pathMax = 4096
	if len(dir) >= pathMax {
		return fmt.Sprintf("is %d bytes long, over the limit of %d", len(dir), pathMax-1)
	}
	for seg := range strings.SplitSeq(filepath.ToSlash(dir), "/") {
		if len(seg) > MaxNameBytes {
			return fmt.Sprintf("has a folder name of %d bytes, over the limit of %d", len(seg), MaxNameBytes)
		}
	}
	return ""
}

// IsIndex reports whether id names a branch index: "_index" or "…/_index".
func IsIndex(id string) bool {
	return id == RootIndexID || strings.HasSuffix(id, "/"+RootIndexID)
}

// IsSystem reports whether id is "_meta" or lies under it. System nodes
// belong to no branch and are never pruned or transplanted.
func IsSystem(id string) bool {
	return id == MetaDir || strings.HasPrefix(id, MetaDir+"/")
}

// ParentIndex returns the id of the branch index that lists id (Part B):
// a/b/c → a/b/_index, a/b/_index → a/_index, a/_index and x → _index,
// and "" for the root index itself. The rule is purely lexical, so
// _meta/schema yields _meta/_index, an index that never exists: system
// nodes are children of no branch.
func ParentIndex(id string) string {
	if id == "" || id == RootIndexID {
		return ""
	}
	dir, _ := splitLast(id)
	if IsIndex(id) {
		dir, _ = splitLast(dir)
	}
	if dir == "" {
		return RootIndexID
	}
	return dir + "/" + RootIndexID
}

// Trail returns the ancestor index ids of id from the root down, excluding
// the node itself (Part B; the C.1 examples and the reference exclude it).
// Folder prefixes whose first segment starts with "_" add nothing, so
// _meta/schema has the trail ["_index"]. The result is never nil.
func Trail(id string) []string {
	if id == "" || id == RootIndexID {
		return []string{}
	}
	trail := []string{RootIndexID}
	segs := strings.Split(id, "/")
	folders := len(segs) - 1
	if IsIndex(id) {
		folders-- // the index's own folder is the node, not an ancestor
	}
	if strings.HasPrefix(segs[0], "_") {
		return trail
	}
	for i := 1; i <= folders; i++ {
		trail = append(trail, strings.Join(segs[:i], "/")+"/"+RootIndexID)
	}
	return trail
}

// BranchDir returns the folder of a branch index id: a/b/_index → a/b,
// _index → "". Any other id is returned unchanged, as if it named a folder.
func BranchDir(indexID string) string {
	if indexID == RootIndexID {
		return ""
	}
	return strings.TrimSuffix(indexID, "/"+RootIndexID)
}

// NormalizeBranch turns a branch name as callers write it (scope, ingest
// dest, parent_id) into its index id: x, x/ and x/_index give x/_index;
// "", "/" and _index give the root. _meta is not a branch (v0.77) and is
// refused with E_SCHEMA. Whether the branch exists is the caller's
// question; so is treating a leaf id as a one-node scope.
func NormalizeBranch(name string) (string, error) {
	n := strings.Trim(strings.TrimSpace(name), "/")
	n = strings.TrimSuffix(n, "/"+RootIndexID)
	n = strings.TrimRight(n, "/")
	switch n {
	case "", RootIndexID:
		return RootIndexID, nil
	case MetaDir:
		return "", envelope.Errorf(envelope.Schema,
			"_meta is not a branch: got %q", name).
			WithHint("_meta holds system nodes that belong to no branch; name a branch such as projects or projects/_index, or _index for the whole forest")
	}
	if reason := badIDShape(n); reason != "" {
		return "", envelope.Errorf(envelope.NotFound, "branch not found: %s", name).
			WithHint("name a branch as x, x/ or x/_index, e.g. projects or projects/_index; the name " + reason)
	}
	return n + "/" + RootIndexID, nil
}

// InScope reports whether id lies in the scope named by scopeIndexID:
// everything for _index, the ids starting "<dir>/" for a branch index
// (the index included), and only itself for a leaf. The comparison is a
// literal prefix, so "_" is never a wildcard as it is in SQL LIKE.
func InScope(id, scopeIndexID string) bool {
	if scopeIndexID == RootIndexID {
		return true
	}
	if !IsIndex(scopeIndexID) {
		return id == scopeIndexID
	}
	return strings.HasPrefix(id, BranchDir(scopeIndexID)+"/")
}

// splitLast splits id at its last "/": "a/b/c" → ("a/b", "c"), "x" → ("", "x").
func splitLast(id string) (dir, name string) {
	i := strings.LastIndexByte(id, '/')
	if i < 0 {
		return "", id
	}
	return id[:i], id[i+1:]
}

// Root is a forest directory, absolute and symlink-resolved, that maps ids
// to files and back while keeping every path inside it. The zero Root maps
// nothing.
type Root struct {
	dir string
}

// NewRoot resolves dir (absolute, symlinks evaluated) and checks that it is
// a directory. It does not require the directory to be a forest yet, so
// Init can use it.
func NewRoot(dir string) (Root, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return Root{}, envelope.Errorf(envelope.NotFound, "forest root not found: %s", dir).
			WithHint("pass the forest folder, the one holding _index.md")
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return Root{}, envelope.Errorf(envelope.NotFound, "forest root is not a directory: %s", dir).
			WithHint("pass the forest folder, the one holding _index.md")
	}
	return Root{dir: abs}, nil
}

// Dir returns the absolute, symlink-resolved forest directory.
func (r Root) Dir() string { return r.dir }

// Path maps an untrusted id (wire, scoped layer, host, every write) to its
// file. The id is trimmed of whitespace and "/"; ".md" is appended, never
// stripped, because ids carry no extension and a tolerated "x.md" would
// address a file under a name the catalog does not know. Symlinks along
// the existing part of the path are resolved and the result must stay
// strictly inside the root, else E_NOT_FOUND "id escapes forest: <id>".
// The returned path is the resolved one; the file need not exist.
func (r Root) Path(id string) (string, error) {
	lexical, err := r.lexicalPath(id)
	if err != nil {
		return "", err
	}
	resolved, err := r.resolve(lexical)
	if err != nil || !r.contains(resolved) {
		return "", escapeError(id)
	}
	if rel, _ := r.rel(resolved); underExcluded(rel) {
		// A link into _derived or _assets would serve files that are not
		// nodes, such as cached bodies, under a node's name.
		return "", envelope.Errorf(envelope.NotFound, "node not found: %s", id).
			WithHint(idHint + "; this id resolves through a symlink into a folder that holds no nodes")
	}
	return resolved, nil
}

// TrustedPath maps an id read from the engine's own catalog to its file by
// lexical normalization only (C.6b.2): resolving symlinks per node was the
// largest cost of a cold body scan. Escapes are still refused. Never feed
// it an id that arrived from outside; use Path.
func (r Root) TrustedPath(id string) (string, error) {
	return r.lexicalPath(id)
}

// File maps an untrusted forest-relative file path, such as a payload a
// passport names, to its location with Path's containment: symlinks along
// the existing part resolved, and the result strictly inside the root,
// else E_NOT_FOUND. Unlike an id, the path keeps its extension, is not
// trimmed, and may lie under _assets, where archived originals live.
func (r Root) File(rel string) (string, error) {
	if r.dir == "" {
		return "", errZeroRoot()
	}
	if rel == "" {
		return "", envelope.New(envelope.NotFound, "file not found: empty path",
			"name a file by its path inside the forest, e.g. sales/report-q1-2026.db")
	}
	if reason, escapes := fileShape(rel); reason != "" {
		if escapes {
			return "", envelope.Errorf(envelope.NotFound, "path escapes forest: %s", rel).
				WithHint("files are named by their path inside the forest, with / separators; a path that leaves the forest names nothing")
		}
		return "", envelope.Errorf(envelope.NotFound, "file not found: %s", rel).
			WithHint("name a file by its path inside the forest with / separators; this path " + reason)
	}
	resolved, err := r.resolve(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if err != nil || !r.contains(resolved) {
		return "", envelope.Errorf(envelope.NotFound, "path escapes forest: %s", rel).
			WithHint("a path that leaves the forest, directly or through a symlink, names nothing")
	}
	return resolved, nil
}

// IDOf returns the canonical id of a node file inside the root. A relative
// path is taken relative to the root.
func (r Root) IDOf(path string) (string, error) {
	if r.dir == "" {
		return "", errZeroRoot()
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.dir, path)
	}
	rel, ok := r.rel(filepath.Clean(path))
	if !ok {
		// The path may spell the root through a symlink (a temp dir alias);
		// resolve and try again before calling it foreign.
		if real, err := filepath.EvalSymlinks(path); err == nil {
			rel, ok = r.rel(real)
		}
	}
	if !ok || !strings.HasSuffix(rel, NodeExt) || rel == NodeExt {
		return "", envelope.Errorf(envelope.NotFound, "not a node file of this forest: %s", filepath.Base(path)).
			WithHint("node files are the *.md files inside the forest folder")
	}
	return strings.TrimSuffix(filepath.ToSlash(rel), NodeExt), nil
}

// lexicalPath checks the id's shape and joins it to the root without
// touching the filesystem.
func (r Root) lexicalPath(id string) (string, error) {
	if r.dir == "" {
		return "", errZeroRoot()
	}
	clean := strings.Trim(strings.TrimSpace(id), "/")
	if clean == "" {
		return "", envelope.New(envelope.NotFound, "node not found: empty id", idHint)
	}
	if reason, escapes := idShape(clean); reason != "" {
		if escapes {
			return "", escapeError(id)
		}
		return "", envelope.Errorf(envelope.NotFound, "node not found: %s", id).
			WithHint(idHint + "; this id " + reason)
	}
	p := filepath.Join(r.dir, filepath.FromSlash(clean)+NodeExt)
	if !r.contains(p) {
		return "", escapeError(id)
	}
	return p, nil
}

// resolve evaluates symlinks along the longest existing prefix of p (which
// lies lexically inside the root) and appends the rest unchanged: the rest
// does not exist, so it cannot be a link. A dangling link or a loop is an
// error, since nothing can vouch for where it points.
func (r Root) resolve(p string) (string, error) {
	if r.linkFree(p) {
		return p, nil
	}
	return r.evalLinks(p)
}

// linkFree reports whether no existing component of p below the root is
// a symlink, p then being its own resolution. The root itself was
// resolved when it was opened, so only the few components of an id are
// looked at, where evaluating the whole path looks at every directory
// from the file system root down.
func (r Root) linkFree(p string) bool {
	rel, ok := r.rel(p)
	if !ok {
		return false
	}
	cur := r.dir
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			// The longest existing prefix ends here: the rest cannot be a
			// link. Anything but plain absence takes the full evaluation.
			return errors.Is(err, fs.ErrNotExist)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return false
		}
	}
	return true
}

// evalLinks is resolve by evaluating every link of the existing prefix.
func (r Root) evalLinks(p string) (string, error) {
	cur := p
	var tail []string
	for cur != r.dir {
		if _, err := os.Lstat(cur); err == nil {
			break
		}
		tail = append(tail, filepath.Base(cur))
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", errors.New("no existing prefix")
		}
		cur = parent
	}
	real, err := filepath.EvalSymlinks(cur)
	if err != nil {
		return "", err
	}
	for i := len(tail) - 1; i >= 0; i-- {
		real = filepath.Join(real, tail[i])
	}
	return real, nil
}

// contains reports whether p lies strictly inside the root.
func (r Root) contains(p string) bool {
	_, ok := r.rel(p)
	return ok
}

// rel returns p relative to the root when p lies strictly inside it.
func (r Root) rel(p string) (string, bool) {
	rel, err := filepath.Rel(r.dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// badIDShape returns why a trimmed id can never name a node, or "".
func badIDShape(id string) string {
	reason, _ := idShape(id)
	return reason
}

// idShape returns why a trimmed id can never name a node, or "", and
// whether the flaw is an attempt to leave the root.
func idShape(id string) (reason string, escapes bool) {
	if reason, escapes := fileShape(id); reason != "" {
		return reason, escapes
	}
	for _, seg := range strings.Split(id, "/") {
		if IsExcludedDir(seg) {
			return "lies under " + seg + ", which holds no nodes", false
		}
	}
	return IDTooLong(id), false
}

// fileShape returns why a forest-relative slash path can never name a file
// of the forest, or "", and whether the flaw is an attempt to leave it.
func fileShape(rel string) (reason string, escapes bool) {
	switch {
	case strings.ContainsRune(rel, 0):
		return "contains a NUL byte", false
	case strings.ContainsFunc(rel, unicode.IsControl):
		return "contains a control character", false
	case strings.ContainsRune(rel, '\\'):
		return `contains a backslash; use "/"`, false
	case strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		return "is an absolute path", true
	}
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case "..":
			return `has a ".." segment`, true
		case "", ".":
			return `has an empty or "." segment`, false
		}
	}
	return PathTooLong(rel), false
}

func escapeError(id string) error {
	return envelope.Errorf(envelope.NotFound, "id escapes forest: %s", id).
		WithHint(idHint + "; a path that leaves the forest, directly or through a symlink, names no node")
}

func errZeroRoot() error {
	return envelope.New(envelope.Internal, "forest root not set", "construct the Root with NewRoot")
}
