// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// docxConverter renders a Word document as markdown (G.2.1): body
// paragraphs and tables in order, headings from paragraph styles, text
// boxes included, headers and footers left out (letterhead pollutes the
// scent of every page).
type docxConverter struct{ lim Limits }

func (docxConverter) Extensions() []string { return []string{".docx"} }

func (c docxConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	pkg, done, err := openOOXML(path, c.lim)
	if err != nil {
		return nil, docxError(path, err)
	}
	defer done()
	doc, err := readDocx(ctx, pkg)
	if err != nil {
		return nil, docxError(path, err)
	}
	title, body := doc.render(stemTitle(path))
	if max := pkg.lim.DocumentBytes; len(body) > max {
		return nil, docxError(path, &LimitError{Limit: "DocumentBytes", Max: int64(max), What: "rendered document size"})
	}
	return &Conversion{Kind: KindMarkdown, Title: title, Markdown: body}, nil
}

func docxError(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if isLimit(err) {
		return limitRefusal("docx", path, err)
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("docx %s could not be read: %v", filepath.Base(path), err),
		"save the document again as .docx, or convert it with a command hook")
}

// docxBlock is one body child: a paragraph (level 0 = not a heading) or
// a table of cell texts.
type docxBlock struct {
	text  string
	level int
	rows  [][]string
	table bool
}

// docxDocument is a document as read: its first level-1 heading and the
// markdown of its body, rendered block by block as they were read.
type docxDocument struct {
	title string
	body  string
}

// render returns the title (the first level-1 heading, else fallback)
// and the markdown body.
func (d docxDocument) render(fallback string) (title, body string) {
	title = d.title
	if title == "" {
		title = fallback
	}
	if d.body == "" {
		return title, "# " + title + "\n"
	}
	return title, "# " + title + "\n\n" + d.body + "\n"
}

// docxWriter renders blocks into markdown as they are read, so a
// document is held once, as its markdown, and never past max bytes.
// Document headings start at "##": "#" is the node's title.
type docxWriter struct {
	title string
	out   strings.Builder
	max   int
}

// add renders one block followed by a blank line.
func (w *docxWriter) add(b docxBlock) error {
	if b.table {
		if err := w.fits(tableSize(b.rows)); err != nil {
			return err
		}
		for _, line := range pipeTable(b.rows) {
			w.line(line)
		}
	} else {
		if b.level == 1 && w.title == "" {
			w.title = b.text
		}
		text := b.text
		if b.level > 0 {
			text = strings.Repeat("#", min(b.level+1, 6)) + " " + text
		}
		if err := w.fits(len(text)); err != nil {
			return err
		}
		w.line(text)
	}
	w.line("")
	return nil
}

func (w *docxWriter) line(s string) {
	w.out.WriteString(s)
	w.out.WriteByte('\n')
}

// fits refuses n more bytes once they would take the markdown past max.
func (w *docxWriter) fits(n int) error {
	if n > w.max-w.out.Len() {
		return &LimitError{Limit: "DocumentBytes", Max: int64(w.max), What: "rendered document size"}
	}
	return nil
}

// document is what was written, as read by render.
func (w *docxWriter) document() docxDocument {
	return docxDocument{title: w.title, body: strings.TrimSpace(w.out.String())}
}

// tableSize is the bytes pipeTable renders rows to: every row padded to
// the widest, so one wide row makes every row wide.
func tableSize(rows [][]string) int {
	width, text := 0, 0
	for _, r := range rows {
		width = max(width, len(r))
		for _, c := range r {
			text += len(c)
		}
	}
	return min((len(rows)+1)*(3*width+2), math.MaxInt/2) + text
}

// pipeTable renders rows (already escaped) padded to the widest row,
// the first row as header.
func pipeTable(rows [][]string) []string {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	line := func(r []string) string {
		cells := make([]string, width)
		copy(cells, r)
		return "| " + strings.Join(cells, " | ") + " |"
	}
	out := []string{line(rows[0]), "|" + strings.Repeat(" --- |", width)}
	for _, r := range rows[1:] {
		out = append(out, line(r))
	}
	return out
}

