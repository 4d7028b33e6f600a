// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TreeHash digests every file under root: for each file in walk order
// (sorted by path segment), its slash-separated relative path, a NUL, its
// bytes and a NUL, as the spike's checker does. The top-level .git is
// skipped, and so is every top-level entry named in skip. A symlink is
// digested by its target text, never followed, so a link out of the root
// cannot pull outside bytes into the proof. Empty directories and modes
// are not part of the digest.
func TreeHash(root string, skip ...string) (string, error) {
	root, err := filepath.EvalSymlinks(root) // a linked root is walked, not digested as a link
	if err != nil {
		return "", err
	}
	h := sha256.New()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if top, _, _ := strings.Cut(rel, "/"); top == ".git" || slices.Contains(skip, top) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		return digestEntry(h, p, rel, d)
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func digestEntry(h io.Writer, p, rel string, d fs.DirEntry) error {
	switch t := d.Type(); {
	case t.IsDir():
		return nil
	case t&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		io.WriteString(h, rel+"\x00\x01symlink\x00"+target+"\x00")
		return nil
	case !t.IsRegular():
		io.WriteString(h, rel+"\x00\x01special "+t.String()+"\x00")
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	io.WriteString(h, rel+"\x00")
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	io.WriteString(h, "\x00")
	return nil
}
