// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/monkeyllm/vine/forest"
)

// payloadExts are the dataset payloads a snapshot carries; media travel
// because they sit under an _assets folder, whatever their extension.
var payloadExts = []string{".db", ".sqlite", ".sqlite3"}

// checkPayloadPath names why a forest-relative slash path may not travel
// as a payload, or returns "" when it may. Create and Restore share it, so
// an artifact made here always restores here.
//
// Names are judged positively, because git and the engine later act on
// the restored tree: every component is a plain name (no "", ".", "..",
// nothing hidden, so .git is out of reach), nothing that another system
// would read as a separator, drive, stream or escape (\ : %), no control
// characters, never the derived layer, and the file is a dataset payload
// or lies under an _assets folder.
func checkPayloadPath(rel string) string {
	if reason := checkPlainPath(rel); reason != "" {
		return reason
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if p == forest.AssetsDir {
			return ""
		}
	}
	for _, ext := range payloadExts {
		if strings.HasSuffix(rel, ext) && len(path.Base(rel)) > len(ext) {
			return ""
		}
	}
	return "not a payload: a payload ends .db, .sqlite or .sqlite3 or lies under an _assets folder"
}

// checkPlainPath is the safety half of checkPayloadPath: a relative path
// of plain components.
func checkPlainPath(rel string) string {
	switch {
	case rel == "":
		return "empty name"
	case !utf8.ValidString(rel):
		return "name is not valid UTF-8"
	case strings.HasPrefix(rel, "/"):
		return "absolute name"
	}
	if i := strings.IndexFunc(rel, func(r rune) bool {
		return unicode.IsControl(r) || strings.ContainsRune(`\:%`, r)
	}); i >= 0 {
		return "name contains a backslash, colon, percent sign or control character"
	}
	for _, p := range strings.Split(rel, "/") {
		switch {
		case p == "":
			return "name has an empty component"
		case p == "." || p == "..":
			return "name has a . or .. component"
		case strings.HasPrefix(p, "."):
			return "name has a component starting with a dot"
		case p == forest.DerivedDir:
			return "name reaches into _derived, which is rebuilt, never shipped"
		}
	}
	return ""
}

// payloadFiles lists the forest's payloads as forest-relative slash paths
// in walk order: regular files only, symlinks never followed, .git and
// _derived left out. skipped are payload-shaped files whose names cannot
// travel (checkPayloadPath refuses them).
func payloadFiles(root string) (files, skipped []string, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == forest.GitDir || d.Name() == forest.DerivedDir) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !payloadShaped(rel) {
			return nil
		}
		if checkPayloadPath(rel) != "" {
			skipped = append(skipped, rel)
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return files, skipped, err
}

// payloadShaped is the payload set of I.2 before any name rule: a dataset
// extension or an _assets folder on the way.
func payloadShaped(rel string) bool {
	for _, ext := range payloadExts {
		if strings.HasSuffix(rel, ext) {
			return true
		}
	}
	dir := path.Dir(rel)
	return dir != "." && strings.Contains("/"+dir+"/", "/"+forest.AssetsDir+"/")
}
