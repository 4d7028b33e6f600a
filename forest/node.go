// SPDX-License-Identifier: Apache-2.0

package forest

// Node is one markdown file of the forest: its canonical id, its ordered
// frontmatter (the passport), and its body.
//
// Body is the text after the closing frontmatter delimiter's line with
// leading newlines removed, exactly as sniff scans it.
type Node struct {
	ID    string
	Front *Frontmatter
	Body  string
}

// Frontmatter is an ordered YAML mapping. Order is kept from the file so
// rewrites change values in place and append new keys at the end (spec §2.7).
//
// Values are normalized on read to: string, bool, int64, float64, nil,
// []any, and *Frontmatter for nested mappings (link entries).
type Frontmatter struct {
	fields []Field
}

// Field is one key of a Frontmatter with its value.
type Field struct {
	Key   string
	Value any
}
