// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/monkeyllm/vine/envelope"
)

// csvConverter reads a delimited text file as one table named from its
// stem: UTF-8 with the BOM stripped, delimiter sniffed, empty rows
// dropped, first row the header. The file is streamed: a line longer
// than the line limit is refused before it is held in memory.
type csvConverter struct{ lim Limits }

func (csvConverter) Extensions() []string { return []string{".csv"} }

func (c csvConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := readCSVStream(f, c.lim.orDefault().LineBytes)
	if isLimit(err) {
		return nil, limitRefusal("csv", path, err)
	}
	if err != nil {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("csv %s could not be read: %v", filepath.Base(path), err),
			"fix the quoting of the line named, or convert the file with a command hook")
	}
	if len(rows) < 2 {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("csv has no data rows: %s holds %d non-empty row(s), expected a header row and at least one data row",
				filepath.Base(path), len(rows)),
			"add the data rows, or remove the file from the source folder")
	}
	return tablesConversion(stemTitle(path), []rawTable{headed(sqlName(stem(path)), rows)}), nil
}

// headed turns rows of text (first row the header) into a rawTable whose
// width is the widest row: a data row longer than its header keeps its
// cells under generated column names instead of losing them.
func headed(name string, rows [][]string) rawTable {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	header := make([]string, width)
	copy(header, rows[0])
	records := make([][]any, len(rows)-1)
	for i, r := range rows[1:] {
		rec := make([]any, len(r))
		for j, v := range r {
			rec[j] = v
		}
		records[i] = rec
	}
	return rawTable{name: name, header: header, records: records}
}

// sniffPeek is how many bytes hold the first sniffSample characters
// whatever their encoding (four bytes at most each), with room for a
// character cut at the end.
const sniffPeek = 4*sniffSample + 8

// readCSVStream parses r as readCSV parses its text, without reading it
// whole: the delimiter is sniffed on the first bytes, every line is
// bounded by maxLine, and fields are made valid UTF-8 one by one (an
// invalid byte is never a delimiter, quote or line break, so this reads
// the same records as converting first).
func readCSVStream(r io.Reader, maxLine int) ([][]string, error) {
	br := bufio.NewReaderSize(&lineReader{r: r, max: maxLine}, sniffPeek)
	head, err := br.Peek(sniffPeek)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if bytes.HasPrefix(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	rows, err := parseCSV(br, sniffDelimiter(stripBOM(validUTF8(head))))
	for _, rec := range rows {
		for i, field := range rec {
			if !utf8.ValidString(field) {
				rec[i] = validUTF8([]byte(field))
			}
		}
	}
	return rows, err
}

// utf8BOM is the byte order mark some writers put first.
var utf8BOM = []byte("\uFEFF")

// parseCSV reads records split by comma, dropping the blank ones.
func parseCSV(in io.Reader, comma rune) ([][]string, error) {
	r := csv.NewReader(in)
	r.Comma = comma
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	var rows [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		if !blankRecord(rec) {
			rows = append(rows, rec)
		}
	}
}

func blankRecord(rec []string) bool {
	for _, f := range rec {
		if f != "" {
			return false
		}
	}
	return true
}

// sniffSample is how much of a file the delimiter sniffer reads (G.2).
const sniffSample = 4096

// sniffCandidates are the delimiters the sniffer chooses among, in the
// order that breaks ties.
var sniffCandidates = []rune{',', ';', '\t', '|'}

// sniffDelimiter picks the candidate that splits the records of the first
// 4096 characters most consistently: the largest share of records having
// the same non-zero count of it (outside quotes), then the most such
// records; comma when no candidate occurs.
func sniffDelimiter(text string) rune {
	sample, cut := headRunes(text, sniffSample)
	best, bestShare, bestFreq := ',', 0.0, 0
	for _, d := range sniffCandidates {
		counts := delimiterCounts(sample, d, cut)
		mode, freq := modeNonZero(counts)
		if mode == 0 {
			continue
		}
		share := float64(freq) / float64(len(counts))
		if share > bestShare || share == bestShare && freq > bestFreq {
			best, bestShare, bestFreq = d, share, freq
		}
	}
	return best
}

// headRunes returns the first n runes of s and whether s was longer.
func headRunes(s string, n int) (string, bool) {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos], true
		}
		i++
	}
	return s, false
}

// delimiterCounts counts d per record of sample, reading quotes the way a
// CSV reader would with d as the delimiter: a quote opens a field only at
// its start and "" inside a quoted field is a literal quote. Blank
// records are skipped; when the sample was cut, its last record is
// partial and left out.
func delimiterCounts(sample string, d rune, cut bool) []int {
	var counts []int
	n, quoted, fieldStart, blank := 0, false, true, true
	end := func() {
		if !blank {
			counts = append(counts, n)
		}
		n, fieldStart, blank = 0, true, true
	}
	runes := []rune(sample)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quoted:
			if r == '"' {
				if i+1 < len(runes) && runes[i+1] == '"' {
					i++
				} else {
					quoted = false
				}
			}
		case r == '"' && fieldStart:
			quoted, fieldStart, blank = true, false, false
		case r == d:
			n++
			fieldStart, blank = true, false
		case r == '\n':
			end()
		case r == '\r':
			// part of a CRLF line ending; never content on its own here
		default:
			fieldStart = false
			if r != ' ' {
				blank = false
			}
		}
	}
	if !cut && !quoted {
		end()
	}
	return counts
}

// modeNonZero returns the most frequent non-zero value of counts and how
// often it occurs; the smaller value wins a tie, which favours the count
// a header and its rows share over a stray extra delimiter.
func modeNonZero(counts []int) (mode, freq int) {
	seen := map[int]int{}
	for _, c := range counts {
		if c > 0 {
			seen[c]++
		}
	}
	for c, f := range seen {
		if f > freq || f == freq && c < mode {
			mode, freq = c, f
		}
	}
	return mode, freq
}
