// SPDX-License-Identifier: Apache-2.0

package gardener

import "github.com/monkeyllm/vine/convert"

// Converter turns one source file into a Conversion (G.2). It is an alias
// of [convert.Converter], the stdlib-only contract a converter author
// implements without linking the gardener; the name is kept for callers
// that spell it here.
type Converter = convert.Converter

// Kind says what a Conversion becomes. It is an alias of [convert.Kind].
type Kind = convert.Kind

// Conversion kinds (G.2), the same constants as convert's.
const (
	// KindMarkdown is [convert.KindMarkdown]: a note, document or media
	// node (decided from the source extension, never by the converter).
	KindMarkdown = convert.KindMarkdown
	// KindDataset is [convert.KindDataset]: a dataset born with Schema
	// and Rows (C.7.1).
	KindDataset = convert.KindDataset
	// KindPayload is [convert.KindPayload]: the source file itself
	// adopted as a SQLite payload (G.2.2).
	KindPayload = convert.KindPayload
)

// Conversion is what a converter returns for one file. It is an alias of
// [convert.Conversion].
type Conversion = convert.Conversion
