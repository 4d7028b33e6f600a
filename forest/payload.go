// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// PayloadFile is where a passport's local payload lives once the payload
// rule has been applied to it.
type PayloadFile struct {
	// Abs is the file's absolute path with symlinks resolved: open this,
	// never the name the passport wrote.
	Abs string
	// Rel is Abs relative to the forest root, with "/" separators. It is
	// the payload's identity: two passports naming one file share it, and
	// an access policy judges it as it judges an id.
	Rel string
}

// PayloadError is a payload name that breaks the payload rule. A passport
// is ordinary frontmatter that any writer controls, so the name is
// untrusted input: the rule keeps it from reaching another branch, the
// derived layer, the repository or the host.
type PayloadError struct {
	Name   string // the payload as the passport wrote it
	Reason string // which part of the rule it breaks
	// Linked is set when the name itself is well placed but a symlink on
	// the way leads somewhere the rule forbids.
	Linked bool
}

// Error names the payload and the broken part of the rule.
func (e *PayloadError) Error() string {
	return fmt.Sprintf("payload %q %s", e.Name, e.Reason)
}

// PayloadRule is the rule every door applies to a local payload, in the
// words a hint can quote.
const PayloadRule = "a payload is a file in its node's own folder or below it, named relative to that folder " +
	"(report.db, _assets/scan.png), never through .., never inside _derived/ or .git/, " +
	"and the same holds once symlinks are resolved"

// Payload resolves the local payload name a passport of node id gives
// (A.3.1, G.9). The name is relative to the node's folder and must stay in
// that folder or below it: no absolute path, no "..", no backslash or
// control character, no component naming the derived layer or the
// repository. Symlinks along the existing part are then resolved, and the
// resolved file must satisfy the same rule against the node's resolved
// folder. The file need not exist; the caller decides what absence means.
//
// Remote URIs (scheme://...) are not local payloads; callers route them to
// a fetcher before calling Payload.
func (r Root) Payload(id, name string) (PayloadFile, error) {
	if r.dir == "" {
		return PayloadFile{}, errZeroRoot()
	}
	if reason := payloadNameShape(name); reason != "" {
		return PayloadFile{}, &PayloadError{Name: name, Reason: reason}
	}
	dir := path.Dir(strings.Trim(id, "/"))
	if dir == "." {
		dir = ""
	}
	rel := path.Join(dir, name)
	if reason := payloadPlacement(dir, rel); reason != "" {
		return PayloadFile{}, &PayloadError{Name: name, Reason: reason}
	}
	abs, err := r.File(rel)
	if err != nil {
		return PayloadFile{}, &PayloadError{Name: name, Reason: "leaves the forest through a symlink", Linked: true}
	}
	realRel, _ := r.rel(abs)
	realRel = filepath.ToSlash(realRel)
	realDir, err := r.realDir(dir)
	if err != nil {
		return PayloadFile{}, &PayloadError{Name: name, Reason: "lies in a folder that leaves the forest", Linked: true}
	}
	if reason := payloadPlacement(realDir, realRel); reason != "" {
		return PayloadFile{}, &PayloadError{Name: name, Reason: reason + " once symlinks are resolved", Linked: true}
	}
	return PayloadFile{Abs: abs, Rel: realRel}, nil
}

// IsPayloadError reports whether err is a broken payload rule.
func IsPayloadError(err error) bool {
	var pe *PayloadError
	return errors.As(err, &pe)
}

// payloadNameShape returns why a payload name can never be a local
// payload, looking at the name alone.
func payloadNameShape(name string) string {
	switch {
	case name == "":
		return "is empty"
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name) || filepath.VolumeName(name) != "":
		return "is an absolute path; name the file relative to the node's folder"
	case strings.ContainsRune(name, '\\'):
		return "contains a backslash; separate folders with /"
	case strings.IndexFunc(name, func(c rune) bool { return c < 0x20 || c == 0x7f }) >= 0:
		return "contains a control character"
	}
	for part := range strings.SplitSeq(name, "/") {
		if part == ".." {
			return "climbs out of the node's folder with .."
		}
	}
	return ""
}

// payloadPlacement returns why the forest-relative file rel may not be
// the payload of a node in folder dir ("" for the root folder).
func payloadPlacement(dir, rel string) string {
	if rel == "" || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "leaves the forest"
	}
	if dir != "" && !strings.HasPrefix(rel, dir+"/") {
		return "lies outside the node's folder"
	}
	for part := range strings.SplitSeq(rel, "/") {
		switch {
		case part == DerivedDir:
			return "reaches into _derived, the engine's derived layer"
		case strings.EqualFold(part, GitDir):
			return "reaches into .git, the forest's repository"
		case part == LockFile:
			return "names the writer lock card"
		}
	}
	return ""
}

// realDir is a forest-relative folder with symlinks resolved, "" for the
// root itself.
func (r Root) realDir(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := r.resolve(filepath.Join(r.dir, filepath.FromSlash(dir)))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return dir, nil
		}
		return "", err
	}
	rel, ok := r.rel(abs)
	if !ok {
		return "", errors.New("folder escapes the root")
	}
	return filepath.ToSlash(rel), nil
}
