// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tightLimits are small enough for fuzzed and hand-made inputs to reach
// every one of them.
var tightLimits = Limits{JSONDepth: 4, LineBytes: 64, DocumentBytes: 512, MemberBytes: 2048,
	ArchiveBytes: 4096, ArchiveMembers: 8, SheetCells: 64, XMLDepth: 12}

// fuzzLimits are the roomy side of the fuzz comparisons: above
// tightLimits everywhere, small enough that a mutated input cannot make
// one run slow (a sheet of XFD references reaches two million cells).
var fuzzLimits = Limits{LineBytes: 1 << 16, DocumentBytes: 1 << 20, MemberBytes: 1 << 20,
	ArchiveBytes: 4 << 20, SheetCells: 100_000}

// checkLimitsOnlyRefuse: what tight limits admit, default limits admit
// identically; what only tight limits refuse, they refuse with a limit
// error.
func checkLimitsOnlyRefuse[T any](t *testing.T, loose T, lerr error, tight T, terr error) {
	t.Helper()
	switch {
	case terr == nil && lerr != nil:
		t.Fatalf("tight limits admitted what default limits refuse: %v", lerr)
	case terr == nil && !reflect.DeepEqual(loose, tight):
		t.Fatalf("tight limits changed what they admitted:\n%#v\n%#v", tight, loose)
	case terr != nil && lerr == nil && !isLimit(terr):
		t.Fatalf("tight limits refused with a non-limit error: %v", terr)
	}
}

// TestLimitsRefuseTheDocument: each limit, set low, refuses a document
// that passes it with E_SCHEMA naming the limit, and the same document
// converts under the defaults.
func TestLimitsRefuseTheDocument(t *testing.T) {
	para := func(text string) string { return docxPara("", text) }
	deepRuns := `<w:p>` + strings.Repeat(`<w:r>`, 20) + `<w:t>x</w:t>` + strings.Repeat(`</w:r>`, 20) + `</w:p>`
	rows := func(n int, cell string) string { return strings.Repeat(`<row>`+cell+`</row>`, n) }
	tests := []struct {
		name  string
		file  string
		data  []byte
		conv  func(Limits) Converter
		lim   Limits
		limit string
	}{
		{"long text line", "a.txt", []byte("ok\n" + strings.Repeat("a", 100) + "\n"), md, Limits{LineBytes: 64}, "LineBytes"},
		{"long text document", "a.md", []byte(strings.Repeat("short line\n", 60)), md, Limits{DocumentBytes: 512}, "DocumentBytes"},
		{"long csv line", "a.csv", []byte("h1,h2\n" + strings.Repeat("a,", 50) + "\n"), csvC, Limits{LineBytes: 64}, "LineBytes"},
		{"deep json", "a.json", []byte(`{"a": [[[[1]]]]}`), jsonC, Limits{JSONDepth: 4}, "JSONDepth"},
		{"long json string", "a.json", []byte(`{"a": "` + strings.Repeat("s", 100) + `"}`), jsonC, Limits{LineBytes: 64}, "LineBytes"},
		{"json that prints long", "a.json", []byte(`[[[` + strings.Repeat("1,", 200) + `1]]]`), jsonC, Limits{DocumentBytes: 512}, "DocumentBytes"},
		{"docx part declared large", "a.docx", buildDOCX(t, strings.Repeat(para("text"), 40)), docx, Limits{MemberBytes: 2048}, "MemberBytes"},
		{"docx parts together", "a.docx", buildDOCX(t, strings.Repeat(para("text"), 20)), docx, Limits{ArchiveBytes: 2048}, "ArchiveBytes"},
		{"docx members", "a.docx", buildDOCX(t, para("x")), docx, Limits{ArchiveMembers: 5}, "ArchiveMembers"},
		{"docx text run", "a.docx", buildDOCX(t, para(strings.Repeat("w", 100))), docx, Limits{LineBytes: 64}, "LineBytes"},
		{"docx nesting", "a.docx", buildDOCX(t, deepRuns), docx, Limits{XMLDepth: 12}, "XMLDepth"},
		{"docx text", "a.docx", buildDOCX(t, strings.Repeat(para(strings.Repeat("w", 50)), 12)), docx, Limits{DocumentBytes: 512}, "DocumentBytes"},
		{"sheet cells", "a.xlsx", buildXLSX(t, []testSheet{{"S", rows(2, `<c r="BZ1"><v>1</v></c>`)}}, nil), xlsx, Limits{SheetCells: 100}, "SheetCells"},
		{"shared string per use", "a.xlsx", buildXLSX(t, []testSheet{{"S", rows(100, `<c t="s"><v>0</v></c>`)}},
			[]string{`<si><t>` + strings.Repeat("s", 60) + `</t></si>`}), xlsx, Limits{ArchiveBytes: 4096}, "ArchiveBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSource(t, t.TempDir(), tt.file, tt.data)
			_, err := convertFile(t, tt.conv(tt.lim), p)
			e := requireSchema(t, err, tt.limit, "refused")
			assert.Contains(t, e.Hint, "raise gardener Limits")
			_, err = convertFile(t, tt.conv(Limits{}), p)
			assert.False(t, isLimit(err), "the defaults admit it: %v", err)
		})
	}
}

