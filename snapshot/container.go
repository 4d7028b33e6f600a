// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// DefaultMaxBytes is the uncompressed ceiling of a restore: 2 GiB, the
// v0.50 sidecar value (I.4 rule 4).
const DefaultMaxBytes int64 = 2 << 30

// shape is what a file is, read from its content.
type shape int

const (
	shapeBundle shape = iota + 1 // a bare git bundle (legacy, metadata only)
	shapeZip                     // a .forest file, or a legacy payload sidecar
)

// sniffShape reads the shape from the content (I.4 rule 2): the bundle
// signature at offset 0 first, because a pack is arbitrary bytes, then a
// zip found by its end record.
func sniffShape(r io.ReaderAt, size int64) (shape, *zip.Reader, error) {
	head := make([]byte, len(bundleV2))
	if n, _ := r.ReadAt(head, 0); n == len(head) && (string(head) == bundleV2 || string(head) == bundleV3) {
		return shapeBundle, nil, nil
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		// ErrInsecurePath comes with a usable reader; the member rules
		// below refuse such names with a message naming them.
		return 0, nil, envelope.New(envelope.Schema, "snapshot: the file is neither a git bundle nor a zip archive",
			"restore takes a .forest file written by vine snapshot create, or a bare git bundle")
	}
	return shapeZip, zr, nil
}

// member is one zip entry that restore will extract.
type member struct {
	f   *zip.File
	rel string // forest-relative slash path of a payload; "" for the bundle
}

// plan is an archive whose every member passed the rules.
type plan struct {
	bundle   *zip.File // nil in a sidecar
	payloads []member
	declared int64 // uncompressed bytes the headers declare
}

// memberRule judges one file entry by name: the forest path it extracts
// to, whether it is the bundle, whether it is kept at all (README.txt is
// read by people, not restored), or a reason that refuses the archive.
type memberRule func(name string) (rel string, isBundle bool, keep bool, reason string)

// forestMember is the .forest rule (I.4 rule 3): forest.bundle and
// README.txt at top level, payloads/<path> for everything else.
func forestMember(name string) (string, bool, bool, string) {
	switch name {
	case bundleMember:
		return "", true, true, ""
	case readmeMember:
		return "", false, false, ""
	}
	rel, ok := strings.CutPrefix(name, payloadPrefix)
	if !ok {
		return "", false, false, "only forest.bundle, README.txt and payloads/... may appear in a .forest file"
	}
	return rel, false, true, checkPayloadPath(rel)
}

// sidecarName is the v0.50 name rule of a legacy <bundle>.payloads.zip,
// with \w read as Python 3 reads it (any letter or digit).
var sidecarName = regexp.MustCompile(`^[\p{L}\p{N}_\-. /]+\.(db|sqlite)$`)

// sidecarMember is the legacy sidecar rule (I.1): forest-relative
// *.db/*.sqlite names, plus the .forest hardening.
func sidecarMember(name string) (string, bool, bool, string) {
	if !sidecarName.MatchString(name) {
		return "", false, false, "a payload sidecar holds only forest-relative .db and .sqlite files"
	}
	return name, false, true, checkPayloadPath(name)
}

// memberRefusal is the E_SCHEMA naming the first bad member.
func memberRefusal(name, reason string) error {
	return envelope.New(envelope.Schema, fmt.Sprintf("snapshot: archive member %q refused: %s", clip(name), reason),
		"nothing was extracted; a .forest file holds forest.bundle, README.txt and payloads/<path> entries only").
		With("member", clip(name))
}

// inspect checks every member of zr before anything is extracted (I.4
// rules 3 and 4) and returns what to extract. The first bad member
// refuses the whole archive. The declared sizes may sum to limit, the
// part of the ceiling maxBytes left to this archive.
func inspect(zr *zip.Reader, rule memberRule, limit, maxBytes int64) (*plan, error) {
	p := &plan{}
	seen := map[string]bool{}
	files := map[string]bool{}
	for _, f := range zr.File {
		if seen[f.Name] {
			return nil, memberRefusal(f.Name, "the name appears twice")
		}
		seen[f.Name] = true
		if isDirEntry(f) {
			if reason := checkPlainPath(strings.TrimSuffix(f.Name, "/")); reason != "" {
				return nil, memberRefusal(f.Name, reason)
			}
			continue
		}
		if reason := checkEntry(f); reason != "" {
			return nil, memberRefusal(f.Name, reason)
		}
		rel, isBundle, keep, reason := rule(f.Name)
		if reason != "" {
			return nil, memberRefusal(f.Name, reason)
		}
		if f.UncompressedSize64 > uint64(max(limit, 0)) || p.declared+int64(f.UncompressedSize64) > limit {
			return nil, ceilingRefusal(maxBytes)
		}
		p.declared += int64(f.UncompressedSize64)
		switch {
		case isBundle:
			p.bundle = f
		case keep:
			p.payloads = append(p.payloads, member{f: f, rel: rel})
			files[rel] = true
		}
	}
	return p, nestedFiles(p.payloads, files)
}