// readDocx reads the main document part of a .docx package. Only that
// part is read: headers, footers, comments and notes live in parts of
// their own.
func readDocx(ctx context.Context, pkg *ooxmlPackage) (docxDocument, error) {
	rootRels, err := pkg.relationships("")
	if err != nil {
		return docxDocument{}, err
	}
	docPart := relTarget(rootRels, relOfficeDocument, "word/document.xml")
	docRels, err := pkg.relationships(docPart)
	if err != nil {
		return docxDocument{}, err
	}
	styles, err := styleNames(pkg, relTarget(docRels, "/styles", "word/styles.xml"))
	if err != nil {
		return docxDocument{}, err
	}
	dec, done, err := pkg.open(docPart)
	if err != nil {
		return docxDocument{}, err
	}
	defer done()
	if err := seekBody(dec); err != nil {
		return docxDocument{}, err
	}
	return readBody(ctx, dec, styles, pkg.lim.DocumentBytes)
}

// readBody reads the children of <w:body> up to its end. Each block is
// streamed, never built as a tree: a run costs the text it adds, so what
// a document holds in memory is about what it renders to, and that may
// not pass maxText (the document limit).
func readBody(ctx context.Context, dec *xmlStream, styles map[string]string, maxText int) (docxDocument, error) {
	w := &docxWriter{max: maxText}
	br := &blockReader{dec: dec, max: maxText}
	for {
		if err := ctx.Err(); err != nil {
			return docxDocument{}, err
		}
		tok, err := dec.Token()
		if err != nil {
			return docxDocument{}, err
		}
		switch t := tok.(type) {
		case xml.EndElement: // </w:body>
			return w.document(), nil
		case xml.StartElement:
			if !isW(t.Name) || (t.Name.Local != "p" && t.Name.Local != "tbl") {
				if err := dec.Skip(); err != nil {
					return docxDocument{}, err
				}
				continue
			}
			br.used = w.out.Len()
			b, err := br.read(t.Name.Local == "tbl", styles)
			if err != nil {
				return docxDocument{}, err
			}
			if b.table && len(b.rows) > 0 || !b.table && b.text != "" {
				if err := w.add(b); err != nil {
					return docxDocument{}, err
				}
			}
		}
	}
}

// seekBody advances past <w:body>.
func seekBody(dec *xmlStream) error {
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return errors.New("document part has no body")
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && isW(se.Name) && se.Name.Local == "body" {
			return nil
		}
	}
}

// The WordprocessingML namespaces: transitional and strict.
const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

func isW(n xml.Name) bool { return n.Space == nsW || n.Space == nsWStrict }

// blockReader streams one body child (w:p or w:tbl, just opened) into a
// block. A paragraph is all of its w:t text (runs Word split mid-word
// merge, text boxes included) and the style of its own w:pPr/w:pStyle. A
// table is its direct w:tr rows of direct w:tc cells, each cell all of
// its text (a nested table flattens into it). Fallback branches of
// markup-compatibility blocks are skipped: Word writes every text box
// twice, as the modern choice and as a VML fallback.
type blockReader struct {
	dec  *xmlStream
	max  int // bytes the document may hold (the document limit)
	used int // bytes it holds so far, this block's text included

	stack  []docxRole // roles of the elements open below the block
	text   strings.Builder
	style  string
	styled bool // the paragraph's own style was seen
	row    []string
	rows   [][]string
}

// docxRole is what an open element means to the block being read.
type docxRole uint8

const (
	roleOther docxRole = iota
	roleText           // w:t: its character data is text
	rolePPr            // the paragraph's own w:pPr
	roleRow            // a direct w:tr of the table
	roleCell           // a direct w:tc of such a row
)

