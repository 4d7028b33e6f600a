// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// xlsxConverter reads every sheet of a workbook as one table (G.2.4),
// within the archive limits.
type xlsxConverter struct{ lim Limits }

func (xlsxConverter) Extensions() []string { return []string{".xlsx"} }

func (c xlsxConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	pkg, done, err := openOOXML(path, c.lim)
	if err != nil {
		return nil, xlsxError(path, err)
	}
	defer done()
	sheets, err := readWorkbook(ctx, pkg)
	if err != nil {
		return nil, xlsxError(path, err)
	}
	tables := sheetTables(sheets)
	if len(tables) == 0 {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("workbook has no data rows: %s has %d sheet(s), none with a header row and a data row",
				filepath.Base(path), len(sheets)),
			"every sheet was empty or held only a header row; add data or remove the file from the source folder")
	}
	return tablesConversion(stemTitle(path), tables), nil
}

func xlsxError(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if isLimit(err) {
		return limitRefusal("xlsx", path, err)
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("xlsx %s could not be read: %v", filepath.Base(path), err),
		"save the workbook again as .xlsx, export its sheets as .csv, or convert it with a command hook")
}

// worksheet is one worksheet's name and cell values in file order. Values
// are nil, string, bool, int64 or float64.
type worksheet struct {
	name string
	rows [][]any
}

// sheetTables keeps the sheets with a header and at least one data row
// once all-empty rows are dropped, each as a table named from its tab
// (duplicates get "_"). Its width is inferred from the cells present,
// never from the sheet's declared extent.
func sheetTables(sheets []worksheet) []rawTable {
	var tables []rawTable
	used := map[string]bool{}
	for _, sh := range sheets {
		rows, width := nonEmptyRows(sh.rows)
		if len(rows) < 2 {
			continue
		}
		name := sqlName(sh.name)
		for used[name] {
			name += "_"
		}
		used[name] = true
		header := make([]string, width)
		for i, v := range rows[0][:min(width, len(rows[0]))] {
			header[i] = cellText(v)
		}
		records := make([][]any, len(rows)-1)
		for i, r := range rows[1:] {
			records[i] = r[:min(width, len(r))]
		}
		tables = append(tables, rawTable{name: name, header: header, records: records})
	}
	return tables
}

// nonEmptyRows drops the rows without a value and measures the widest
// row by its last value.
func nonEmptyRows(rows [][]any) (kept [][]any, width int) {
	for _, r := range rows {
		last := -1
		for i, v := range r {
			if !emptyCell(v) {
				last = i
			}
		}
		if last >= 0 {
			kept = append(kept, r)
			width = max(width, last+1)
		}
	}
	return kept, width
}

// maxSheetColumns is the format's own limit (column XFD). A reference
// beyond it is a corrupt file, and honouring it would allocate without
// bound.
const maxSheetColumns = 16384

const (
	relOfficeDocument = "/officeDocument"
	relWorksheet      = "/worksheet"
	relSharedStrings  = "/sharedStrings"
)

// readWorkbook reads every worksheet of an xlsx package in workbook order.
func readWorkbook(ctx context.Context, pkg *ooxmlPackage) ([]worksheet, error) {
	rootRels, err := pkg.relationships("")
	if err != nil {
		return nil, err
	}
	wbName := relTarget(rootRels, relOfficeDocument, "xl/workbook.xml")
	refs, err := workbookSheets(pkg, wbName)
	if err != nil {
		return nil, err
	}
	wbRels, err := pkg.relationships(wbName)
	if err != nil {
		return nil, err
	}
	sst, err := sharedStrings(pkg, relTarget(wbRels, relSharedStrings, "xl/sharedStrings.xml"))
	if err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, r := range wbRels {
		if strings.HasSuffix(r.typ, relWorksheet) {
			targets[r.id] = r.target
		}
	}
	var sheets []worksheet
	for i, ref := range refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part, ok := targets[ref.rid]
		if !ok {
			// Without a relationship, the conventional name is the only
			// guess; a chart sheet or a missing part yields no rows.
			part = fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1)
			if !pkg.has(part) {
				continue
			}
		}
		rows, err := readSheet(ctx, pkg, part, sst)
		if err != nil {
			return nil, fmt.Errorf("sheet %q: %w", ref.name, err)
		}
		sheets = append(sheets, worksheet{name: ref.name, rows: rows})
	}
	return sheets, nil
}

