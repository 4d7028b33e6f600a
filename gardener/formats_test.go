// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/dataset"
)

// zipOf builds a zip archive of name → content pairs, in order.
func zipOf(t testing.TB, parts ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(parts); i += 2 {
		w, err := zw.Create(parts[i])
		require.NoError(t, err)
		_, err = w.Write([]byte(parts[i+1]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

const xmlHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`

// workbook is a real .xlsx: two sheets of inline strings and numbers,
// the first declaring a dimension of A1:A1 as non-Excel writers do.
func workbook(t testing.TB) []byte {
	row := func(n int, cells ...string) string {
		var b strings.Builder
		b.WriteString(`<row r="` + string(rune('0'+n)) + `">`)
		for i, c := range cells {
			ref := string(rune('A'+i)) + string(rune('0'+n))
			if c != "" && strings.Trim(c, "0123456789.") == "" {
				b.WriteString(`<c r="` + ref + `"><v>` + c + `</v></c>`)
			} else {
				b.WriteString(`<c r="` + ref + `" t="inlineStr"><is><t>` + c + `</t></is></c>`)
			}
		}
		return b.String() + `</row>`
	}
	sheet := func(dim string, rows ...string) string {
		return xmlHead + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
			`<dimension ref="` + dim + `"/><sheetData>` + strings.Join(rows, "") + `</sheetData></worksheet>`
	}
	return zipOf(t,
		"[Content_Types].xml", xmlHead+`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`+
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>`+
			`<Default Extension="xml" ContentType="application/xml"/>`+
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>`+
			`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`+
			`<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
		"_rels/.rels", xmlHead+`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml", xmlHead+`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" `+
			`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>`+
			`<sheet name="Sales 2026" sheetId="1" r:id="rId1"/><sheet name="Stock" sheetId="2" r:id="rId2"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", xmlHead+`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>`+
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml", sheet("A1:A1", row(1, "Region", "Units", "Revenue"), row(2, "North", "12", "1500.5"),
			row(3, "South", "7", "980"), row(4, "East", "3", "120.25")),
		"xl/worksheets/sheet2.xml", sheet("A1:B3", row(1, "SKU", "Qty"), row(2, "A-101", "40"), row(3, "B-202", "0")),
	)
}

// document is a real .docx with a title, a heading, prose, a table and a
// header part that must not leak into the body.
func document(t testing.TB) []byte {
	p := func(style, text string) string {
		s := ""
		if style != "" {
			s = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		return `<w:p>` + s + `<w:r><w:t>` + text + `</w:t></w:r></w:p>`
	}
	cell := func(text string) string { return `<w:tc><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:tc>` }
	const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
		`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	return zipOf(t,
		"[Content_Types].xml", xmlHead+`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`+
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>`+
			`<Default Extension="xml" ContentType="application/xml"/>`+
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels", xmlHead+`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/_rels/document.xml.rels", xmlHead+`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>`+
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/></Relationships>`,
		"word/styles.xml", xmlHead+`<w:styles `+w+`>`+
			`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`,
		"word/header1.xml", xmlHead+`<w:hdr `+w+`>`+p("", "ACME LETTERHEAD")+`</w:hdr>`,
		"word/document.xml", xmlHead+`<w:document `+w+`><w:body>`+
			p("Title", "Supplier Agreement")+
			p("", "This agreement binds the supplier to deliver within 30 days.")+
			p("Heading1", "Prices")+
			`<w:tbl><w:tr>`+cell("Item")+cell("Price")+`</w:tr><w:tr>`+cell("Ice")+cell("12 | bag")+`</w:tr></w:tbl>`+
			`<w:sectPr/></w:body></w:document>`,
	)
}

// TestEveryBuiltinFormatEndToEnd adopts one file of every built-in format
// and checks the passport each becomes.
func TestEveryBuiltinFormatEndToEnd(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{
		"notes/plan.md":      "# Launch plan\n\nWe launch in June with two boats.\n",
		"notes/todo.txt":     "Buy ice. Check the nets.\n",
		"data/catch.csv":     "\ufeffspecies;kg;price\nsardine;120;3.5\ntuna;40;12\n\n",
		"data/crew.json":     `[{"name": "Ana", "age": 31}, {"name": "Rui", "boat": "Maré"}]`,
		"data/settings.json": `{"port": "Itapuã", "boats": [1, 2]}`,
		"misc/blob.xyz":      "who knows",
	})
	writeFile(t, src, "data/sales.xlsx", workbook(t))
	writeFile(t, src, "docs/agreement.docx", document(t))
	writeFile(t, src, "media/logo.png", []byte("\x89PNG\r\n\x1a\nnot really an image"))
	require.NoError(t, dataset.Create(ctx, filepath.Join(src, "data", "ledger.db"), []dataset.Table{
		{Name: "orders", Columns: []dataset.Column{{Name: "id", Type: "INTEGER"}, {Name: "sku", Type: "TEXT"}}},
		{Name: "clients", Columns: []dataset.Column{{Name: "name", Type: "TEXT"}}},
	}, map[string][][]any{"orders": {{1, "A-101"}, {2, "B-202"}}, "clients": {{"Acme"}}}))

	rep, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, []string{"misc/blob.xyz"}, rep.Unsupported, "an unclaimed format is reported by name")
	assert.ElementsMatch(t, []string{"data/catch", "data/crew", "data/ledger", "data/sales", "data/settings",
		"docs/agreement", "media/logo", "notes/plan", "notes/todo"}, rep.Planted)
	validate(t, v)

	md := node(t, v, "notes/plan")
	assert.Equal(t, "note", md.Type())
	assert.Equal(t, "Launch plan", md.Title())
	assert.Equal(t, "# Launch plan\n\nWe launch in June with two boats.\n", md.Body)

	txt := node(t, v, "notes/todo")
	assert.Equal(t, "note", txt.Type())
	assert.Equal(t, "todo", txt.Title())
	assert.Equal(t, "Buy ice. Check the nets.", txt.Summary())

	csv := node(t, v, "data/catch")
	assert.Equal(t, "dataset", csv.Type())
	assert.Equal(t, "sqlite", csv.PayloadType())
	assert.Equal(t, "catch.db", csv.Payload())
	assert.Contains(t, csv.Body, "## Query manual\n\nTables:\n- `catch(species TEXT, kg INTEGER, price REAL)`")
	assert.Contains(t, csv.Body, "### catch — 2 rows")
	assert.Equal(t, "Tabular data 'catch': table catch (2 rows). Adopted from source; pending curation.", csv.Summary())
	rows, err := v.Query(ctx, "data/catch", "SELECT species, kg FROM catch ORDER BY kg")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"tuna", int64(40)}, {"sardine", int64(120)}}, rows.Rows)

	crew := node(t, v, "data/crew")
	assert.Equal(t, "dataset", crew.Type(), "an array of flat objects is tabular")
	assert.Contains(t, crew.Body, "crew(name TEXT, age INTEGER, boat TEXT)")

	settings := node(t, v, "data/settings")
	assert.Equal(t, "document", settings.Type(), "any other JSON is a document")
	assert.Contains(t, settings.Body, "```json\n{\n  \"port\": \"Itapuã\"")

	sales := node(t, v, "data/sales")
	assert.Equal(t, "dataset", sales.Type())
	assert.Contains(t, sales.Body, "### sales_2026 — 3 rows", "the declared A1:A1 extent is not trusted")
	assert.Contains(t, sales.Body, "### stock — 2 rows")
	assert.Contains(t, sales.Summary(), "2 tables sales_2026 (3 rows), stock (2 rows)")

	db := node(t, v, "data/ledger")
	assert.Equal(t, "dataset", db.Type())
	assert.Equal(t, "ledger.db", db.Payload())
	assert.Equal(t, db.Front.String("source_hash"), db.PayloadHash(), "an adopted file is its own payload")
	assert.FileExists(t, filepath.Join(v.Dir(), "data", "ledger.db"))
	assert.Contains(t, db.Body, "- `clients(name TEXT)`\n- `orders(id INTEGER, sku TEXT)`", "payload tables in name order")
	rows, err = v.Query(ctx, "data/ledger", "SELECT sku FROM orders ORDER BY id")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"A-101"}, {"B-202"}}, rows.Rows)

	doc := node(t, v, "docs/agreement")
	assert.Equal(t, "document", doc.Type())
	assert.Equal(t, "Supplier Agreement", doc.Title())
	assert.Contains(t, doc.Body, "## Prices")
	assert.Contains(t, doc.Body, `| Ice | 12 \| bag |`)
	assert.NotContains(t, doc.Body, "LETTERHEAD", "headers stay out of the scent")

	png := node(t, v, "media/logo")
	assert.Equal(t, "media", png.Type())
	assert.Contains(t, png.Body, "Media file `logo.png` (PNG format, 27 bytes).")
	assert.Contains(t, png.Body, MediaStubSentinel)
	assert.Empty(t, png.Payload(), "archive: never leaves a durable source referenced, not copied")
}

// TestTargetedUnsupportedAndStale covers targeted sync paths: a file
// without a passport whose format nobody claims, and a missing one.
func TestTargetedSyncPaths(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"a.md": "# A\n\nFirst.", "b.md": "# B\n\nSecond."})
	g := New(v, nil)
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	writeFile(t, src, "c.xyz", []byte("?"))
	writeFile(t, src, "a.md", []byte("# A\n\nFirst, revised at length."))
	rep, err := g.Sync(ctx, SyncOptions{Paths: []string{"a.md", "c.xyz", "gone.md", "./a.md"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, rep.Updated)
	assert.Equal(t, []string{"c.xyz", "gone.md"}, rep.Unsupported)
	assert.Empty(t, rep.Unchanged, "a targeted sync visits only its paths")

	require.NoError(t, removeFile(filepath.Join(src, "b.md")))
	rep, err = g.Sync(ctx, SyncOptions{Paths: []string{"b.md"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, rep.Stale)
}

// upperConverter claims .md and shouts; failing fails first.
type upperConverter struct{ failing bool }

func (upperConverter) Extensions() []string { return []string{".md", ".shout"} }
func (u upperConverter) Convert(_ context.Context, path string) (*Conversion, error) {
	if u.failing {
		return nil, errors.New("upstream tool missing")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Conversion{Kind: KindMarkdown, Title: "Shout", Markdown: strings.ToUpper(string(data))}, nil
}

func TestConvertersAndFallthrough(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"a.md": "# a\n\nquiet words.", "b.shout": "hey there.", "c.txt": "plain."})
	rep, err := New(v, &Options{ExplicitConverters: []Converter{upperConverter{failing: true}, upperConverter{}}}).Adopt(ctx, src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, rep.Planted, "a fallback still plants")
	assert.Equal(t, []string{"c.txt"}, rep.Unsupported, "an explicit list bypasses the built-ins")
	assert.Equal(t, []string{"a.md: upperConverter failed, falling back: upstream tool missing",
		"b.shout: upperConverter failed, falling back: upstream tool missing"}, rep.Errors)
	assert.Contains(t, node(t, v, "a").Body, "QUIET WORDS.")
	assert.Equal(t, "document", node(t, v, "b").Type(), "the type follows the source, not the converter")

	// An injected converter outranks the built-in one for .md.
	src2 := writeTree(t, map[string]string{"d.md": "# d\n\nlow."})
	rep, err = New(v, &Options{Converters: []Converter{upperConverter{}}}).Sync(ctx, SyncOptions{Source: src2})
	require.NoError(t, err)
	assert.Equal(t, []string{"d"}, rep.Planted)
	assert.Contains(t, node(t, v, "d").Body, "LOW.")
}
