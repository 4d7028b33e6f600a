// SPDX-License-Identifier: Apache-2.0

package install

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Source is where an extension comes from, parsed from what a person
// typed: a directory, a .zip file, an https URL of a .zip, or a git
// repository with a ref ("github.com/org/repo@v1.2.0", "./repo#main";
// a URL or path without a ref follows the default branch).
type Source struct {
	Raw      string
	Kind     string // file, archive or git
	Location string // path or URL
	Ref      string // git only; "" = the default branch
}

// ParseSource reads a source string.
func ParseSource(s string) (Source, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Source{}, refuse("source", "no source given", "name a directory, a .zip, an https URL of a .zip, or a git repository with @ref")
	}
	src := Source{Raw: s}
	loc, ref, hasRef := cutRef(s)
	switch {
	case strings.HasPrefix(s, "https://") && strings.HasSuffix(strings.ToLower(s), ".zip"):
		src.Kind, src.Location = "archive", s
	case hasRef:
		src.Kind, src.Location, src.Ref = "git", gitURL(loc), ref
	case strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "file://") ||
		strings.HasPrefix(s, "github.com/") || strings.HasPrefix(s, "git@"):
		src.Kind, src.Location = "git", gitURL(s)
	case strings.HasSuffix(strings.ToLower(s), ".zip"):
		src.Kind, src.Location = "file", s
	default:
		if fi, err := os.Stat(s); err != nil || !fi.IsDir() {
			return Source{}, refuse("source", fmt.Sprintf("source %q is neither a directory, a .zip nor a git repository", s), "")
		}
		if isGitRepo(s) {
			src.Kind, src.Location = "git", s
		} else {
			src.Kind, src.Location = "file", s
		}
	}
	return src, nil
}

// cutRef splits "loc@ref" or "loc#ref". An '@' in "git@host:" or in a
// URL's user part is not a ref.
func cutRef(s string) (loc, ref string, ok bool) {
	if i := strings.LastIndexByte(s, '#'); i > 0 {
		return s[:i], s[i+1:], s[i+1:] != ""
	}
	i := strings.LastIndexByte(s, '@')
	if i <= 0 || strings.ContainsAny(s[i+1:], "/:") {
		return s, "", false
	}
	return s[:i], s[i+1:], s[i+1:] != ""
}

func gitURL(loc string) string {
	if strings.HasPrefix(loc, "github.com/") || strings.HasPrefix(loc, "gitlab.com/") || strings.HasPrefix(loc, "codeberg.org/") {
		return "https://" + loc
	}
	return loc
}

func isGitRepo(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "HEAD"))
	_, err2 := os.Stat(filepath.Join(dir, "objects"))
	return err == nil && err2 == nil
}

// resolved is a source made immutable: a tree on disk and what is known
// of where it came from.
type resolved struct {
	dir      string
	revision string
	tracking string
	tier     string
	identity *Identity
	reason   string
}

// resolve turns src into a tree under work.
func (h *Home) resolve(ctx context.Context, src Source, work string, trust Trust) (*resolved, error) {
	dir := filepath.Join(work, "tree")
	switch src.Kind {
	case "file":
		if strings.HasSuffix(strings.ToLower(src.Location), ".zip") {
			f, err := os.Open(src.Location)
			if err != nil {
				return nil, refuse("archive", "cannot read "+src.Location+": "+err.Error(), "")
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return nil, err
			}
			if err := unzip(f, fi.Size(), dir); err != nil {
				return nil, err
			}
		} else if err := copyTree(src.Location, dir); err != nil {
			return nil, err
		}
		return &resolved{dir: dir, tier: TierUnverified, reason: "a local " + kindWord(src) + " carries no signature"}, nil
	case "archive":
		if err := fetchZip(ctx, src.Location, work, dir); err != nil {
			return nil, err
		}
		return &resolved{dir: dir, tier: TierUnverified, reason: "an archive carries no signature"}, nil
	case "git":
		return cloneAt(ctx, src, dir, trust)
	}
	return nil, refuse("source", "unknown source kind "+src.Kind, "")
}

func kindWord(src Source) string {
	if strings.HasSuffix(strings.ToLower(src.Location), ".zip") {
		return "archive"
	}
	return "directory"
}

// MaxArchive caps an archive, packed or unpacked, in bytes.
const MaxArchive = 100 << 20

