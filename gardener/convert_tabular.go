// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"math"
	"strconv"
	"strings"
)

// The declared types a tabular conversion infers (C.7.1's four minus BLOB:
// text sources carry no bytes).
const (
	typeInteger = "INTEGER"
	typeReal    = "REAL"
	typeText    = "TEXT"
)

// rawTable is one table as a tabular source yields it: a name already
// made SQL-safe, the header cells as text and the records. Cell values
// are nil, string, bool, int64 or float64; records may be ragged.
type rawTable struct {
	name    string
	header  []string
	records [][]any
}

// tablesConversion builds one KindDataset conversion out of tables in
// source order: column names from the headers, a type per column inferred
// over its non-empty values, and every value coerced to it.
func tablesConversion(title string, tables []rawTable) *Conversion {
	conv := &Conversion{
		Kind:    KindDataset,
		Title:   title,
		Schema:  make(map[string]map[string]string, len(tables)),
		Rows:    make(map[string][][]any, len(tables)),
		Tables:  make([]string, 0, len(tables)),
		Columns: make(map[string][]string, len(tables)),
	}
	for _, t := range tables {
		cols := columnNames(t.header)
		types := make([]string, len(cols))
		schema := make(map[string]string, len(cols))
		for i, col := range cols {
			types[i] = inferType(t.records, i)
			schema[col] = types[i]
		}
		rows := make([][]any, len(t.records))
		for r, rec := range t.records {
			row := make([]any, len(cols))
			for i := range cols {
				row[i] = coerce(cellAt(rec, i), types[i])
			}
			rows[r] = row
		}
		conv.Tables = append(conv.Tables, t.name)
		conv.Columns[t.name] = cols
		conv.Schema[t.name] = schema
		conv.Rows[t.name] = rows
	}
	return conv
}

func cellAt(rec []any, i int) any {
	if i < len(rec) {
		return rec[i]
	}
	return nil
}

// inferType widens INTEGER to REAL to TEXT over the column's non-empty
// values; a column with none is TEXT. A native float is never INTEGER,
// whatever its fraction: truncating 99.0-typed money to an integer column
// would silently change the next value that has cents.
func inferType(records [][]any, col int) string {
	kind, seen := typeInteger, false
	for _, rec := range records {
		v := cellAt(rec, col)
		if emptyCell(v) {
			continue
		}
		seen = true
		switch classify(v) {
		case typeText:
			return typeText
		case typeReal:
			kind = typeReal
		}
	}
	if !seen {
		return typeText
	}
	return kind
}

func emptyCell(v any) bool {
	s, ok := v.(string)
	return v == nil || ok && s == ""
}

// classify is the narrowest type that holds v without loss.
func classify(v any) string {
	switch v := v.(type) {
	case bool, int64:
		return typeInteger
	case float64:
		return typeReal
	case string:
		if _, ok := parseInt(v); ok {
			return typeInteger
		}
		if integral(v) {
			// An integer too wide for INTEGER: REAL would drop digits
			// of what is usually an identifier.
			return typeText
		}
		if _, ok := parseReal(v); ok {
			return typeReal
		}
	}
	return typeText
}

// coerce converts v to the column's type; a value that does not convert
// is kept as text rather than lost.
func coerce(v any, typ string) any {
	if emptyCell(v) {
		return nil
	}
	switch typ {
	case typeInteger:
		switch v := v.(type) {
		case int64:
			return v
		case bool:
			return boolInt(v)
		case string:
			if n, ok := parseInt(v); ok {
				return n
			}
		}
	case typeReal:
		switch v := v.(type) {
		case float64:
			return v
		case int64:
			return float64(v)
		case bool:
			return float64(boolInt(v))
		case string:
			if f, ok := parseReal(v); ok {
				return f
			}
		}
	}
	return cellText(v)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// cellText renders a cell as the reference implementation's str() does, so
// both implementations store the same TEXT for the same source.
func cellText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return formatFloat(v)
	case bool:
		if v {
			return "True"
		}
		return "False"
	}
	return ""
}

// formatFloat writes the shortest representation that round-trips, with
// a ".0" on integral values so a float never reads as an integer.
func formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// parseInt accepts an optionally signed run of decimal digits, with
// surrounding spaces; no "_" separators, no base prefixes.
func parseInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if !integral(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func integral(s string) bool {
	s = strings.TrimSpace(s)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseReal accepts a finite decimal number ("1.5", "-.5", "1e3",
// "10.00"). Hex floats, "_" separators, "inf" and "nan" are text: as
// column values they are words, not quantities.
func parseReal(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "_xXpPnN") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}
