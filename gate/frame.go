// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The frame's fixed lines.
const (
	// Sentinel is the whole last line of a frame; the newline after it is
	// part of the contract, because only the newline proves the line ended.
	Sentinel = "END_PATCH"
	// HeaderPrefix opens the first line; the rest of the line is the path.
	HeaderPrefix = "PATH "
)

// builtinForbidden is the spike's closed list plus the forest's own
// machinery. Notation: "name/" forbids a directory of that name at any
// depth, a name with "/" inside forbids that exact path, and a bare name
// forbids a file of that name at any depth. Matching ignores case, so a
// case-insensitive file system cannot be used to slip past it.
var builtinForbidden = []string{
	"secrets.env", ".git/config", "package-lock.json",
	".git/", "_derived/", "_meta/", ".vine.lock",
}

// ForbiddenNames returns the built-in forbidden names in their notation:
// "dir/" forbids a directory of that name at any depth, "a/b" forbids that
// exact path, and "name" forbids a file of that name at any depth. Every
// match ignores case.
func ForbiddenNames() []string { return slices.Clone(builtinForbidden) }

// Frame is a classified frame: the declared path and the file's new
// content.
type Frame struct {
	Path  string // clean, slash-separated, relative
	Body  []byte // everything between the header and the sentinel line
	Lines int    // body lines
}

// Classify checks a buffered stream against the frame contract, in the
// order of the decision table: sentinel (2), one frame, UTF-8 and header
// (3), path (4), body length (5). It touches no file system; Run adds the on-disk
// checks (symlinks, directories) before it writes. A refusal is a
// *Refusal; the returned Frame carries whatever was parsed before it.
func Classify(stream []byte, opts *Options) (Frame, error) {
	opt := opts.withDefaults()
	var f Frame
	body, ok := cutSentinel(stream)
	if !ok {
		return f, refusal(MissingSentinel, "the last line is not %s (stream ends %q)", Sentinel, tail(stream, 40))
	}
	if line := sentinelLine(body); line > 0 {
		return f, refusal(BadFrame, "line %d is %s before the last line: a stream is one frame, so a second "+
			"frame or a body line reading %s is refused", line, Sentinel, Sentinel)
	}
	if !utf8.Valid(stream) {
		return f, refusal(BadHeader, "the stream is not UTF-8 text (invalid byte at offset %d)", invalidAt(stream))
	}
	header, rest, found := bytes.Cut(body, []byte("\n"))
	if !found {
		return f, refusal(BadHeader, "there is no header line before %s", Sentinel)
	}
	if !bytes.HasPrefix(header, []byte(HeaderPrefix)) {
		return f, refusal(BadHeader, "the first line must start with %q, got %q", HeaderPrefix, clip(string(header), 80))
	}
	f.Path = strings.TrimSpace(string(header[len(HeaderPrefix):]))
	f.Body, f.Lines = rest, bytes.Count(rest, []byte("\n"))
	if err := checkPath(f.Path, opt); err != nil {
		return f, err
	}
	if f.Lines > opt.MaxLines {
		return f, refusal(TooLong, "the body has %d lines, over the limit of %d", f.Lines, opt.MaxLines)
	}
	return f, nil
}

// cutSentinel returns the stream before its sentinel line when its last
// line is exactly the sentinel, newline included.
func cutSentinel(stream []byte) ([]byte, bool) {
	line := Sentinel + "\n"
	if !bytes.HasSuffix(stream, []byte(line)) {
		return nil, false
	}
	body := stream[:len(stream)-len(line)]
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return nil, false // "...xEND_PATCH\n": the last line is not the sentinel
	}
	return body, true
}

// sentinelLine is the 1-based number of the first line of body that is
// exactly the sentinel, or 0. Such a line ends a frame, so whatever
// follows it would be a second frame written as the first one's text.
func sentinelLine(body []byte) int {
	for i, line := range bytes.Split(body, []byte("\n")) {
		if string(line) == Sentinel {
			return i + 1
		}
	}
	return 0
}

// checkPath refuses every path that is not a plain, clean, relative file
// path inside the root, or that names a forbidden file.
func checkPath(rel string, opt Options) error {
	if rel == "" {
		return refusal(Forbidden, "the header names no path")
	}
	if i := strings.IndexFunc(rel, unicode.IsControl); i >= 0 {
		return refusal(Forbidden, "path %q contains a control character", clip(rel, 80))
	}
	if strings.ContainsRune(rel, '\\') {
		return refusal(Forbidden, "path %q contains a backslash; only / separates directories", clip(rel, 80))
	}
	if strings.HasPrefix(rel, "/") || hasDrive(rel) {
		return refusal(Forbidden, "path %q is absolute; it must be relative to the root", clip(rel, 80))
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." || part == ".." {
			return refusal(Forbidden, "path %q is not a clean relative file path (empty, '.' or '..' segment)", clip(rel, 80))
		}
	}
	for _, name := range append(slices.Clone(builtinForbidden), opt.Forbidden...) {
		if forbids(name, rel) {
			return refusal(Forbidden, "path %q is forbidden (%s)", clip(rel, 80), name)
		}
	}
	if opt.Allow != nil {
		if err := opt.Allow(rel); err != nil {
			return &Refusal{Class: Forbidden, Reason: fmt.Sprintf("path %q is not allowed here: %v", clip(rel, 80), err), Err: err}
		}
	}
	return nil
}

// forbids reports whether the forbidden name (in ForbiddenNames notation)
// matches the clean relative path rel.
func forbids(name, rel string) bool {
	parts := strings.Split(rel, "/")
	switch {
	case strings.HasSuffix(name, "/"):
		dir := strings.TrimSuffix(name, "/")
		return slices.ContainsFunc(parts, func(p string) bool { return strings.EqualFold(p, dir) })
	case strings.Contains(name, "/"):
		return strings.EqualFold(name, rel)
	}
	return strings.EqualFold(name, parts[len(parts)-1])
}

// hasDrive reports a Windows drive prefix such as "C:", which would make
// the path absolute where such paths exist.
func hasDrive(rel string) bool {
	return len(rel) >= 2 && rel[1] == ':' && (rel[0]|0x20 >= 'a' && rel[0]|0x20 <= 'z')
}

// checkOnDisk walks the existing part of rel under root without following
// anything: a symlink anywhere on the way, a file where a directory must
// be, or a target that is not a regular file is forbidden. The missing
// part of the path is created by the writer.
func checkOnDisk(root, rel string) error {
	parts := strings.Split(rel, "/")
	at := root
	for i, part := range parts {
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return &Refusal{Class: Forbidden, Reason: fmt.Sprintf("path %q cannot be checked: %v", rel, err), Err: err}
		}
		shown := strings.Join(parts[:i+1], "/")
		last := i == len(parts)-1
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return refusal(Forbidden, "path %q passes through the symlink %q", rel, shown)
		case !last && !fi.IsDir():
			return refusal(Forbidden, "path %q: %q is not a directory", rel, shown)
		case last && !fi.Mode().IsRegular():
			return refusal(Forbidden, "path %q is not a regular file", rel)
		}
	}
	return nil
}

func refusal(c Class, format string, args ...any) *Refusal {
	return &Refusal{Class: c, Reason: fmt.Sprintf(format, args...)}
}

// tail returns at most n bytes from the end of b, for messages.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// clip shortens s to at most n bytes on a rune boundary, for messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}