type sheetRef struct{ name, rid string }

// workbookSheets lists the <sheet> entries of the workbook part.
func workbookSheets(pkg *ooxmlPackage, name string) ([]sheetRef, error) {
	var refs []sheetRef
	err := scanPart(pkg, name, "workbook", func(_ *xmlStream, se xml.StartElement) error {
		if se.Name.Local == "sheet" {
			refs = append(refs, sheetRef{name: xmlAttr(se, "name"), rid: xmlAttr(se, "id")})
		}
		return nil
	})
	return refs, err
}

// sharedStrings reads the shared string table; each <si> is the join of
// its <t> texts (rich runs), phonetic guides (<rPh>) excluded. A workbook
// without the part has no shared strings.
func sharedStrings(pkg *ooxmlPackage, name string) ([]string, error) {
	if !pkg.has(name) {
		return nil, nil
	}
	var sst []string
	err := scanPart(pkg, name, "sst", func(dec *xmlStream, se xml.StartElement) error {
		if se.Name.Local != "si" {
			return nil
		}
		s, err := richText(dec)
		sst = append(sst, s)
		return err
	})
	return sst, err
}

// scanPart calls fn for every start element of a workbook part until its
// root element closes; fn may consume the element it is given. A part
// that ends before its root closes is truncated, and an error.
// Workbook parts are read with RawToken: names are matched by local name
// only (some writers prefix SpreadsheetML, x:row), and skipping namespace
// translation halves the cost of a large sheet.
func scanPart(pkg *ooxmlPackage, name, root string, fn func(*xmlStream, xml.StartElement) error) error {
	dec, done, err := pkg.open(name)
	if err != nil {
		return err
	}
	defer done()
	for {
		tok, err := nextRaw(dec)
		if err != nil {
			return fmt.Errorf("part %s: %w", name, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := fn(dec, t); err != nil {
				return fmt.Errorf("part %s: %w", name, err)
			}
		case xml.EndElement:
			if t.Name.Local == root {
				return nil
			}
		}
	}
}

// nextRaw is RawToken where the end of input is always premature: every
// caller is inside an element that has not closed yet.
func nextRaw(dec *xmlStream) (xml.Token, error) {
	tok, err := dec.RawToken()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// richText reads the element just opened (<si>, <is>) to its end and
// returns its text: every <t> outside <rPh>.
func richText(dec *xmlStream) (string, error) {
	var b strings.Builder
	depth, inT := 1, false
	for depth > 0 {
		tok, err := nextRaw(dec)
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "rPh", "phoneticPr":
				if err := rawSkip(dec); err != nil {
					return "", err
				}
				continue
			case "t":
				inT = true
			}
			depth++
		case xml.EndElement:
			if t.Name.Local == "t" {
				inT = false
			}
			depth--
		case xml.CharData:
			if inT {
				b.Write(t)
			}
		}
	}
	return b.String(), nil
}

// readSheet reads the rows of <sheetData> in file order, each as a slice
// indexed by column. The sheet's <dimension> is ignored on purpose:
// writers other than Excel declare A1:A1 for sheets of any size.
func readSheet(ctx context.Context, pkg *ooxmlPackage, part string, sst []string) ([][]any, error) {
	var rows [][]any
	err := scanPart(pkg, part, "worksheet", func(dec *xmlStream, se xml.StartElement) error {
		if se.Name.Local != "row" {
			return nil
		}
		if len(rows)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row, err := readRow(dec, sst)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		return pkg.charge(row)
	})
	return rows, err
}

