// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSniffDelimiter(t *testing.T) {
	tests := []struct {
		name string
		text string
		want rune
	}{
		{"comma", "a,b,c\n1,2,3\n4,5,6\n", ','},
		{"semicolon with decimal commas", "item;price;qty\nwidget;1,50;3\ngadget;2,75;1\n", ';'},
		{"tab", "a\tb\n1\t2\n", '\t'},
		{"pipe", "id|name|note\n1|Ana|x\n2|Rui|y\n", '|'},
		{"quoted commas do not count", "name;note\nAna;\"a, b, c\"\nRui;\"d, e\"\n", ';'},
		{"quoted newline", "a|b\n1|\"multi\nline, with, commas\"\n2|x\n", '|'},
		{"single column falls back to comma", "title\nfirst\nsecond\n", ','},
		{"empty falls back to comma", "", ','},
		{"tie prefers comma", "a,b;c\n1,2;3\n", ','},
		{"consistency beats frequency", "h1;h2\nx,y,z,w;1\np,q,r;2\n", ';'},
		{"crlf", "a;b\r\n1;2\r\n", ';'},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, string(tt.want), string(sniffDelimiter(tt.text)))
		})
	}
}

func TestSniffDelimiterReadsOnlyTheSample(t *testing.T) {
	// The first 4096 characters are semicolon-separated; commas dominate
	// only after them.
	var b strings.Builder
	for b.Len() < 5000 {
		b.WriteString("alpha;beta;gamma\n")
	}
	for range 500 {
		b.WriteString("a,b,c,d,e,f,g,h\n")
	}
	assert.Equal(t, ";", string(sniffDelimiter(b.String())))
}

func TestCSVConverter(t *testing.T) {
	dir := t.TempDir()
	src := "\uFEFFSKU;Preço;Qty;Note\n" +
		"A-1;10,00;3;first\n" +
		";;;\n" +
		"\n" +
		"B-2;7,5;;\"semi;colon\"\n" +
		"C-3;2;1;x;extra\n"
	p := writeSource(t, dir, "2026 sales-report.csv", []byte(src))
	conv, err := convertFile(t, csvConverter{}, p)
	require.NoError(t, err)
	assert.Equal(t, KindDataset, conv.Kind)
	assert.Equal(t, "2026 sales report", conv.Title)
	table := "t_2026_sales_report"
	require.Equal(t, []string{table}, conv.Tables)
	assert.Equal(t, []string{"sku", "preco", "qty", "note", "col4"}, conv.Columns[table],
		"BOM stripped from the first header; a row longer than the header gets a generated column")
	assert.Equal(t, map[string]string{"sku": "TEXT", "preco": "TEXT", "qty": "INTEGER", "note": "TEXT", "col4": "TEXT"},
		conv.Schema[table], "decimal commas are text: only '.' makes a number")
	assert.Equal(t, [][]any{
		{"A-1", "10,00", int64(3), "first", nil},
		{"B-2", "7,5", nil, "semi;colon", nil},
		{"C-3", "2", int64(1), "x", "extra"},
	}, conv.Rows[table], "blank rows dropped, empty cells NULL")
}

func TestCSVConverterRefusesWithoutDataRows(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"header-only.csv": "a,b,c\n",
		"blank.csv":       "\n\n,,\n",
		"empty.csv":       "",
	} {
		p := writeSource(t, dir, name, []byte(src))
		_, err := convertFile(t, csvConverter{}, p)
		e := requireSchema(t, err, "csv has no data rows", name)
		assert.NotEmpty(t, e.Hint)
	}
}

func TestCSVConverterInvalidUTF8(t *testing.T) {
	p := writeSource(t, t.TempDir(), "latin1.csv", []byte("nome,cidade\nJos\xe9,S\xe3o Paulo\n"))
	conv, err := convertFile(t, csvConverter{}, p)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"Jos\uFFFD", "S\uFFFDo Paulo"}}, conv.Rows["latin1"])
}

// readCSV is the whole-text reading the streamed one must agree with:
// the text made valid UTF-8 and stripped of its BOM first.
func readCSV(text string) ([][]string, error) {
	return parseCSV(strings.NewReader(text), sniffDelimiter(text))
}

func FuzzSniffDelimiter(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a;b\r\n\"x;y\";2\n", "\"unterminated", "|||\n\t\t", "", "\uFEFFé;ü\n",
		"\xef\xbb\xbfa;\xe9\n\"\xff\";2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := sniffDelimiter(s)
		if !strings.ContainsRune(",;\t|", d) {
			t.Fatalf("sniffDelimiter(%q) = %q, not a candidate", s, d)
		}
		streamed, serr := readCSVStream(strings.NewReader(s), len(s)+1)
		rows, err := readCSV(stripBOM(validUTF8([]byte(s))))
		if (err == nil) != (serr == nil) || (err == nil && !slices.EqualFunc(rows, streamed, slices.Equal)) {
			t.Fatalf("streamed %q (%v), whole text %q (%v)", streamed, serr, rows, err)
		}
		if err != nil {
			return
		}
		for _, r := range rows {
			if blankRecord(r) {
				t.Fatalf("blank row kept: %q", r)
			}
			for _, f := range r {
				if utf8.ValidString(s) && !utf8.ValidString(f) {
					t.Fatalf("field %q is not UTF-8", f)
				}
			}
		}
	})
}

// BenchmarkCSVConverter reads a 10,000-row, 5-column semicolon file.
func BenchmarkCSVConverter(b *testing.B) {
	var src strings.Builder
	src.WriteString("id;sku;price;qty;note\n")
	for i := range 10000 {
		fmt.Fprintf(&src, "%d;SKU-%05d;%d.50;%d;\"free; text %d\"\n", i, i, i%100, i%7, i)
	}
	p := writeSource(b, b.TempDir(), "orders.csv", []byte(src.String()))
	b.ReportAllocs()
	for b.Loop() {
		conv, err := csvConverter{}.Convert(context.Background(), p)
		if err != nil || len(conv.Rows["orders"]) != 10000 {
			b.Fatalf("convert: %v", err)
		}
	}
}
