// SPDX-License-Identifier: Apache-2.0

package gardener_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
)

// The generators of hostile inputs. Each writes its file as a stream, so
// a 200 MB line or a 600 MB inflated member never sits in the test's own
// memory; the zip bombs are a few hundred kilobytes on disk.

// deepJSON nests depth empty arrays.
func deepJSON(depth int) func(io.Writer) error {
	return func(w io.Writer) error {
		return repeatAround(w, "", "[", depth, "", "]", depth)
	}
}

// deepArgs are plant's arguments with a deeply nested extra field.
func deepArgs(depth int) func(io.Writer) error {
	return func(w io.Writer) error {
		return repeatAround(w, `{"node": {"id": "deep", "parent": "_index", "type": "note", "title": "Deep", `+
			`"summary": "A node whose extra field nests very deep.", "body": "# Deep", "extra": `,
			"[", depth, "1", "]", depth, "}}")
	}
}

// longStringJSON is an object holding one string of n bytes.
func longStringJSON(n int64) func(io.Writer) error {
	return func(w io.Writer) error {
		return repeatAround(w, `{"text": "`, "a", int(n), "", `"}`, 1)
	}
}

// singleLine is one line of n bytes of fields, no line break anywhere.
func singleLine(n int64) func(io.Writer) error {
	return func(w io.Writer) error {
		return repeatAround(w, "", "a,", int(n/2), "", "\n", 0)
	}
}

// repeatAround writes head, unit×n, mid, tail×m and the rest, buffered.
func repeatAround(w io.Writer, head, unit string, n int, mid, tail string, m int, rest ...string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(head)
	writeRepeated(bw, unit, n)
	bw.WriteString(mid)
	writeRepeated(bw, tail, m)
	for _, r := range rest {
		bw.WriteString(r)
	}
	return bw.Flush()
}

func writeRepeated(w *bufio.Writer, unit string, n int) {
	if unit == "" || n <= 0 {
		return
	}
	chunk := strings.Repeat(unit, max(1, 4096/len(unit)))
	per := len(chunk) / len(unit)
	for ; n >= per; n -= per {
		w.WriteString(chunk)
	}
	w.WriteString(strings.Repeat(unit, n))
}

// linksFrontmatter is a node file whose frontmatter declares n links.
func linksFrontmatter(n int) func(io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString(nodeHead + "links:\n")
		for i := range n {
			fmt.Fprintf(bw, "  - rel: related-to\n    target: t%05d\n", i)
		}
		bw.WriteString("---\n\n# Hostile\n\nBody.\n")
		return bw.Flush()
	}
}

// flowLinks is a node file declaring n links, one short flow mapping a
// line, so that they fit the frontmatter byte limit.
func flowLinks(n int) func(io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString(nodeHead + "links:\n")
		for i := range n {
			fmt.Fprintf(bw, "- {rel: r, target: t%d}\n", i)
		}
		bw.WriteString("---\n\n# Hostile\n\nBody.\n")
		return bw.Flush()
	}
}

// nodeHead opens a node file with the fields every node has.
const nodeHead = "---\nid: hostile\ntype: note\ntitle: Hostile\n" +
	"summary: A hand-written node that tries to exhaust the reader.\n" +
	"created: 2026-01-01\nupdated: 2026-01-01\n"

// nodeWith is a node file whose frontmatter ends with extra.
func nodeWith(extra string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, nodeHead+extra+"---\n\n# Hostile\n\nBody.\n")
		return err
	}
}

// yamlAliasBomb is "billion laughs": nine levels of nine aliases.
func yamlAliasBomb() string {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		p := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.Repeat(p+", ", 8)+p)
	}
	return b.String()
}

// zipMember is one member of a generated archive: its content streamed
// by body, and declared, when not zero, the size its header claims.
type zipMember struct {
	name     string
	body     func(io.Writer) error
	declared uint64
}

// writeZip deflates every member in memory first (a bomb compresses a
// thousand to one) and writes it raw, so a header can claim any size.
func writeZip(members ...zipMember) func(io.Writer) error {
	return func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for _, m := range members {
			if err := rawMember(zw, m); err != nil {
				return err
			}
		}
		return zw.Close()
	}
}

func rawMember(zw *zip.Writer, m zipMember) error {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.DefaultCompression)
	cw := &countingWriter{w: fw, crc: crc32.NewIEEE()}
	if err := m.body(cw); err != nil {
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	size := cw.n
	if m.declared != 0 {
		size = m.declared
	}
	out, err := zw.CreateRaw(&zip.FileHeader{Name: m.name, Method: zip.Deflate,
		CRC32: cw.crc.Sum32(), CompressedSize64: uint64(comp.Len()), UncompressedSize64: size})
	if err != nil {
		return err
	}
	_, err = out.Write(comp.Bytes())
	return err
}

