// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/monkeyllm/vine/envelope"
)

// Limits bound what converting one source document may cost. Small
// hostile files cost gigabytes unbounded: a zip bomb inflates a thousand
// to one, ten thousand JSON brackets fit in twenty kilobytes, a 200 MB
// file may be one line. A built-in converter that meets a limit refuses
// the document (E_SCHEMA, the message naming the limit); the run lists
// it under errors and goes on with the next document.
//
// A zero field means its default; DefaultLimits lists them.
type Limits struct {
	// JSONDepth bounds how deep a .json document nests.
	JSONDepth int
	// LineBytes bounds one line of a .csv, .txt or .md document, one
	// string or number of a .json document, and one run of text or one
	// tag of an archive's XML (each renders on one line at most).
	LineBytes int
	// DocumentBytes bounds the markdown a document converts to, and so
	// the bytes of a .txt or .md document.
	DocumentBytes int
	// MemberBytes bounds the bytes inflated from one member of an
	// archive (.docx, .xlsx), as declared and as actually read.
	MemberBytes int64
	// ArchiveBytes bounds the bytes inflated from one archive, all
	// members together; it bounds the text of a workbook's cells too,
	// where a shared string counts once for every cell that uses it.
	ArchiveBytes int64
	// ArchiveMembers bounds the members of one archive.
	ArchiveMembers int
	// SheetCells bounds the cells of one workbook, counting the empty
	// cells a row holds before its last value.
	SheetCells int
	// XMLDepth bounds how deep the XML of an archive's part nests.
	XMLDepth int
}

// The default limits: each far above what a genuine document of its
// kind needs, and low enough that a document at every limit at once
// stays within a few hundred megabytes.
const (
	DefaultJSONDepth      = 64
	DefaultLineBytes      = 1 << 20  // 1 MiB
	DefaultDocumentBytes  = 16 << 20 // 16 MiB
	DefaultMemberBytes    = 64 << 20 // 64 MiB
	DefaultArchiveBytes   = 128 << 20
	DefaultArchiveMembers = 10_000
	DefaultSheetCells     = 2_000_000
	DefaultXMLDepth       = 256
)

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{
		JSONDepth:      DefaultJSONDepth,
		LineBytes:      DefaultLineBytes,
		DocumentBytes:  DefaultDocumentBytes,
		MemberBytes:    DefaultMemberBytes,
		ArchiveBytes:   DefaultArchiveBytes,
		ArchiveMembers: DefaultArchiveMembers,
		SheetCells:     DefaultSheetCells,
		XMLDepth:       DefaultXMLDepth,
	}
}

// orDefault fills every zero (or negative) field with its default.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	return Limits{
		JSONDepth:      positiveOr(l.JSONDepth, d.JSONDepth),
		LineBytes:      positiveOr(l.LineBytes, d.LineBytes),
		DocumentBytes:  positiveOr(l.DocumentBytes, d.DocumentBytes),
		MemberBytes:    positiveOr(l.MemberBytes, d.MemberBytes),
		ArchiveBytes:   positiveOr(l.ArchiveBytes, d.ArchiveBytes),
		ArchiveMembers: positiveOr(l.ArchiveMembers, d.ArchiveMembers),
		SheetCells:     positiveOr(l.SheetCells, d.SheetCells),
		XMLDepth:       positiveOr(l.XMLDepth, d.XMLDepth),
	}
}

func positiveOr[T int | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// LimitError reports a document that went past one of its Limits.
// Converters wrap it into their E_SCHEMA refusal; errors.As finds it.
type LimitError struct {
	// Limit is the Limits field that was exceeded ("MemberBytes").
	Limit string
	// Max is its value.
	Max int64
	// What names what went past it ("part xl/worksheets/sheet1.xml
	// inflated").
	What string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: over the %s limit of %s", e.What, e.Limit, sizeText(e.Limit, e.Max))
}

// limitHint is the hint of every limit refusal: what the limit protects
// and how a genuine document gets through.
const limitHint = "the limit protects the server's memory from hostile files; if the document is genuine, " +
	"split it, export it in a simpler format, or raise gardener Limits"

// sizeText renders a limit's value: bytes in binary units, counts as is.
func sizeText(limit string, n int64) string {
	if limit != "MemberBytes" && limit != "ArchiveBytes" && limit != "LineBytes" && limit != "DocumentBytes" {
		return fmt.Sprintf("%d", n)
	}
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// isLimit reports whether err is a limit refusal.
func isLimit(err error) bool {
	var le *LimitError
	return errors.As(err, &le)
}

// limitRefusal turns a limit error met while converting the file at path
// into the converter's E_SCHEMA refusal; any other error is returned as
// it is. kind names the format ("csv").
func limitRefusal(kind, path string, err error) error {
	var le *LimitError
	if !errors.As(err, &le) {
		return err
	}
	return envelope.New(envelope.Schema, fmt.Sprintf("%s %s refused: %v", kind, filepath.Base(path), err), limitHint)
}

// lineReader passes bytes through and refuses a line longer than max
// before it is buffered anywhere: a reader above it (bufio, csv) never
// holds more than max bytes of one line.
type lineReader struct {
	r      io.Reader
	max    int
	length int // bytes of the line in progress
	lineNo int // 0-based number of the line in progress
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.length = 0
			l.lineNo++
			continue
		}
		if l.length++; l.length > l.max {
			return i, &LimitError{Limit: "LineBytes", Max: int64(l.max), What: fmt.Sprintf("line %d", l.lineNo+1)}
		}
	}
	return n, err
}

// readBounded reads a whole text document under the line and document
// limits.
func readBounded(r io.Reader, lim Limits) ([]byte, error) {
	lr := &lineReader{r: r, max: lim.LineBytes}
	data, err := io.ReadAll(io.LimitReader(lr, int64(lim.DocumentBytes)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > lim.DocumentBytes {
		return nil, &LimitError{Limit: "DocumentBytes", Max: int64(lim.DocumentBytes), What: "document size"}
	}
	return data, nil
}