// read consumes the block up to its end element.
func (br *blockReader) read(table bool, styles map[string]string) (docxBlock, error) {
	br.stack, br.style, br.styled, br.row, br.rows = br.stack[:0], "", false, nil, nil
	br.text.Reset()
	for depth := 1; depth > 0; {
		tok, err := br.dec.Token()
		if err != nil {
			return docxBlock{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == nsMC && t.Name.Local == "Fallback" {
				if err := br.dec.Skip(); err != nil {
					return docxBlock{}, err
				}
				continue
			}
			depth++
			br.open(t, table)
		case xml.EndElement:
			if depth--; depth > 0 {
				if err := br.close(); err != nil {
					return docxBlock{}, err
				}
			}
		case xml.CharData:
			if err := br.chars(t); err != nil {
				return docxBlock{}, err
			}
		}
	}
	if table {
		return docxBlock{table: true, rows: br.rows}, nil
	}
	text := collapseSpace(br.text.String())
	return docxBlock{text: text, level: headingLevel(br.style, styles)}, nil
}

// open pushes the role of an element just opened below the block.
func (br *blockReader) open(se xml.StartElement, table bool) {
	role, depth := roleOther, len(br.stack)
	switch {
	case !isW(se.Name):
	case se.Name.Local == "t":
		role = roleText
	case !table && depth == 0 && se.Name.Local == "pPr":
		role = rolePPr
	case !table && depth == 1 && br.stack[0] == rolePPr && se.Name.Local == "pStyle":
		if !br.styled {
			br.style, br.styled = xmlAttr(se, "val"), true
		}
	case table && depth == 0 && se.Name.Local == "tr":
		role, br.row = roleRow, nil
	case table && depth == 1 && br.stack[0] == roleRow && se.Name.Local == "tc":
		role = roleCell
		br.text.Reset()
	}
	br.stack = append(br.stack, role)
}

// close pops an element; the end of a cell or a row completes it.
func (br *blockReader) close() error {
	role := br.stack[len(br.stack)-1]
	br.stack = br.stack[:len(br.stack)-1]
	switch role {
	case roleCell:
		cell := strings.ReplaceAll(collapseSpace(br.text.String()), "|", `\|`)
		br.row = append(br.row, cell)
		return br.spend(len(" | ")) // an empty cell still renders
	case roleRow:
		if slices.ContainsFunc(br.row, func(c string) bool { return c != "" }) {
			br.rows = append(br.rows, br.row)
		}
	}
	return nil
}

// chars keeps the character data of a w:t that belongs to the block: in
// a table, only text inside one of its cells counts.
func (br *blockReader) chars(cd xml.CharData) error {
	n := len(br.stack)
	if n == 0 || br.stack[n-1] != roleText {
		return nil
	}
	if br.stack[0] == roleRow && (n < 3 || br.stack[1] != roleCell) {
		return nil
	}
	br.text.Write(cd)
	return br.spend(len(cd))
}

// spend counts n bytes against the document limit.
func (br *blockReader) spend(n int) error {
	if br.used += n; br.used > br.max {
		return &LimitError{Limit: "DocumentBytes", Max: int64(br.max), What: "document text"}
	}
	return nil
}

// collapseSpace joins the fields of s with single spaces.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for f := range strings.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

// headingLevel is 1 for Title, N for Heading N (1-9), else 0. The style's
// name decides, not its id: ids are localised ("berschrift1") where
// names of built-in styles are not.
func headingLevel(styleID string, styles map[string]string) int {
	if styleID == "" {
		return 0
	}
	name, ok := styles[styleID]
	if !ok {
		name = styleID
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "title" {
		return 1
	}
	rest, ok := strings.CutPrefix(name, "heading")
	rest = strings.TrimPrefix(rest, " ")
	if ok && len(rest) == 1 && rest[0] >= '1' && rest[0] <= '9' {
		return int(rest[0] - '0')
	}
	return 0
}

// styleNames maps style ids to names from the styles part; a document
// without one falls back to reading ids as names.
func styleNames(pkg *ooxmlPackage, part string) (map[string]string, error) {
	styles := map[string]string{}
	if !pkg.has(part) {
		return styles, nil
	}
	dec, done, err := pkg.open(part)
	if err != nil {
		return nil, err
	}
	defer done()
	id := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return styles, nil
		}
		if err != nil {
			return nil, fmt.Errorf("part %s: %w", part, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || !isW(se.Name) {
			continue
		}
		switch se.Name.Local {
		case "style":
			id = xmlAttr(se, "styleId")
		case "name":
			if id != "" {
				styles[id] = xmlAttr(se, "val")
				id = ""
			}
		}
	}
}