func md(l Limits) Converter    { return markdownConverter{lim: l} }
func csvC(l Limits) Converter  { return csvConverter{lim: l} }
func jsonC(l Limits) Converter { return jsonConverter{lim: l} }
func docx(l Limits) Converter  { return docxConverter{lim: l} }
func xlsx(l Limits) Converter  { return xlsxConverter{lim: l} }

// TestArchiveHeaderThatLies: a part that inflates past the size its
// header declares is refused, naming the part and the declared size.
func TestArchiveHeaderThatLies(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	body := `<w:document ` + docxNS + `><w:body>` + strings.Repeat(docxPara("", "text"), 200) + `</w:body></w:document>`
	fw.Write([]byte(body))
	fw.Close()
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE([]byte(body)), CompressedSize64: uint64(comp.Len()), UncompressedSize64: 100})
	require.NoError(t, err)
	w.Write(comp.Bytes())
	require.NoError(t, zw.Close())
	p := writeSource(t, t.TempDir(), "liar.docx", buf.Bytes())
	_, err = convertFile(t, docxConverter{}, p)
	requireSchema(t, err, "word/document.xml", "declared size of 100 bytes")
}

// TestMemberReaderCountsWhatIsRead: the actual bytes are counted whatever
// the header says, per part and for the archive.
func TestMemberReaderCountsWhatIsRead(t *testing.T) {
	tests := []struct {
		name  string
		lim   Limits
		reads []int
		limit string
	}{
		{"within both", Limits{MemberBytes: 100, ArchiveBytes: 300}, []int{100, 100, 100}, ""},
		{"one part past the member limit", Limits{MemberBytes: 100, ArchiveBytes: 1000}, []int{101}, "MemberBytes"},
		{"parts past the archive limit", Limits{MemberBytes: 100, ArchiveBytes: 250}, []int{100, 100, 100}, "ArchiveBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkg := &ooxmlPackage{lim: tt.lim.orDefault()}
			var err error
			for i, n := range tt.reads {
				mr := &memberReader{r: strings.NewReader(strings.Repeat("x", n)), pkg: pkg, name: fmt.Sprint(i), declared: 1}
				if _, err = io.Copy(io.Discard, mr); err != nil {
					break
				}
			}
			if tt.limit == "" {
				require.NoError(t, err)
				return
			}
			var le *LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tt.limit, le.Limit)
		})
	}
}

func TestZipMemberCount(t *testing.T) {
	for _, n := range []int{0, 1, 70_000} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := range n {
			_, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprint(i), Method: zip.Store})
			require.NoError(t, err)
		}
		require.NoError(t, zw.Close())
		got, ok := zipMemberCount(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		require.True(t, ok, "%d members", n)
		assert.Equal(t, int64(n), got, "past 65,535 the zip64 record counts")
		_, err := readOOXML(bytes.NewReader(buf.Bytes()), int64(buf.Len()), Limits{ArchiveMembers: max(1, n-1)})
		if n > 1 {
			assert.ErrorContains(t, err, "ArchiveMembers")
		}
	}
	_, ok := zipMemberCount(strings.NewReader("not a zip"), 9)
	assert.False(t, ok)
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		in    string
		max   int
		fails bool
	}{
		{"abc\ndef\n", 3, false},
		{"abc\ndefg\n", 3, true},
		{"abcd", 3, true},
		{"", 3, false},
		{strings.Repeat("ab\n", 1000), 2, false},
	}
	for _, tt := range tests {
		_, err := io.ReadAll(&lineReader{r: iotest.OneByteReader(strings.NewReader(tt.in)), max: tt.max})
		assert.Equal(t, tt.fails, isLimit(err), "%q within %d", tt.in, tt.max)
	}
}

func TestDefaultLimits(t *testing.T) {
	assert.Equal(t, DefaultLimits(), Limits{}.orDefault(), "zero means default")
	custom := Limits{LineBytes: 7, SheetCells: 9}
	got := custom.orDefault()
	assert.Equal(t, 7, got.LineBytes)
	assert.Equal(t, 9, got.SheetCells)
	assert.Equal(t, DefaultMemberBytes, int(got.MemberBytes), "unset fields default")
}

// TestAdoptSkipsADocumentPastALimit: the document past a limit is an
// error line naming the limit, nothing of it is planted, and the run
// goes on with the next document. The limits come from Options.
func TestAdoptSkipsADocumentPastALimit(t *testing.T) {
	v := newForest(t)
	src := writeTree(t, map[string]string{
		"a-first.md":  "# First\n\nFine.\n",
		"b-long.txt":  strings.Repeat("x", 200) + "\n",
		"c-deep.json": `{"a": [[[[[1]]]]]}`,
		"d-last.md":   "# Last\n\nFine too.\n",
	})
	rep, err := New(v, &Options{Limits: Limits{LineBytes: 64, JSONDepth: 3}}).Adopt(context.Background(), src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"a-first", "d-last"}, rep.Planted)
	require.Len(t, rep.Errors, 2)
	assert.Contains(t, rep.Errors[0], "b-long.txt: text b-long.txt refused: line 1: over the LineBytes limit of 64 bytes")
	assert.Contains(t, rep.Errors[1], "c-deep.json: json c-deep.json refused: nesting depth at byte 8: over the JSONDepth limit of 3")
}
