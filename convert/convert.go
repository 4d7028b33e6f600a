// SPDX-License-Identifier: Apache-2.0

// Package convert is the contract between the gardener and the converters
// that turn a source file into a node: what a converter answers for one
// file, and the kinds of node it can become. It imports only the standard
// library, so a converter author implements it without linking the engine
// (go-git, the S3 client, SQLite), as a database driver implements
// database/sql/driver without linking database/sql.
//
// A converter implements [Converter]: it names the extensions it reads
// and turns one file into a [Conversion] of a [Kind]:
//
//	type recipes struct{}
//
//	func (recipes) Extensions() []string { return []string{".recipe"} }
//
//	func (recipes) Convert(ctx context.Context, path string) (*convert.Conversion, error) {
//		b, err := os.ReadFile(path)
//		if err != nil {
//			return nil, err
//		}
//		return &convert.Conversion{Kind: convert.KindMarkdown, Markdown: string(b)}, nil
//	}
//
// The host then registers it with gardener.RegisterConverter; the
// gardener decides what node a conversion becomes, and a converter that
// panics is treated as failed.
package convert

import "context"

// Converter turns one source file into a Conversion (G.2). Extensions are
// lowercase with the leading dot (".docx"). A converter that panics is
// treated as failed, and the next claimant is tried.
type Converter interface {
	Extensions() []string
	Convert(ctx context.Context, path string) (*Conversion, error)
}

// Kind says what a Conversion becomes.
type Kind string

// Conversion kinds (G.2).
const (
	// KindMarkdown becomes a note, document or media node (decided from
	// the source extension, never by the converter).
	KindMarkdown Kind = "markdown"
	// KindDataset becomes a dataset born with Schema and Rows (C.7.1).
	KindDataset Kind = "dataset"
	// KindPayload adopts the source file itself as a SQLite payload
	// (G.2.2); Tables, Samples and Counts describe it for the sample map.
	KindPayload Kind = "payload"
)

// Conversion is what a converter returns for one file.
type Conversion struct {
	Kind  Kind
	Title string

	// Markdown is the node body for KindMarkdown.
	Markdown string

	// Schema and Rows are the dataset for KindDataset, in C.7.1 shape:
	// Schema[table][column] = declared type, Rows[table] = row values.
	// Tables and Columns keep the source order, which maps cannot.
	Schema  map[string]map[string]string
	Rows    map[string][][]any
	Tables  []string            // table order, for KindDataset and KindPayload
	Columns map[string][]string // column order per table

	// Samples and Counts describe a KindPayload database: up to three
	// rows per table and its row count. Columns and Schema carry the
	// declared types.
	Samples map[string][][]any
	Counts  map[string]int64
}
