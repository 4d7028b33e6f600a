// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSheet is one worksheet of a generated workbook: its tab name and
// the inner XML of <sheetData>.
type testSheet struct{ name, data string }

// buildXLSX writes a minimal but real SpreadsheetML package the way
// non-Excel writers do: every sheet declares the extent A1:A1 whatever
// it holds.
func buildXLSX(t testing.TB, sheets []testSheet, shared []string) []byte {
	t.Helper()
	var wb, rels, types strings.Builder
	wb.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ` +
		`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>`)
	rels.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` +
		`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	types.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` +
		`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>`)
	parts := [][2]string{}
	for i, sh := range sheets {
		n := i + 1
		fmt.Fprintf(&wb, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, sh.name, n, n)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, n, n)
		parts = append(parts, [2]string{fmt.Sprintf("xl/worksheets/sheet%d.xml", n),
			`<?xml version="1.0" encoding="UTF-8"?>` +
				`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
				`<dimension ref="A1:A1"/><sheetData>` + sh.data + `</sheetData></worksheet>`})
	}
	wb.WriteString(`</sheets></workbook>`)
	fmt.Fprintf(&rels, `<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="/xl/sharedStrings.xml"/>`)
	rels.WriteString(`</Relationships>`)
	types.WriteString(`</Types>`)
	var sst strings.Builder
	fmt.Fprintf(&sst, `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="%d">`, len(shared))
	for _, s := range shared {
		sst.WriteString(s)
	}
	sst.WriteString(`</sst>`)
	return zipParts(t, append([][2]string{
		{"[Content_Types].xml", types.String()},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?>` +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>` +
			`</Relationships>`},
		{"xl/workbook.xml", wb.String()},
		{"xl/_rels/workbook.xml.rels", rels.String()},
		{"xl/sharedStrings.xml", sst.String()},
	}, parts...))
}

// sampleWorkbook is the acceptance workbook: a 130-row sheet whose
// declared extent lies, a sheet of formulas, dates, booleans and inline
// strings, a header-only sheet and an empty one.
func sampleWorkbook(t testing.TB) []byte {
	shared := []string{
		`<si><t>id</t></si>`,
		`<si><t>sku</t></si>`,
		`<si><t>amount</t></si>`,
		`<si><r><t>Tot</t></r><r><rPr><b/></rPr><t xml:space="preserve">al </t></r><rPh sb="0" eb="1"><t>ト</t></rPh><r><t>due</t></r></si>`,
		`<si><t>SKU-&amp;-1</t></si>`,
	}
	var orders strings.Builder
	orders.WriteString(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>`)
	for i := 2; i <= 130; i++ {
		amount := fmt.Sprintf("%d", i)
		if i%2 == 0 {
			amount = fmt.Sprintf("%d.5", i)
		}
		sku := fmt.Sprintf(`<c r="B%d" t="inlineStr"><is><t>S%03d</t></is></c>`, i, i)
		if i == 2 {
			sku = `<c r="B2" t="s"><v>4</v></c>`
		}
		fmt.Fprintf(&orders, `<row r="%d"><c r="A%d"><v>%d</v></c>%s<c r="C%d"><v>%s</v></c></row>`, i, i, i-1, sku, i, amount)
	}
	summary := `<row r="1"><c r="A1" t="inlineStr"><is><t>label</t></is></c><c r="B1" t="inlineStr"><is><t>total</t></is></c>` +
		`<c r="C1" t="inlineStr"><is><t>closed on</t></is></c><c r="D1" t="inlineStr"><is><t>stamp</t></is></c>` +
		`<c r="E1" t="inlineStr"><is><t>ok</t></is></c><c r="F1" t="inlineStr"><is><t>who</t></is></c></row>` +
		`<row r="2"><c r="A2" s="3"/></row>` + // styled but empty: an all-empty row
		`<row r="3"><c r="A3" t="s"><v>3</v></c><c r="B3"><f>SUM(Orders!C2:C130)</f><v>8514.5</v></c>` +
		`<c r="C3" s="1"><v>46037</v></c><c r="D3" t="d"><v>2026-01-15T00:00:00</v></c>` +
		`<c r="E3" t="b"><v>1</v></c><c r="F3" t="str"><f>CONCAT("A","na")</f><v>Ana</v></c></row>` +
		`<row r="4"><c r="A4" t="inlineStr"><is><t>gap</t></is></c><c r="E4" t="b"><v>0</v></c><c r="F4" t="e"><v>#N/A</v></c></row>`
	return buildXLSX(t, []testSheet{
		{"Orders", orders.String()},
		{"Summary", summary},
		{"Only Header", `<row r="1"><c r="A1" t="inlineStr"><is><t>h</t></is></c></row>`},
		{"Empty", ``},
		{"ORDERS.", `<row><c t="inlineStr"><is><t>k</t></is></c><c t="inlineStr"><is><t>v</t></is></c></row>` +
			`<row><c><v>1</v></c><c><v>2</v></c></row>`},
	}, shared)
}

