// SPDX-License-Identifier: Apache-2.0

package payload

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// FileFetcher serves file:// URIs (RFC 8089): file:///srv/data/x.db or
// file://localhost/srv/data/x.db, percent-decoded. It is the built-in
// fetcher and the natural test double for remote payloads.
type FileFetcher struct {
	// Root, when set, confines the fetcher to regular files under this
	// directory, symlinks resolved. A passport is ordinary frontmatter any
	// planter can write, so a host that serves untrusted planters should
	// set it: otherwise a payload URI can copy any readable host file into
	// the cache. Outside Root reads as "no such file".
	Root string
}

// Confines reports whether f keeps file:// URIs under a Root.
func (f FileFetcher) Confines(scheme string) bool { return scheme == "file" && f.Root != "" }

// Fetch copies the file uri names into w.
func (f FileFetcher) Fetch(ctx context.Context, uri string, w io.Writer) error {
	name, err := filePath(uri)
	if err != nil {
		return err
	}
	name, err = f.confine(name)
	if err != nil {
		return err
	}
	file, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("payload: %s: %w", uri, err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return fmt.Errorf("payload: %s: %w", uri, err)
	}
	if !fi.Mode().IsRegular() {
		// A device or a FIFO would stream forever; a directory has no bytes.
		return fmt.Errorf("payload: %s names no regular file: %w", uri, fs.ErrNotExist)
	}
	if _, err := io.Copy(ctxWriter{ctx, w}, file); err != nil {
		return fmt.Errorf("payload: copy %s: %w", uri, err)
	}
	return nil
}

// filePath is the local path of a file:// URI.
func filePath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", &SchemeError{URI: uri, Scheme: Scheme(uri), Served: []string{"file"}}
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("payload: %s names a file on host %q; file:// payloads are local (file:///path): %w",
			uri, u.Host, fs.ErrNotExist)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/data/x.db
	}
	p = filepath.FromSlash(p)
	if p == "" || !filepath.IsAbs(p) {
		return "", fmt.Errorf("payload: %s has no absolute path (file:///path): %w", uri, fs.ErrNotExist)
	}
	return filepath.Clean(p), nil
}

// confine returns the file to open: name itself without a Root, else
// name with symlinks resolved, refused when that leaves Root. Opening the
// resolved path keeps a link swapped after the check from counting.
func (f FileFetcher) confine(name string) (string, error) {
	if f.Root == "" {
		return name, nil
	}
	root, err := filepath.EvalSymlinks(f.Root)
	if err != nil {
		return "", fmt.Errorf("payload: file fetcher root: %w", err)
	}
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", fmt.Errorf("payload: %s: %w", filepath.Base(name), fs.ErrNotExist)
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("payload: %s lies outside the fetcher's root: %w", filepath.Base(name), fs.ErrNotExist)
	}
	if machinery(rel) {
		return "", fmt.Errorf("payload: %s lies in a forest's _derived or .git folder: %w", filepath.Base(name), fs.ErrNotExist)
	}
	return real, nil
}

// machinery reports whether a path below the root runs through a forest's
// derived layer or repository: a root that holds forests still never
// serves their catalogs, trails or objects as a payload.
func machinery(rel string) bool {
	for part := range strings.SplitSeq(filepath.ToSlash(rel), "/") {
		if part == "_derived" || strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}