// readRow reads the <row> just opened: each <c> placed at the column of
// its reference, or after the previous cell when it has none.
func readRow(dec *xmlStream, sst []string) ([]any, error) {
	var row []any
	col := -1
	for {
		tok, err := nextRaw(dec)
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Local == "row" {
				return row, nil
			}
		case xml.StartElement:
			if t.Name.Local != "c" {
				if err := rawSkip(dec); err != nil {
					return nil, err
				}
				continue
			}
			col, err = cellColumn(xmlAttr(t, "r"), col+1)
			if err != nil {
				return nil, err
			}
			v, err := readCell(dec, t, sst)
			if err != nil {
				return nil, err
			}
			if v == nil {
				continue
			}
			for len(row) <= col {
				row = append(row, nil)
			}
			row[col] = v
		}
	}
}

// cellColumn is the 0-based column of a reference like "BC12"; a cell
// without a reference sits at next, the column after the previous cell.
func cellColumn(ref string, next int) (int, error) {
	col, letters := 0, 0
	for _, r := range ref {
		if r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		if r < 'A' || r > 'Z' {
			break
		}
		col = col*26 + int(r-'A'+1)
		letters++
		if col > maxSheetColumns {
			return 0, fmt.Errorf("cell reference %q is beyond column XFD", ref)
		}
	}
	if letters > 0 {
		return col - 1, nil
	}
	if next >= maxSheetColumns {
		return 0, fmt.Errorf("row has more than %d cells", maxSheetColumns)
	}
	return next, nil
}

// readCell reads the <c> just opened and returns its value as stored:
// the cached result for a formula, the shared or inline string, a bool,
// an int64 or float64 for a number (an integral literal is int64, as a
// spreadsheet reader reports it), an error code or ISO date as text.
// No style is applied, so a date serial stays a number.
func readCell(dec *xmlStream, c xml.StartElement, sst []string) (any, error) {
	var raw strings.Builder
	hasV, inline := false, ""
	for {
		tok, err := nextRaw(dec)
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Local == "c" {
				return cellValue(xmlAttr(c, "t"), raw.String(), hasV, inline, sst)
			}
		case xml.StartElement:
			switch t.Name.Local {
			case "v":
				hasV = true
				if err := charData(dec, &raw); err != nil {
					return nil, err
				}
			case "is":
				if inline, err = richText(dec); err != nil {
					return nil, err
				}
			default: // <f> formulas, <extLst>: the cached <v> is the value
				if err := rawSkip(dec); err != nil {
					return nil, err
				}
			}
		}
	}
}

// rawSkip consumes the rest of the element just opened.
func rawSkip(dec *xmlStream) error {
	for depth := 1; depth > 0; {
		tok, err := nextRaw(dec)
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// charData appends the text of the element just opened and consumes it.
func charData(dec *xmlStream, b *strings.Builder) error {
	for depth := 1; depth > 0; {
		tok, err := nextRaw(dec)
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			b.Write(t)
		}
	}
	return nil
}

func cellValue(typ, raw string, hasV bool, inline string, sst []string) (any, error) {
	switch {
	case typ == "inlineStr", typ == "" && !hasV && inline != "":
		return inline, nil
	case typ == "s":
		if !hasV {
			return nil, nil
		}
		i, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || i < 0 || i >= len(sst) {
			return nil, fmt.Errorf("shared string index %q is not among the %d shared strings", raw, len(sst))
		}
		return sst[i], nil
	}
	if !hasV || raw == "" {
		return nil, nil
	}
	switch typ {
	case "b":
		return strings.TrimSpace(raw) == "1" || strings.EqualFold(strings.TrimSpace(raw), "true"), nil
	case "str", "e", "d":
		return raw, nil
	}
	return sheetNumber(raw), nil
}

// sheetNumber reads a numeric cell: a literal without fraction or
// exponent is int64, anything else float64 (a native float is never
// INTEGER); text that is no number stays text.
func sheetNumber(raw string) any {
	s := strings.TrimSpace(raw)
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return raw
}
