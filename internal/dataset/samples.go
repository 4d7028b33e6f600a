// SPDX-License-Identifier: Apache-2.0

package dataset

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3/driver"
)

// Caps of the sample map (G.2.3 rule 5): never silent.
const (
	SampleRows     = 3
	SampleColumns  = 12
	SampleTables   = 20
	SampleCellMax  = 120
	WideTableLimit = 12
)

// TableInfo is what the generated sections say about one table.
type TableInfo struct {
	Name    string
	Columns []Column
	Rows    int  // row count when RowsKnown
	Known   bool // the count is known
	Sample  [][]any
}

// Describe reads a payload's tables in name order (views excluded), their
// declared columns, row counts and first rows, opening the file read-only.
func Describe(ctx context.Context, path string) ([]TableInfo, error) {
	db, err := driver.Open("file:" + filepath.ToSlash(path) + "?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	names, err := tableNames(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make([]TableInfo, 0, len(names))
	for _, name := range names {
		info, err := describeTable(ctx, db, name)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx,
		`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

func describeTable(ctx context.Context, db *sql.DB, name string) (TableInfo, error) {
	info := TableInfo{Name: name, Known: true}
	quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	cols, err := db.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?)", name)
	if err != nil {
		return info, err
	}
	for cols.Next() {
		var c Column
		if err := cols.Scan(&c.Name, &c.Type); err != nil {
			cols.Close()
			return info, err
		}
		c.Type = strings.ToUpper(c.Type)
		info.Columns = append(info.Columns, c)
	}
	cols.Close()
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quoted).Scan(&info.Rows); err != nil {
		return info, err
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT * FROM %s LIMIT %d", quoted, SampleRows))
	if err != nil {
		return info, err
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, len(info.Columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return info, err
		}
		info.Sample = append(info.Sample, vals)
	}
	return info, rows.Err()
}

// Sections renders "## Query manual" and "## Sample rows" for the tables
// in the order given.
func Sections(tables []TableInfo) string {
	return Manual(tables) + "\n\n" + SampleMap(tables)
}

// Manual is the "## Query manual" section: every column of every table,
// and example queries that fit the query budget.
func Manual(tables []TableInfo) string {
	var b strings.Builder
	b.WriteString("## Query manual\n\nTables:\n")
	for _, t := range tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = strings.TrimSpace(c.Name + " " + c.Type)
		}
		fmt.Fprintf(&b, "- `%s(%s)`\n", t.Name, strings.Join(cols, ", "))
	}
	b.WriteString("\nExample queries:")
	for _, t := range tables {
		if len(t.Columns) > WideTableLimit {
			fmt.Fprintf(&b, "\n- `SELECT COUNT(*) FROM %s`", t.Name)
			fmt.Fprintf(&b, "\n- Note: `%s` has %d columns, so `SELECT *` will not fit the query result budget. "+
				"Name the columns you need — all of them are listed above.", t.Name, len(t.Columns))
			continue
		}
		fmt.Fprintf(&b, "\n- `SELECT * FROM %s LIMIT 5`\n- `SELECT COUNT(*) FROM %s`", t.Name, t.Name)
	}
	return b.String()
}

// SampleMap is the "## Sample rows" section with its caps stated.
func SampleMap(tables []TableInfo) string {
	var b strings.Builder
	b.WriteString("## Sample rows")
	for i, t := range tables {
		if i == SampleTables {
			fmt.Fprintf(&b, "\n\n_%d further table(s) not sampled; the manual above lists them all._", len(tables)-SampleTables)
			break
		}
		b.WriteString("\n\n### " + t.Name)
		if t.Known {
			word := "rows"
			if t.Rows == 1 {
				word = "row"
			}
			fmt.Fprintf(&b, " — %d %s", t.Rows, word)
		}
		b.WriteString("\n\n" + sampleTable(t))
	}
	return b.String()
}

func sampleTable(t TableInfo) string {
	if len(t.Sample) == 0 {
		return "_No rows._"
	}
	n := min(len(t.Columns), SampleColumns)
	var b strings.Builder
	head := make([]string, n)
	rule := make([]string, n)
	for i := range n {
		head[i] = cell(t.Columns[i].Name)
		rule[i] = "---"
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n| " + strings.Join(rule, " | ") + " |")
	for _, row := range t.Sample[:min(len(t.Sample), SampleRows)] {
		cells := make([]string, n)
		for i := range n {
			if i < len(row) {
				cells[i] = cellValue(row[i])
			}
		}
		b.WriteString("\n| " + strings.Join(cells, " | ") + " |")
	}
	if extra := len(t.Columns) - n; extra > 0 {
		fmt.Fprintf(&b, "\n\n_%d further column(s) exist and are queryable; the manual above names them all._", extra)
	}
	return b.String()
}

func cellValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []byte:
		return fmt.Sprintf("<blob %d bytes>", len(x))
	}
	return cell(fmt.Sprint(v))
}

// cell folds whitespace runs to one space, clips at 120 characters and
// escapes the pipe.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > SampleCellMax {
		s = string([]rune(s)[:SampleCellMax]) + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}