// isDirEntry reports a directory entry, which carries no bytes.
func isDirEntry(f *zip.File) bool {
	return strings.HasSuffix(f.Name, "/") || f.Mode().IsDir()
}

// checkEntry refuses what a plain file entry must not be: a symlink or
// other special mode, encrypted, or packed with a method this reader does
// not know.
func checkEntry(f *zip.File) string {
	switch {
	case !f.Mode().IsRegular():
		return "not a regular file (mode " + f.Mode().String() + ")"
	case f.Flags&0x1 != 0:
		return "encrypted"
	case f.Method != zip.Store && f.Method != zip.Deflate:
		return fmt.Sprintf("compression method %d is not store or deflate", f.Method)
	}
	return ""
}

// nestedFiles refuses a payload whose path runs through another payload
// file: one of the two could not be written.
func nestedFiles(ms []member, files map[string]bool) error {
	for _, m := range ms {
		for i := strings.IndexByte(m.rel, '/'); i >= 0; i = nextSlash(m.rel, i) {
			if files[m.rel[:i]] {
				return memberRefusal(m.f.Name, "it lies under another member that is a file: "+m.rel[:i])
			}
		}
	}
	return nil
}

func nextSlash(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// ceilingRefusal is the E_SCHEMA of an archive that inflates past the
// ceiling, by its headers or by its bytes.
func ceilingRefusal(maxBytes int64) error {
	return envelope.New(envelope.Schema,
		fmt.Sprintf("snapshot: the archive inflates past the restore ceiling of %d bytes", maxBytes),
		"nothing was kept; raise the ceiling (RestoreOptions.MaxBytes) only for an archive you trust")
}

// budget counts the bytes actually inflated against the ceiling, so a
// header that understates a member gets no further than an honest one.
type budget struct{ left int64 }

// reader wraps one member: it yields at most declared bytes and refuses
// the member, and the archive, the moment either the member or the whole
// outruns what it may hold.
func (b *budget) reader(r io.Reader, name string, declared uint64, maxBytes int64) io.Reader {
	return &meteredReader{r: r, b: b, name: name, left: int64(min(declared, uint64(maxBytes))), max: maxBytes}
}

type meteredReader struct {
	r    io.Reader
	b    *budget
	name string
	left int64 // bytes the member's header still allows
	max  int64
}

func (m *meteredReader) Read(p []byte) (int, error) {
	if m.left <= 0 || m.b.left <= 0 {
		// Probe one byte: an honest member is at EOF here.
		var one [1]byte
		n, err := m.r.Read(one[:])
		// archive/zip answers ErrFormat itself once a member outruns its
		// header; either way the member is longer than it says.
		more := n > 0 || (m.left <= 0 && errors.Is(err, zip.ErrFormat))
		switch {
		case more && m.left > 0:
			return 0, ceilingRefusal(m.max)
		case more:
			return 0, memberRefusal(m.name, "it inflates beyond the size its header declares")
		}
		return 0, m.fail(err)
	}
	if int64(len(p)) > min(m.left, m.b.left) {
		p = p[:min(m.left, m.b.left)]
	}
	n, err := m.r.Read(p)
	m.left -= int64(n)
	m.b.left -= int64(n)
	return n, m.fail(err)
}

// fail names the member when its bytes do not inflate as the archive says
// (a bad checksum, a size that lies, a broken stream).
func (m *meteredReader) fail(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	var e *envelope.Error
	if errors.As(err, &e) {
		return err
	}
	return memberRefusal(m.name, "its bytes do not inflate as its header says ("+err.Error()+")")
}

// openBundleHeader reads the header of a bundle stream, for the checks
// restore makes before it creates anything.
func openBundleHeader(r io.Reader) (*bundleHeader, *bufio.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h, err := readBundleHeader(br)
	if err != nil {
		return nil, nil, err
	}
	return h, br, nil
}