// maxArchive is MaxArchive, lowered by tests (export_test.go).
var maxArchive int64 = MaxArchive

func fetchZip(ctx context.Context, url, work, dir string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return refuse("archive", err.Error(), "")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return refuse("archive", "cannot fetch "+url+": "+err.Error(), "")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return refuse("archive", fmt.Sprintf("fetching %s answered %s", url, resp.Status), "")
	}
	if resp.ContentLength > maxArchive {
		return refuse("too_large", fmt.Sprintf("the archive is %d bytes, over the %d MiB ceiling", resp.ContentLength, MaxArchive>>20), "")
	}
	f, err := os.Create(filepath.Join(work, "download.zip"))
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(f, io.LimitReader(resp.Body, maxArchive+1))
	if err != nil {
		return refuse("archive", "fetching "+url+": "+err.Error(), "")
	}
	if n > maxArchive {
		return refuse("too_large", fmt.Sprintf("the archive is over %d MiB", MaxArchive>>20), "")
	}
	return unzip(f, n, dir)
}

// unzip extracts an archive after checking every member: an absolute
// name, a ".." or a backslash refuses the whole archive before anything
// is written. One top-level directory is unwrapped; __MACOSX is ignored.
func unzip(r io.ReaderAt, size int64, dir string) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return refuse("archive", "not a zip archive: "+err.Error(), "")
	}
	var files []*zip.File
	var total uint64
	for _, f := range zr.File {
		name := f.Name
		if strings.Contains(name, "\\") || strings.HasPrefix(name, "/") || path.IsAbs(name) ||
			slices.Contains(strings.Split(name, "/"), "..") || strings.ContainsRune(name, 0) || filepath.VolumeName(name) != "" || driveLetter(name) {
			return refuse("archive", fmt.Sprintf("archive member %q escapes the tree; the whole archive is refused", name), "")
		}
		if name == "__MACOSX" || strings.HasPrefix(name, "__MACOSX/") || strings.HasSuffix(name, "/") {
			continue
		}
		if f.Mode()&fs.ModeSymlink != 0 || !f.Mode().IsRegular() && f.Mode()&fs.ModeType != 0 {
			return refuse("archive", fmt.Sprintf("archive member %q is not a regular file", name), "")
		}
		total += f.UncompressedSize64
		if total > uint64(maxArchive) {
			return refuse("too_large", fmt.Sprintf("the archive unpacks to over %d MiB", MaxArchive>>20), "")
		}
		files = append(files, f)
	}
	strip := commonTop(files)
	for _, f := range files {
		rel := strings.TrimPrefix(f.Name, strip)
		if err := writeMember(f, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	return nil
}

// driveLetter reports a Windows drive prefix ("C:"), absolute on a
// Windows host whatever the host running the install is.
func driveLetter(name string) bool {
	return len(name) >= 2 && name[1] == ':' && (name[0]|0x20) >= 'a' && (name[0]|0x20) <= 'z'
}

// commonTop is "top/" when every member sits under one directory.
func commonTop(files []*zip.File) string {
	if len(files) == 0 {
		return ""
	}
	top, _, ok := strings.Cut(files[0].Name, "/")
	if !ok {
		return ""
	}
	for _, f := range files {
		if !strings.HasPrefix(f.Name, top+"/") {
			return ""
		}
	}
	return top + "/"
}

func writeMember(f *zip.File, dst string) error {
	rc, err := f.Open()
	if err != nil {
		return refuse("archive", "archive member "+f.Name+": "+err.Error(), "")
	}
	defer rc.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if f.Mode()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return refuse("archive", "archive member "+f.Name+": "+err.Error(), "")
	}
	_, err = io.Copy(out, io.LimitReader(rc, maxArchive))
	return errors.Join(err, out.Close())
}

// copyTree copies the regular files of src (without .git) to dst; a
// symbolic link refuses the source, as it could reach outside the tree.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			return refuse("file", fmt.Sprintf("%s is a symbolic link; an extension tree holds regular files only", rel), "")
		case !d.Type().IsRegular():
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, fi.Mode().Perm()|0o600)
	})
}

// treeHash is the sha256 of a tree: every regular file's slash path,
// executable bit and content, in path order.
func treeHash(dir string) (string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, p)
		exec := "0"
		if fi.Mode()&0o111 != 0 {
			exec = "1"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", filepath.ToSlash(rel), exec, fi.Size())
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