func TestXLSXConverter(t *testing.T) {
	p := writeSource(t, t.TempDir(), "quarterly_book.xlsx", sampleWorkbook(t))
	conv, err := convertFile(t, xlsxConverter{}, p)
	require.NoError(t, err)
	assert.Equal(t, KindDataset, conv.Kind)
	assert.Equal(t, "quarterly book", conv.Title)
	assert.Equal(t, []string{"orders", "summary", "orders_"}, conv.Tables,
		"sheet order; header-only and empty sheets skipped; a name clash gets '_'")

	// The declared extent A1:A1 is ignored: all 129 data rows are read.
	assert.Equal(t, []string{"id", "sku", "amount"}, conv.Columns["orders"])
	assert.Equal(t, map[string]string{"id": "INTEGER", "sku": "TEXT", "amount": "REAL"}, conv.Schema["orders"])
	rows := conv.Rows["orders"]
	require.Len(t, rows, 129)
	assert.Equal(t, []any{int64(1), "SKU-&-1", 2.5}, rows[0], "shared string with an entity; native float")
	assert.Equal(t, []any{int64(2), "S003", 3.0}, rows[1], "inline string; integer amount widened to REAL")
	assert.Equal(t, []any{int64(129), "S130", 130.5}, rows[128])

	assert.Equal(t, []string{"label", "total", "closed_on", "stamp", "ok", "who"}, conv.Columns["summary"])
	assert.Equal(t, map[string]string{
		"label": "TEXT", "total": "REAL", "closed_on": "INTEGER", "stamp": "TEXT", "ok": "INTEGER", "who": "TEXT",
	}, conv.Schema["summary"])
	assert.Equal(t, [][]any{
		{"Total due", 8514.5, int64(46037), "2026-01-15T00:00:00", int64(1), "Ana"},
		{"gap", nil, nil, nil, int64(0), "#N/A"},
	}, conv.Rows["summary"], "rich text without phonetics; cached formula values; dates as stored; booleans; errors as text")

	assert.Equal(t, [][]any{{int64(1), int64(2)}}, conv.Rows["orders_"], "cells without references follow each other")
}

func TestXLSXConverterRefusals(t *testing.T) {
	dir := t.TempDir()
	noData := buildXLSX(t, []testSheet{
		{"Header", `<row r="1"><c r="A1" t="inlineStr"><is><t>only</t></is></c></row>`},
		{"Blank", `<row r="1"><c r="A1" s="1"/></row><row r="2"/>`},
	}, nil)
	p := writeSource(t, dir, "empty-book.xlsx", noData)
	_, err := convertFile(t, xlsxConverter{}, p)
	requireSchema(t, err, "workbook has no data rows", "empty-book.xlsx", "2 sheet(s)")

	p = writeSource(t, dir, "not-a-zip.xlsx", []byte("plain text"))
	_, err = convertFile(t, xlsxConverter{}, p)
	requireSchema(t, err, "xlsx not-a-zip.xlsx could not be read")

	badIndex := buildXLSX(t, []testSheet{{"S", `<row><c t="s"><v>7</v></c></row>`}}, []string{`<si><t>a</t></si>`})
	p = writeSource(t, dir, "bad-index.xlsx", badIndex)
	_, err = convertFile(t, xlsxConverter{}, p)
	requireSchema(t, err, "shared string index")

	farColumn := buildXLSX(t, []testSheet{{"S", `<row><c r="ZZZZZZ1"><v>1</v></c></row>`}}, nil)
	p = writeSource(t, dir, "far.xlsx", farColumn)
	_, err = convertFile(t, xlsxConverter{}, p)
	requireSchema(t, err, "beyond column XFD")
}

// replacePart rewrites one part of a zip archive.
func replacePart(t testing.TB, archive []byte, name, content string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	var parts [][2]string
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		var b bytes.Buffer
		_, err = b.ReadFrom(rc)
		require.NoError(t, err)
		rc.Close()
		if f.Name == name {
			b.Reset()
			b.WriteString(content)
		}
		parts = append(parts, [2]string{f.Name, b.String()})
	}
	return zipParts(t, parts)
}

func TestXLSXPrefixedAndTruncatedSheets(t *testing.T) {
	dir := t.TempDir()
	base := buildXLSX(t, []testSheet{{"S", ""}}, nil)
	prefixed := replacePart(t, base, "xl/worksheets/sheet1.xml",
		`<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>`+
			`<x:row><x:c t="inlineStr"><x:is><x:t>k</x:t></x:is></x:c></x:row><x:row><x:c><x:v>5</x:v></x:c></x:row>`+
			`</x:sheetData></x:worksheet>`)
	p := writeSource(t, dir, "prefixed.xlsx", prefixed)
	conv, err := convertFile(t, xlsxConverter{}, p)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(5)}}, conv.Rows["s"], "prefixed SpreadsheetML reads like the default namespace")

	truncated := replacePart(t, base, "xl/worksheets/sheet1.xml",
		`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`+
			`<row><c t="inlineStr"><is><t>k</t></is></c></row><row><c><v>5</v></c></row><row><c><v>6`)
	p = writeSource(t, dir, "truncated.xlsx", truncated)
	_, err = convertFile(t, xlsxConverter{}, p)
	requireSchema(t, err, "truncated.xlsx", "unexpected EOF")

	unclosed := replacePart(t, base, "xl/worksheets/sheet1.xml",
		`<worksheet><sheetData><row><c t="inlineStr"><is><t>k</t></is></c></row><row><c><v>5</v></c></row></sheetData>`)
	p = writeSource(t, dir, "unclosed.xlsx", unclosed)
	_, err = convertFile(t, xlsxConverter{}, p)
	requireSchema(t, err, "unclosed.xlsx", "unexpected EOF")
}

