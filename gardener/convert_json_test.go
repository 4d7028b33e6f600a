// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONConverterTabular(t *testing.T) {
	src := `[
  {"id": 1, "name": "Ana", "price": 10.0, "active": true},
  {"id": 2, "name": "Rui", "price": 7, "city": "Porto"},
  {"id": 3, "name": null, "price": "3.5", "active": false}
]`
	p := writeSource(t, t.TempDir(), "price-list.json", []byte(src))
	conv, err := convertFile(t, jsonConverter{}, p)
	require.NoError(t, err)
	assert.Equal(t, KindDataset, conv.Kind)
	assert.Equal(t, "price list", conv.Title)
	require.Equal(t, []string{"price_list"}, conv.Tables)
	assert.Equal(t, []string{"id", "name", "price", "active", "city"}, conv.Columns["price_list"],
		"header is the union of keys in first-seen order")
	assert.Equal(t, map[string]string{
		"id": "INTEGER", "name": "TEXT", "price": "REAL", "active": "INTEGER", "city": "TEXT",
	}, conv.Schema["price_list"], "10.0 is a native float, so the column is REAL")
	assert.Equal(t, [][]any{
		{int64(1), "Ana", 10.0, int64(1), nil},
		{int64(2), "Rui", 7.0, nil, "Porto"},
		{int64(3), nil, 3.5, int64(0), nil},
	}, conv.Rows["price_list"], "missing keys are NULL")
}

func TestJSONConverterDocument(t *testing.T) {
	tests := []struct {
		name, file, src, body string
	}{
		{"nested object", "app_config.json", `{"name":"Maré","limits":{"max":1.50,"tags":[]},"list":[1,{"a":null}],"empty":{},"html":"<b>&</b>","esc":"a\"b\\c\n","ctl":"\t\r\b\f\u0001"}`,
			"# app config\n\n```json\n{\n" +
				"  \"name\": \"Maré\",\n" +
				"  \"limits\": {\n    \"max\": 1.50,\n    \"tags\": []\n  },\n" +
				"  \"list\": [\n    1,\n    {\n      \"a\": null\n    }\n  ],\n" +
				"  \"empty\": {},\n" +
				"  \"html\": \"<b>&</b>\",\n" +
				"  \"esc\": \"a\\\"b\\\\c\\n\",\n" +
				"  \"ctl\": \"\\t\\r\\b\\f\\u0001\"\n" +
				"}\n```\n"},
		{"array of nested objects", "rows.json", `[{"a":1,"b":{"c":2}}]`,
			"# rows\n\n```json\n[\n  {\n    \"a\": 1,\n    \"b\": {\n      \"c\": 2\n    }\n  }\n]\n```\n"},
		{"empty array", "none.json", `[]`, "# none\n\n```json\n[]\n```\n"},
		{"objects without keys", "blank.json", `[{}, {}]`, "# blank\n\n```json\n[\n  {},\n  {}\n]\n```\n"},
		{"array of scalars", "nums.json", `[1, "two", true]`, "# nums\n\n```json\n[\n  1,\n  \"two\",\n  true\n]\n```\n"},
		{"scalar with BOM", "one.json", "\uFEFF\"just text\"", "# one\n\n```json\n\"just text\"\n```\n"},
		{"duplicate key keeps first position, last value", "dup.json", `{"a":1,"b":2,"a":3}`,
			"# dup\n\n```json\n{\n  \"a\": 3,\n  \"b\": 2\n}\n```\n"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSource(t, dir, tt.file, []byte(tt.src))
			conv, err := convertFile(t, jsonConverter{}, p)
			require.NoError(t, err)
			assert.Equal(t, KindMarkdown, conv.Kind)
			assert.Equal(t, stemTitle(tt.file), conv.Title)
			assert.Equal(t, tt.body, conv.Markdown)
		})
	}
}

func TestJSONConverterInvalid(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"trunc.json":    `[{"a": 1}`,
		"trailing.json": `{"a":1} {"b":2}`,
		"empty.json":    ``,
		"nan.json":      `[NaN]`,
	} {
		p := writeSource(t, dir, name, []byte(src))
		_, err := convertFile(t, jsonConverter{}, p)
		requireSchema(t, err, "is not valid JSON", name)
	}
}

func TestJSONCell(t *testing.T) {
	v, err := decodeJSON(`[1, 2.0, 1e2, 12345678901234567890123, "s", true, null]`)
	require.NoError(t, err)
	var got []any
	for _, x := range v.([]any) {
		got = append(got, jsonCell(x))
	}
	assert.Equal(t, []any{int64(1), 2.0, 100.0, "12345678901234567890123", "s", true, nil}, got)
}
