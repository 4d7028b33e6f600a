// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/monkeyllm/vine/gardener"
)

// remoteURI matches a payload or source_path with a scheme (G.9); plain
// values are local paths.
var remoteURI = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`)

func isRemote(s string) bool { return remoteURI.MatchString(s) }

// fileState is what matches found.
type fileState int

const (
	fileOK      fileState = iota
	fileMissing           // absent, not a regular file, or unreadable
	fileChanged           // present, with other bytes than the recorded hash
)

// matches compares a file with a recorded sha256 hex; an empty hash only
// asks whether the file is there.
func matches(p, want string) fileState {
	f, err := os.Open(p)
	if err != nil {
		return fileMissing
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fileMissing
	}
	if want == "" {
		return fileOK
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fileMissing
	}
	if !strings.EqualFold(hex.EncodeToString(h.Sum(nil)), want) {
		return fileChanged
	}
	return fileOK
}

// within resolves rel under root, following symlinks, and reports whether
// the result exists and lies inside root. A source_path is ordinary
// frontmatter anyone may set, so it is never followed out of the root.
func within(root, rel string) (string, bool) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(rel)))
	if err != nil {
		return "", false
	}
	r, err := filepath.Rel(realRoot, real)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return real, true
}

// sourceRootOf is source_root from the forest's _meta/gardener.yaml (read
// by the Gardener's own config loader),
// absolute (a relative root is taken from the forest), or "" when the
// file or the key is missing or unreadable: health then has no sources to
// judge.
func sourceRootOf(dir string) string {
	cfg, err := gardener.LoadConfig(dir)
	if err != nil || strings.TrimSpace(cfg.SourceRoot) == "" {
		return ""
	}
	if filepath.IsAbs(cfg.SourceRoot) {
		return cfg.SourceRoot
	}
	return filepath.Join(dir, cfg.SourceRoot)
}