func TestXLSXWideSheetHasNoCap(t *testing.T) {
	var header, row strings.Builder
	for c := range 141 {
		fmt.Fprintf(&header, `<c t="inlineStr"><is><t>field %d</t></is></c>`, c)
		fmt.Fprintf(&row, `<c><v>%d</v></c>`, c)
	}
	book := buildXLSX(t, []testSheet{{"Export", "<row>" + header.String() + "</row><row>" + row.String() + "</row>"}}, nil)
	p := writeSource(t, t.TempDir(), "erp.xlsx", book)
	conv, err := convertFile(t, xlsxConverter{}, p)
	require.NoError(t, err)
	assert.Len(t, conv.Columns["export"], 141, "a 141-column export is read whole")
}

func TestCellColumn(t *testing.T) {
	for ref, want := range map[string]int{"A1": 0, "Z9": 25, "AA3": 26, "xfd1": 16383, "": 7} {
		got, err := cellColumn(ref, 7)
		require.NoError(t, err)
		assert.Equal(t, want, got, ref)
	}
	_, err := cellColumn("XFE1", 0)
	assert.Error(t, err)
	_, err = cellColumn("", maxSheetColumns)
	assert.Error(t, err)
}

// workbookOf reads an .xlsx from memory under lim.
func workbookOf(data []byte, lim Limits) ([]worksheet, error) {
	pkg, err := readOOXML(bytes.NewReader(data), int64(len(data)), lim)
	if err != nil {
		return nil, err
	}
	return readWorkbook(context.Background(), pkg)
}

// FuzzReadWorkbook: any bytes read to tables with data rows no wider than
// their header, or to an error; tight limits only ever refuse.
func FuzzReadWorkbook(f *testing.F) {
	f.Add(sampleWorkbook(f))
	f.Add(buildXLSX(f, []testSheet{{"S", `<row><c t="s"><v>0</v></c><c t="b"><v>1</v></c></row>`}}, []string{`<si><t>x</t></si>`}))
	f.Add([]byte("PK\x03\x04 not really"))
	f.Add(buildXLSX(f, []testSheet{{"S", `<row><c r="XFD1"><v>1</v></c></row>`}}, nil))
	f.Add(buildXLSX(f, []testSheet{{"S", strings.Repeat(`<row><c t="s"><v>0</v></c></row>`, 20)}}, []string{`<si><t>` + strings.Repeat("s", 40) + `</t></si>`}))
	f.Fuzz(func(t *testing.T, data []byte) {
		sheets, err := workbookOf(data, fuzzLimits)
		tight, terr := workbookOf(data, tightLimits)
		checkLimitsOnlyRefuse(t, sheets, err, tight, terr)
		if err != nil {
			return
		}
		for _, tb := range sheetTables(sheets) {
			if len(tb.records) == 0 {
				t.Fatalf("table %s kept without data rows", tb.name)
			}
			for _, r := range tb.records {
				if len(r) > len(tb.header) {
					t.Fatalf("record wider than header in %s", tb.name)
				}
			}
		}
	})
}

// BenchmarkXLSXConverter reads a 10,000-row, 6-column sheet of numbers
// and inline strings.
func BenchmarkXLSXConverter(b *testing.B) {
	var data strings.Builder
	data.WriteString(`<row>`)
	for c := range 6 {
		fmt.Fprintf(&data, `<c t="inlineStr"><is><t>col %d</t></is></c>`, c)
	}
	data.WriteString(`</row>`)
	for r := range 10000 {
		fmt.Fprintf(&data, `<row><c><v>%d</v></c><c><v>%d.25</v></c><c t="inlineStr"><is><t>name %d</t></is></c>`+
			`<c t="b"><v>1</v></c><c><v>46000</v></c><c t="inlineStr"><is><t>x</t></is></c></row>`, r, r, r)
	}
	p := writeSource(b, b.TempDir(), "big.xlsx", buildXLSX(b, []testSheet{{"Data", data.String()}}, nil))
	b.ReportAllocs()
	for b.Loop() {
		conv, err := xlsxConverter{}.Convert(context.Background(), p)
		if err != nil || len(conv.Rows["data"]) != 10000 {
			b.Fatalf("convert: %v", err)
		}
	}
}
