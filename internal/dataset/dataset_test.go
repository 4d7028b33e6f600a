// SPDX-License-Identifier: Apache-2.0

package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func cols(n int) []Column {
	out := make([]Column, n)
	for i := range out {
		out[i] = Column{Name: fmt.Sprintf("c%02d", i), Type: "text"}
	}
	return out
}

func TestValidateSchema(t *testing.T) {
	many := make([]Table, 11)
	for i := range many {
		many[i] = Table{Name: fmt.Sprintf("t%d", i), Columns: cols(1)}
	}
	tests := []struct {
		name    string
		tables  []Table
		adopted bool
		mention string
	}{
		{"no table", nil, false, "no table"},
		{"too many tables", many, false, "11 tables"},
		{"bad table name", []Table{{Name: "Sales", Columns: cols(1)}}, false, "Sales"},
		{"no column", []Table{{Name: "t"}}, false, "no column"},
		{"too many columns", []Table{{Name: "t", Columns: cols(51)}}, false, "51 columns"},
		{"bad column name", []Table{{Name: "t", Columns: []Column{{Name: "a-b", Type: "TEXT"}}}}, false, "t.a-b"},
		{"bad type", []Table{{Name: "t", Columns: []Column{{Name: "a", Type: "VARCHAR"}}}}, false, "VARCHAR"},
		{"pk not a column", []Table{{Name: "t", Columns: cols(1), PrimaryKey: []string{"zz"}}}, false, "zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateSchema(tt.tables, tt.adopted)
			require.Error(t, err)
			assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
			assert.Contains(t, err.Error(), tt.mention)
		})
	}
	assert.NoError(t, ValidateSchema(many, true), "adopted schemas skip the counts")
	ok := []Table{{Name: "t", Columns: []Column{{Name: "a", Type: "integer"}}, PrimaryKey: []string{"a"}}}
	require.NoError(t, ValidateSchema(ok, false))
	assert.Equal(t, "INTEGER", ok[0].Columns[0].Type, "types are upper-cased")
	assert.Equal(t, "CREATE TABLE t (a INTEGER, PRIMARY KEY (a))", DDL(ok[0]))
}

func TestValidateRows(t *testing.T) {
	tables := []Table{{Name: "t", Columns: cols(2)}}
	assert.NoError(t, ValidateRows(tables, map[string][][]any{"t": {{1, 2}}}))
	assert.ErrorContains(t, ValidateRows(tables, map[string][][]any{"u": {{1, 2}}}), `"u"`)
	assert.ErrorContains(t, ValidateRows(tables, map[string][][]any{"t": {{1, 2}, {1}}}), "rows.t[1]")
}

func TestCreateDescribeAndSections(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d.db")
	tables := []Table{
		{Name: "orders", Columns: []Column{{"id", "INTEGER"}, {"sku", "TEXT"}, {"note", "BLOB"}}},
		{Name: "wide", Columns: cols(14)},
	}
	require.NoError(t, ValidateSchema(tables, false))
	long := strings.Repeat("x|y ", 40)
	require.NoError(t, Create(ctx, path, tables, map[string][][]any{
		"orders": {{1, "A-101", []byte{1, 2}}, {2, long, nil}, {3, "c", nil}, {4, "d", nil}},
	}))
	err := Create(ctx, path, tables, nil)
	assert.ErrorContains(t, err, "already exists", "never overwrite")

	infos, err := Describe(ctx, path)
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.Equal(t, "orders", infos[0].Name)
	assert.Equal(t, 4, infos[0].Rows)
	assert.Len(t, infos[0].Sample, SampleRows)

	s := Sections(infos)
	assert.Contains(t, s, "## Query manual\n\nTables:\n- `orders(id INTEGER, sku TEXT, note BLOB)`")
	assert.Contains(t, s, "- `SELECT * FROM orders LIMIT 5`")
	assert.Contains(t, s, "`wide` has 14 columns, so `SELECT *` will not fit")
	assert.NotContains(t, s, "SELECT * FROM wide")
	assert.Contains(t, s, "### orders — 4 rows")
	assert.Contains(t, s, "| 1 | A-101 | <blob 2 bytes> |")
	assert.Contains(t, s, `x\|y`, "pipes are escaped")
	assert.Contains(t, s, "…", "long cells are clipped")
	assert.Contains(t, s, "### wide — 0 rows\n\n_No rows._")
}

func TestCreateFailureLeavesNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.db")
	tables := []Table{{Name: "t", Columns: []Column{{"a", "TEXT"}}, PrimaryKey: []string{"a"}}}
	err := Create(context.Background(), path, tables, map[string][][]any{"t": {{"x"}, {"x"}}})
	require.Error(t, err)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "dataset birth failed")
	_, statErr := os.Stat(path)
	assert.True(t, os.IsNotExist(statErr), "a failed birth removes the payload")

	reserved := []Table{{Name: "select", Columns: []Column{{"a", "TEXT"}}}}
	err = Create(context.Background(), path, reserved, nil)
	assert.ErrorContains(t, err, "dataset birth failed", "a reserved word fails at birth")
}
