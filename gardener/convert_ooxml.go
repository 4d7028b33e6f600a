// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// ooxmlPackage is an Office Open XML zip (xlsx, docx): parts by name and
// the relationships that connect them. Only archive/zip and encoding/xml
// are used, so reading a workbook or a document needs no dependency.
//
// Every part is read under the archive limits: a zip bomb inflates a
// thousand to one, so the bytes inflated are counted per part and for
// the whole package, declared and actual alike.
type ooxmlPackage struct {
	parts map[string]*zip.File
	lower map[string]*zip.File // case-insensitive fallback for odd writers

	lim      Limits
	inflated int64 // bytes inflated from all parts so far
	cells    int   // workbook cells read so far, padding included
	cellText int64 // bytes of text those cells hold
}

// openOOXML opens the package at path under lim; close releases the file.
func openOOXML(path string, lim Limits) (pkg *ooxmlPackage, closeFn func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		pkg, err = readOOXML(f, fi.Size(), lim)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return pkg, func() { f.Close() }, nil
}

// readOOXML reads the package directory of the zip in ra. The member
// count is taken from the end record first, so a directory of a million
// entries is refused before it is read.
func readOOXML(ra io.ReaderAt, size int64, lim Limits) (*ooxmlPackage, error) {
	lim = lim.orDefault()
	tooMany := func(n int64) error {
		return &LimitError{Limit: "ArchiveMembers", Max: int64(lim.ArchiveMembers), What: fmt.Sprintf("archive of %d members", n)}
	}
	if n, ok := zipMemberCount(ra, size); ok && n > int64(lim.ArchiveMembers) {
		return nil, tooMany(n)
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, err
	}
	if len(zr.File) > lim.ArchiveMembers { // the end record can understate
		return nil, tooMany(int64(len(zr.File)))
	}
	p := &ooxmlPackage{parts: map[string]*zip.File{}, lower: map[string]*zip.File{}, lim: lim}
	for _, f := range zr.File {
		name := strings.TrimPrefix(strings.ReplaceAll(f.Name, `\`, "/"), "/")
		p.parts[name] = f
		p.lower[strings.ToLower(name)] = f
	}
	return p, nil
}

func (p *ooxmlPackage) has(name string) bool { return p.find(name) != nil }

func (p *ooxmlPackage) find(name string) *zip.File {
	if f, ok := p.parts[name]; ok {
		return f
	}
	return p.lower[strings.ToLower(name)]
}

// open returns an XML decoder over a part; close releases it. A part
// that declares more than the member limit, or than the archive limit
// has left, is refused before a byte is inflated; what it actually
// inflates is counted as it is read (a header can lie), and no run of
// text or tag may pass the line limit (the decoder would buffer it whole).
func (p *ooxmlPackage) open(name string) (x *xmlStream, closeFn func(), err error) {
	f := p.find(name)
	if f == nil {
		return nil, nil, fmt.Errorf("part %s is missing", name)
	}
	if err := p.admit(name, f.UncompressedSize64); err != nil {
		return nil, nil, err
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("part %s: %w", name, err)
	}
	mr := &memberReader{r: io.LimitReader(rc, p.lim.MemberBytes+1), pkg: p, name: name, declared: f.UncompressedSize64}
	dec := xml.NewDecoder(&markupReader{r: mr, max: p.lim.LineBytes, name: name})
	return &xmlStream{dec: dec, max: p.lim.XMLDepth, part: name}, func() { rc.Close() }, nil
}

// xmlStream is a part's XML decoder that refuses elements nested deeper
// than max. The decoder keeps state for every open element (about a
// hundred bytes each), so three-byte "<a>" tags inflating to a few
// megabytes would cost gigabytes. Every token passes through here, Skip
// included, so the count is exact.
type xmlStream struct {
	dec   *xml.Decoder
	max   int
	depth int
	part  string
}

// Token is xml.Decoder.Token within the depth limit.
func (x *xmlStream) Token() (xml.Token, error) {
	tok, err := x.dec.Token()
	return tok, x.track(tok, err)
}

// RawToken is xml.Decoder.RawToken within the depth limit.
func (x *xmlStream) RawToken() (xml.Token, error) {
	tok, err := x.dec.RawToken()
	return tok, x.track(tok, err)
}

// Skip consumes the rest of the element just opened, as
// xml.Decoder.Skip does, through Token.
func (x *xmlStream) Skip() error {
	for depth := 0; ; {
		tok, err := x.Token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				return nil
			}
			depth--
		}
	}
}

func (x *xmlStream) track(tok xml.Token, err error) error {
	switch tok.(type) {
	case xml.StartElement:
		if x.depth++; x.depth > x.max {
			return &LimitError{Limit: "XMLDepth", Max: int64(x.max), What: fmt.Sprintf("element nesting in part %s", x.part)}
		}
	case xml.EndElement:
		x.depth--
	}
	return err
}

// admit checks a part's declared inflated size against the limits.
func (p *ooxmlPackage) admit(name string, declared uint64) error {
	if declared > uint64(p.lim.MemberBytes) {
		return &LimitError{Limit: "MemberBytes", Max: p.lim.MemberBytes,
			What: fmt.Sprintf("part %s declares %d bytes inflated", name, declared)}
	}
	if declared > uint64(p.lim.ArchiveBytes-p.inflated) {
		return &LimitError{Limit: "ArchiveBytes", Max: p.lim.ArchiveBytes,
			What: fmt.Sprintf("part %s declares %d bytes inflated after %d already", name, declared, p.inflated)}
	}
	return nil
}

// memberReader counts the bytes a part actually inflates against the
// member and archive limits. Under it, a LimitReader stops inflating
// one byte past the member limit whatever happens above.
type memberReader struct {
	r        io.Reader
	pkg      *ooxmlPackage
	name     string
	declared uint64
	read     int64
}

func (m *memberReader) Read(b []byte) (int, error) {
	n, err := m.r.Read(b)
	m.read += int64(n)
	m.pkg.inflated += int64(n)
	switch {
	case m.read > m.pkg.lim.MemberBytes:
		return 0, &LimitError{Limit: "MemberBytes", Max: m.pkg.lim.MemberBytes, What: fmt.Sprintf("part %s inflated", m.name)}
	case m.pkg.inflated > m.pkg.lim.ArchiveBytes:
		return 0, &LimitError{Limit: "ArchiveBytes", Max: m.pkg.lim.ArchiveBytes, What: fmt.Sprintf("archive inflated, at part %s,", m.name)}
	case errors.Is(err, zip.ErrFormat):
		// archive/zip stops a part that inflates past its declared size.
		return n, fmt.Errorf("part %s inflates past its declared size of %d bytes, or is corrupt: %w", m.name, m.declared, err)
	}
	return n, err
}

// markupReader refuses a run of text or a tag longer than max bytes: the
// XML decoder buffers each whole, and none of them renders on more than
// one line.
type markupReader struct {
	r    io.Reader
	max  int
	name string
	run  int // bytes since the last '<' or '>'
}

func (m *markupReader) Read(b []byte) (int, error) {
	n, err := m.r.Read(b)
	for i, c := range b[:n] {
		if c == '<' || c == '>' {
			m.run = 0
			continue
		}
		if m.run++; m.run > m.max {
			return i, &LimitError{Limit: "LineBytes", Max: int64(m.max), What: fmt.Sprintf("text run or tag in part %s", m.name)}
		}
	}
	return n, err
}

// charge counts a row of workbook cells and the text they hold: a
// shared string costs its bytes again for every cell that uses it, which
// is what the dataset will hold.
func (p *ooxmlPackage) charge(row []any) error {
	p.cells += len(row)
	if p.cells > p.lim.SheetCells {
		return &LimitError{Limit: "SheetCells", Max: int64(p.lim.SheetCells), What: "workbook cells"}
	}
	for _, v := range row {
		if s, ok := v.(string); ok {
			p.cellText += int64(len(s))
		}
	}
	if p.cellText > p.lim.ArchiveBytes {
		return &LimitError{Limit: "ArchiveBytes", Max: p.lim.ArchiveBytes, What: "workbook cell text (a shared string counts once per cell using it)"}
	}
	return nil
}

// zipMemberCount reads the member count from a zip's end of central
// directory record (the zip64 one when the classic field is saturated).
// ok is false when no record is found; zip.NewReader then refuses.
func zipMemberCount(ra io.ReaderAt, size int64) (n int64, ok bool) {
	const endLen, maxComment = 22, 1<<16 - 1
	tail := make([]byte, min(size, endLen+maxComment))
	if _, err := ra.ReadAt(tail, size-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	at := bytes.LastIndex(tail, []byte("PK\x05\x06"))
	if at < 0 || len(tail)-at < endLen {
		return 0, false
	}
	if n := binary.LittleEndian.Uint16(tail[at+10:]); n != 0xFFFF {
		return int64(n), true
	}
	return zip64MemberCount(ra, size-int64(len(tail))+int64(at))
}

// zip64MemberCount follows the zip64 locator just before the end record
// at end to the zip64 end record and its member count.
func zip64MemberCount(ra io.ReaderAt, end int64) (int64, bool) {
	loc := make([]byte, 20)
	if end < 20 {
		return 0, false
	}
	if _, err := ra.ReadAt(loc, end-20); err != nil || !bytes.Equal(loc[:4], []byte("PK\x06\x07")) {
		return 0, false
	}
	rec := make([]byte, 40)
	off := binary.LittleEndian.Uint64(loc[8:])
	if off > uint64(end) {
		return 0, false
	}
	if _, err := ra.ReadAt(rec, int64(off)); err != nil || !bytes.Equal(rec[:4], []byte("PK\x06\x06")) {
		return 0, false
	}
	n := binary.LittleEndian.Uint64(rec[32:])
	return int64(min(n, 1<<62)), true
}

// relationship is one entry of a .rels part, its target resolved to a
// part name.
type relationship struct {
	id, typ, target string
}

// relationships reads the .rels part of the part named owner ("" for the
// package itself). A missing .rels part is no relationships.
func (p *ooxmlPackage) relationships(owner string) ([]relationship, error) {
	dir, base := path.Split(owner)
	relsName := dir + "_rels/" + base + ".rels"
	if !p.has(relsName) {
		return nil, nil
	}
	dec, done, err := p.open(relsName)
	if err != nil {
		return nil, err
	}
	defer done()
	var rels []relationship
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return rels, nil
		}
		if err != nil {
			return nil, fmt.Errorf("part %s: %w", relsName, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "Relationship" || xmlAttr(se, "TargetMode") == "External" {
			continue
		}
		rels = append(rels, relationship{
			id:     xmlAttr(se, "Id"),
			typ:    xmlAttr(se, "Type"),
			target: resolveTarget(dir, xmlAttr(se, "Target")),
		})
	}
}

// resolveTarget turns a relationship target into a part name: absolute
// targets start at the package root, relative ones at the owner's folder.
func resolveTarget(dir, target string) string {
	target = strings.ReplaceAll(target, `\`, "/")
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}

// relTarget is the first target whose type ends with suffix
// ("/officeDocument", "/styles"), else fallback.
func relTarget(rels []relationship, suffix, fallback string) string {
	for _, r := range rels {
		if strings.HasSuffix(r.typ, suffix) {
			return r.target
		}
	}
	return fallback
}

// xmlAttr is the value of the attribute with the given local name.
func xmlAttr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
