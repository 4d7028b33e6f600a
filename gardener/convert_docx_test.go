// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	docxNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
		`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ` +
		`xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ` +
		`xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" ` +
		`xmlns:v="urn:schemas-microsoft-com:vml" ` +
		`xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ` +
		`xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	docxStyles = `<?xml version="1.0" encoding="UTF-8"?><w:styles ` + docxNS + `>` +
		`<w:latentStyles><w:lsdException w:name="heading 3"/></w:latentStyles>` +
		`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Heading7"><w:name w:val="heading 7"/></w:style>` +
		`</w:styles>`
)

// buildDOCX writes a WordprocessingML package whose body is the given
// XML, with a styles part and a header part full of letterhead.
func buildDOCX(t testing.TB, body string) []byte {
	t.Helper()
	return zipParts(t, [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
			`</Relationships>`},
		{"word/_rels/document.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>` +
			`</Relationships>`},
		{"word/styles.xml", docxStyles},
		{"word/header1.xml", `<?xml version="1.0" encoding="UTF-8"?><w:hdr ` + docxNS + `><w:p><w:r><w:t>ACME Letterhead Confidential</w:t></w:r></w:p></w:hdr>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + docxNS + `><w:body>` + body + `</w:body></w:document>`},
	})
}

func docxPara(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func docxCell(text string) string {
	return `<w:tc><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:tc>`
}

func sampleDocxBody() string {
	textBox := `<w:p><w:r><mc:AlternateContent>` +
		`<mc:Choice Requires="wps"><w:drawing><wp:anchor><a:graphic><a:graphicData><wps:wsp><wps:txbx><w:txbxContent>` +
		`<w:p><w:r><w:t>Boxed</w:t></w:r><w:r><w:t xml:space="preserve"> aside</w:t></w:r></w:p>` +
		`</w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>` +
		`<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Boxed aside</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>` +
		`</mc:AlternateContent></w:r></w:p>`
	table := `<w:tbl><w:tblPr/>` +
		`<w:tr>` + docxCell("Region") + docxCell("Note") + `</w:tr>` +
		`<w:tr>` + docxCell("North") + docxCell("a | b") + `</w:tr>` +
		`<w:tr>` + docxCell("") + docxCell("") + `</w:tr>` +
		`<w:tr>` + docxCell("South") + `</w:tr>` +
		`<w:tr>` + docxCell("Nested") + `<w:tc><w:tbl><w:tr>` + docxCell("inner") + docxCell("cells") + `</w:tr></w:tbl></w:tc></w:tr>` +
		`</w:tbl>`
	return docxPara("Title", "Quarterly  Report") +
		docxPara("", "") +
		`<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:t>Reve</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>nue</w:t></w:r>` +
		`<w:r><w:t xml:space="preserve"> grew   12%</w:t></w:r><w:r><w:delText>deleted</w:delText></w:r></w:p>` +
		docxPara("Heading2", "Regional results") +
		table +
		textBox +
		docxPara("berschrift1", "Anhang") +
		docxPara("Heading7", "Deep") +
		`<w:sectPr><w:headerReference w:type="default" r:id="rId2"/></w:sectPr>`
}

func TestDOCXConverter(t *testing.T) {
	p := writeSource(t, t.TempDir(), "q1_report.docx", buildDOCX(t, sampleDocxBody()))
	conv, err := convertFile(t, docxConverter{}, p)
	require.NoError(t, err)
	assert.Equal(t, KindMarkdown, conv.Kind)
	assert.Equal(t, "Quarterly Report", conv.Title, "the first level-1 heading, whitespace collapsed")
	want := "# Quarterly Report\n\n" +
		"## Quarterly Report\n\n" +
		"Revenue grew 12%\n\n" +
		"### Regional results\n\n" +
		"| Region | Note |\n" +
		"| --- | --- |\n" +
		"| North | a \\| b |\n" +
		"| South |  |\n" +
		"| Nested | innercells |\n\n" +
		"Boxed aside\n\n" +
		"## Anhang\n\n" +
		"###### Deep\n"
	assert.Equal(t, want, conv.Markdown)
	assert.NotContains(t, conv.Markdown, "Letterhead", "headers are excluded")
	assert.Equal(t, 1, strings.Count(conv.Markdown, "Boxed aside"), "a text box is read once, not from its fallback too")
}

func TestDOCXConverterFallbacks(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, body, title, markdown string
	}{
		{"empty document", "blank_memo.docx", `<w:sectPr/>`, "blank memo", "# blank memo\n"},
		{"no level-1 heading", "notes-2026.docx", docxPara("Heading2", "Only a sub") + docxPara("", "text"),
			"notes 2026", "# notes 2026\n\n### Only a sub\n\ntext\n"},
		{"unknown style id is read as a name", "ids.docx", docxPara("Heading1", "Direct id"),
			"Direct id", "# Direct id\n\n## Direct id\n"},
		{"content control at body level is not a body paragraph", "sdt.docx",
			`<w:sdt><w:sdtContent>` + docxPara("", "inside") + `</w:sdtContent></w:sdt>` + docxPara("", "outside"),
			"sdt", "# sdt\n\noutside\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSource(t, dir, tt.file, buildDOCX(t, tt.body))
			conv, err := convertFile(t, docxConverter{}, p)
			require.NoError(t, err)
			assert.Equal(t, tt.title, conv.Title)
			assert.Equal(t, tt.markdown, conv.Markdown)
		})
	}
}

func TestDOCXConverterRefusals(t *testing.T) {
	dir := t.TempDir()
	p := writeSource(t, dir, "plain.docx", []byte("not a zip"))
	_, err := convertFile(t, docxConverter{}, p)
	requireSchema(t, err, "docx plain.docx could not be read")

	p = writeSource(t, dir, "nobody.docx", zipParts(t, [][2]string{{"word/styles.xml", docxStyles}}))
	_, err = convertFile(t, docxConverter{}, p)
	requireSchema(t, err, "word/document.xml is missing")

	p = writeSource(t, dir, "truncated.docx", zipParts(t, [][2]string{
		{"word/document.xml", `<w:document ` + docxNS + `><w:body><w:p><w:r><w:t>cut`},
	}))
	_, err = convertFile(t, docxConverter{}, p)
	requireSchema(t, err, "truncated.docx")
}

func TestHeadingLevel(t *testing.T) {
	styles := map[string]string{"T": "Title", "H": "Heading 3", "X": "heading 10", "N": "Normal"}
	for id, want := range map[string]int{"T": 1, "H": 3, "X": 0, "N": 0, "": 0, "Heading9": 9, "heading 4": 4, "Subtitle": 0} {
		assert.Equal(t, want, headingLevel(id, styles), id)
	}
}

// docxOf reads a .docx from memory under lim.
func docxOf(data []byte, lim Limits) (docxDocument, error) {
	pkg, err := readOOXML(bytes.NewReader(data), int64(len(data)), lim)
	if err != nil {
		return docxDocument{}, err
	}
	return readDocx(context.Background(), pkg)
}

// FuzzReadDocx: any bytes read to a document that renders with its title
// first, or to an error; tight limits only ever refuse (a limit error)
// and never change a document they admit.
func FuzzReadDocx(f *testing.F) {
	f.Add(buildDOCX(f, sampleDocxBody()))
	f.Add(buildDOCX(f, `<w:tbl><w:tr><w:tc><w:tbl><w:tr>`+docxCell("x")+`</w:tr></w:tbl></w:tc></w:tr></w:tbl>`))
	f.Add(zipParts(f, [][2]string{{"word/document.xml", `<w:body xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:p/></w:body>`}}))
	f.Add(buildDOCX(f, strings.Repeat(`<w:p><w:r><w:t>word </w:t></w:r></w:p>`, 40)))
	f.Add(buildDOCX(f, `<w:p>`+strings.Repeat(`<w:r>`, 12)+`<w:t>deep</w:t>`+strings.Repeat(`</w:r>`, 12)+`</w:p>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := docxOf(data, fuzzLimits)
		tight, terr := docxOf(data, tightLimits)
		checkLimitsOnlyRefuse(t, doc, err, tight, terr)
		if err != nil {
			return
		}
		title, body := doc.render("fallback")
		if title == "" || !strings.HasPrefix(body, "# "+title+"\n") {
			t.Fatalf("render gave title %q and body %q", title, body)
		}
	})
}