type countingWriter struct {
	w   io.Writer
	n   uint64
	crc interface {
		io.Writer
		Sum32() uint32
	}
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += uint64(len(p))
	c.crc.Write(p)
	return c.w.Write(p)
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

const (
	nsMainW   = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsMainX   = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRelsPkg = "http://schemas.openxmlformats.org/package/2006/relationships"
	nsRelsDoc = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// docxBomb is a document whose one paragraph inflates to n bytes; the
// header claims declared bytes when not zero.
func docxBomb(n int64, declared uint64) func(io.Writer) error {
	body := func(w io.Writer) error {
		return repeatAround(w, `<w:document xmlns:w="`+nsMainW+`"><w:body><w:p><w:r><w:t>`,
			"a", int(n), "", `</w:t></w:r></w:p></w:body></w:document>`, 1)
	}
	return writeZip(
		zipMember{name: "_rels/.rels", body: text(`<Relationships xmlns="` + nsRelsPkg + `">` +
			`<Relationship Id="r1" Type="` + nsRelsDoc + `/officeDocument" Target="word/document.xml"/></Relationships>`)},
		zipMember{name: "word/document.xml", body: body, declared: declared},
	)
}

// docxNesting is a document whose one paragraph opens n runs inside
// each other.
func docxNesting(n int) func(io.Writer) error {
	return docxBody(func(w io.Writer) error {
		return repeatAround(w, `<w:p>`, `<w:r>`, n, `<w:t>x</w:t>`, `</w:r>`, n, `</w:p>`)
	})
}

// docxParagraphs is a document of n paragraphs of size letters each.
func docxParagraphs(n, size int) func(io.Writer) error {
	para := `<w:p><w:r><w:t>` + strings.Repeat("a", size) + `</w:t></w:r></w:p>`
	return docxBody(func(w io.Writer) error { return repeatAround(w, "", para, n, "", "", 0) })
}

// docxBody is a document whose body is written by body.
func docxBody(body func(io.Writer) error) func(io.Writer) error {
	doc := func(w io.Writer) error {
		io.WriteString(w, `<w:document xmlns:w="`+nsMainW+`"><w:body>`)
		if err := body(w); err != nil {
			return err
		}
		_, err := io.WriteString(w, `</w:body></w:document>`)
		return err
	}
	return writeZip(
		zipMember{name: "_rels/.rels", body: text(`<Relationships xmlns="` + nsRelsPkg + `">` +
			`<Relationship Id="r1" Type="` + nsRelsDoc + `/officeDocument" Target="word/document.xml"/></Relationships>`)},
		zipMember{name: "word/document.xml", body: doc},
	)
}

// manyMembers is a document with n empty extra members.
func manyMembers(n int) func(io.Writer) error {
	return func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for i := range n {
			if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("m/%d", i), Method: zip.Store}); err != nil {
				return err
			}
		}
		doc, _ := zw.Create("word/document.xml")
		io.WriteString(doc, `<w:document xmlns:w="`+nsMainW+`"><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`)
		return zw.Close()
	}
}

// xlsxWith is a one-sheet workbook whose sheet data is rows and whose
// shared strings are sst ("" for none); declared as in docxBomb.
func xlsxWith(rows func(io.Writer) error, sst string, declared uint64) func(io.Writer) error {
	sheet := func(w io.Writer) error {
		io.WriteString(w, `<worksheet xmlns="`+nsMainX+`"><sheetData>`)
		if err := rows(w); err != nil {
			return err
		}
		_, err := io.WriteString(w, `</sheetData></worksheet>`)
		return err
	}
	members := []zipMember{
		{name: "_rels/.rels", body: text(`<Relationships xmlns="` + nsRelsPkg + `">` +
			`<Relationship Id="r1" Type="` + nsRelsDoc + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`)},
		{name: "xl/workbook.xml", body: text(`<workbook xmlns="` + nsMainX + `" xmlns:r="` + nsRelsDoc + `">` +
			`<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`)},
		{name: "xl/_rels/workbook.xml.rels", body: text(`<Relationships xmlns="` + nsRelsPkg + `">` +
			`<Relationship Id="rId1" Type="` + nsRelsDoc + `/worksheet" Target="worksheets/sheet1.xml"/>` +
			`<Relationship Id="rId2" Type="` + nsRelsDoc + `/sharedStrings" Target="sharedStrings.xml"/></Relationships>`)},
		{name: "xl/worksheets/sheet1.xml", body: sheet, declared: declared},
	}
	if sst != "" {
		members = append(members, zipMember{name: "xl/sharedStrings.xml", body: text(sst)})
	}
	return writeZip(members...)
}

// sheetRows writes n rows, row i holding cell(i).
func sheetRows(n int, cell func(i int) string) func(io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(bw, `<row r="%d">%s</row>`, i, cell(i))
		}
		return bw.Flush()
	}
}

// bigSST is a shared-string table of one string of n bytes.
func bigSST(n int) string {
	return `<sst xmlns="` + nsMainX + `"><si><t>` + strings.Repeat("s", n) + `</t></si></sst>`
}
