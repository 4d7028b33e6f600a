// SPDX-License-Identifier: Apache-2.0

package forest

import "time"

// The accessors below read the frontmatter leniently, as readers must
// (spec §2.6): they never fail, and a value of the wrong shape reads as
// absent. Scalars read as text are formatted (a numeric title 2026 reads
// "2026"); lists and mappings never read as text. ValidateWrite is where
// shapes are enforced.

// Link is one entry of a node's links: a typed edge declared in the
// source node (spec §2.2).
type Link struct {
	Rel, Target string
	// Confidence is 1.0 when absent or not a number; below 1.0 the link
	// is Ranger-managed.
	Confidence float64
	// Entry is a copy of the whole link mapping in file order, with the
	// extras (discovered_by, note, unknown keys) a rewrite must keep.
	Entry *Frontmatter
}

// Type is the node type, e.g. "note" or "branch".
func (n *Node) Type() string { return n.Front.String("type") }

// Title is the frontmatter title; branch read tolerance (first H1) is the
// outline's business, not this accessor's.
func (n *Node) Title() string { return n.Front.String("title") }

// Summary is the frontmatter summary as written.
func (n *Node) Summary() string { return n.Front.String("summary") }

// Created is the creation date as YYYY-MM-DD, or "" when it cannot be
// read as a date.
func (n *Node) Created() string { return dateOf(n.Front, "created") }

// Updated is the last-rewrite date as YYYY-MM-DD, or "".
func (n *Node) Updated() string { return dateOf(n.Front, "updated") }

// Tags lists the tags with their spelling kept.
func (n *Node) Tags() []string { return stringList(n.Front, "tags") }

// Aliases lists the alternative names locate indexes.
func (n *Node) Aliases() []string { return stringList(n.Front, "aliases") }

// MovedFrom lists the ids a transplant moved this node away from.
func (n *Node) MovedFrom() []string { return stringList(n.Front, "moved_from") }

// Links returns the well-formed entries of links: mappings whose rel and
// target are non-empty strings. Malformed entries are skipped here and
// refused by ValidateWrite.
func (n *Node) Links() []Link {
	v, _ := n.Front.Get("links")
	items, _ := v.([]any)
	var links []Link
	for _, it := range items {
		m, ok := it.(*Frontmatter)
		if !ok {
			continue
		}
		rel, _ := m.fieldString("rel")
		target, _ := m.fieldString("target")
		if rel == "" || target == "" {
			continue
		}
		conf, _ := m.Get("confidence")
		links = append(links, Link{Rel: rel, Target: target, Confidence: numberOr(conf, 1.0), Entry: m.Clone()})
	}
	return links
}

// Confidence is the node's confidence, 1.0 when absent or not a number.
func (n *Node) Confidence() float64 {
	v, _ := n.Front.Get("confidence")
	return numberOr(v, 1.0)
}

// Source is manual, ingest or agent as written.
func (n *Node) Source() string { return n.Front.String("source") }

// EntityKind is the kind of an entity node.
func (n *Node) EntityKind() string { return n.Front.String("entity_kind") }

// Payload is the sibling payload file name or a remote payload URI.
func (n *Node) Payload() string { return n.Front.String("payload") }

// PayloadType is sqlite, pdf, docx, image or audio as written.
func (n *Node) PayloadType() string { return n.Front.String("payload_type") }

// PayloadHash is the sha256 hex of the payload bytes.
func (n *Node) PayloadHash() string { return n.Front.String("payload_hash") }

// Origin is the one URI the node came from, never dereferenced.
func (n *Node) Origin() string { return n.Front.String("origin") }

// Coverage is a branch's "<N> bananas, <M> sub-branches" string.
func (n *Node) Coverage() string { return n.Front.String("coverage") }

// Content is "cached" or "reference" for nodes whose body lives elsewhere
// (G.7).
func (n *Node) Content() string { return n.Front.String("content") }

// Lang is the BCP-47 language tag. A YAML 1.1 reader turns an unquoted
// `lang: no` (Norwegian) into false, so a boolean maps back to "no" or
// "yes" (spec §2.5).
func (n *Node) Lang() string {
	v, _ := n.Front.Get("lang")
	if b, ok := v.(bool); ok {
		if b {
			return "yes"
		}
		return "no"
	}
	return n.Front.String("lang")
}

// IsBranch reports whether the node is a branch index.
func (n *Node) IsBranch() bool { return n.Type() == "branch" }

// fieldString returns a string value only; numbers do not count here,
// since a numeric rel or target is malformed rather than formattable.
func (f *Frontmatter) fieldString(key string) (string, bool) {
	v, _ := f.Get(key)
	s, ok := v.(string)
	return s, ok
}

// dateOf reads a date the way every reader must: a date string, a
// datetime truncated to its day, or any string whose first ten characters
// are a date.
func dateOf(f *Frontmatter, key string) string {
	v, _ := f.Get(key)
	s, ok := v.(string)
	if !ok {
		return ""
	}
	d, ok := leadingDate(s)
	if !ok {
		return ""
	}
	return d
}

// leadingDate returns the YYYY-MM-DD that s starts with. Year 0 is
// refused, as Python's date type (the reference's reader) refuses it.
func leadingDate(s string) (string, bool) {
	if len(s) < 10 {
		return "", false
	}
	d := s[:10]
	t, err := time.Parse(time.DateOnly, d)
	if err != nil || t.Year() < 1 {
		return "", false
	}
	return d, true
}

// stringList reads a list of scalars as strings; a non-list reads as
// absent and non-scalar items are skipped.
func stringList(f *Frontmatter, key string) []string {
	v, _ := f.Get(key)
	items, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := scalarText(it); ok {
			out = append(out, s)
		}
	}
	return out
}

// numberOr returns v as a float64 when it is a number (booleans are not
// numbers), else def.
func numberOr(v any, def float64) float64 {
	switch t := v.(type) {
	case float64:
		return t
	case int64:
		return float64(t)
	}
	return def
}
