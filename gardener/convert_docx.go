package gardener

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/internal/envelope"
)

// docxConverter renders a Word document as markdown (G.2.1): body
// paragraphs and tables in order, headings from paragraph styles, text
// boxes included, headers and footers left out (letterhead pollutes the
// scent of every page).
type docxConverter struct{}

func (docxConverter) Extensions() []string { return []string{".docx"} }

func (docxConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, docxError(path, err)
	}
	defer zr.Close()
	doc, err := readDocx(ctx, &zr.Reader)
	if err != nil {
		return nil, docxError(path, err)
	}
	title, body := doc.render(stemTitle(path))
	return &Conversion{Kind: KindMarkdown, Title: title, Markdown: body}, nil
}

func docxError(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
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

type docxDocument struct{ blocks []docxBlock }

// render returns the title (the first level-1 heading, else fallback)
// and the markdown body. Document headings start at "##": "#" is the
// node's title.
func (d docxDocument) render(fallback string) (title, body string) {
	var lines []string
	for _, b := range d.blocks {
		if b.table {
			lines = append(lines, pipeTable(b.rows)...)
			lines = append(lines, "")
			continue
		}
		if b.level == 1 && title == "" {
			title = b.text
		}
		if b.level > 0 {
			lines = append(lines, strings.Repeat("#", min(b.level+1, 6))+" "+b.text, "")
		} else {
			lines = append(lines, b.text, "")
		}
	}
	if title == "" {
		title = fallback
	}
	content := strings.TrimSpace(strings.Join(lines, "\n"))
	if content == "" {
		return title, "# " + title + "\n"
	}
	return title, "# " + title + "\n\n" + content + "\n"
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
func readDocx(ctx context.Context, zr *zip.Reader) (docxDocument, error) {
	pkg := newOOXMLPackage(zr)
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
	var doc docxDocument
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
			return doc, nil
		case xml.StartElement:
			if !isW(t.Name) || (t.Name.Local != "p" && t.Name.Local != "tbl") {
				if err := dec.Skip(); err != nil {
					return docxDocument{}, err
				}
				continue
			}
			el, err := readElement(dec, t)
			if err != nil {
				return docxDocument{}, err
			}
			if b, ok := docxBlockOf(el, styles); ok {
				doc.blocks = append(doc.blocks, b)
			}
		}
	}
}

// seekBody advances past <w:body>.
func seekBody(dec *xml.Decoder) error {
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

// xmlElement is the part of an element docx rendering needs: its name,
// attributes, children and, for w:t, its text.
type xmlElement struct {
	name  xml.Name
	attrs []xml.Attr
	kids  []*xmlElement
	text  strings.Builder
}

// readElement builds the subtree of the element just opened, without
// recursion (arbitrary nesting cannot exhaust the stack). Fallback
// branches of markup-compatibility blocks are dropped: Word writes every
// text box twice, as the modern choice and as a VML fallback, and both
// copies would otherwise be read.
func readElement(dec *xml.Decoder, start xml.StartElement) (*xmlElement, error) {
	root := &xmlElement{name: start.Name, attrs: start.Attr}
	stack := []*xmlElement{root}
	for len(stack) > 0 {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == nsMC && t.Name.Local == "Fallback" {
				if err := dec.Skip(); err != nil {
					return nil, err
				}
				continue
			}
			el := &xmlElement{name: t.Name, attrs: t.Attr}
			top.kids = append(top.kids, el)
			stack = append(stack, el)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if isW(top.name) && top.name.Local == "t" {
				top.text.Write(t)
			}
		}
	}
	return root, nil
}

// docxBlockOf turns a w:p or w:tbl into a block; empty ones are dropped.
func docxBlockOf(el *xmlElement, styles map[string]string) (docxBlock, bool) {
	if el.name.Local == "tbl" {
		rows := tableRows(el)
		return docxBlock{table: true, rows: rows}, len(rows) > 0
	}
	text := allText(el)
	if text == "" {
		return docxBlock{}, false
	}
	return docxBlock{text: text, level: headingLevel(paragraphStyle(el), styles)}, true
}

// tableRows reads the direct rows and cells of a table; a cell is all of
// its text (a nested table flattens into it), "|" escaped. Rows without
// text are dropped.
func tableRows(tbl *xmlElement) [][]string {
	var rows [][]string
	for _, tr := range wChildren(tbl, "tr") {
		var row []string
		filled := false
		for _, tc := range wChildren(tr, "tc") {
			cell := strings.ReplaceAll(allText(tc), "|", `\|`)
			filled = filled || cell != ""
			row = append(row, cell)
		}
		if filled {
			rows = append(rows, row)
		}
	}
	return rows
}

func wChildren(el *xmlElement, local string) []*xmlElement {
	var out []*xmlElement
	for _, k := range el.kids {
		if isW(k.name) && k.name.Local == local {
			out = append(out, k)
		}
	}
	return out
}

// allText joins every descendant w:t (which merges runs Word split
// mid-word and takes in text boxes) and collapses whitespace.
func allText(el *xmlElement) string {
	var b strings.Builder
	stack := []*xmlElement{el}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b.WriteString(n.text.String())
		for i := len(n.kids) - 1; i >= 0; i-- {
			stack = append(stack, n.kids[i])
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// paragraphStyle is the style id of the paragraph's own w:pPr/w:pStyle.
func paragraphStyle(p *xmlElement) string {
	for _, ppr := range wChildren(p, "pPr") {
		for _, ps := range wChildren(ppr, "pStyle") {
			return wAttr(ps, "val")
		}
	}
	return ""
}

func wAttr(el *xmlElement, local string) string {
	for _, a := range el.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
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
