// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"regexp"
	"strings"
)

// defaultTypes are the A.1 node types, in spec order.
var defaultTypes = []string{"branch", "note", "document", "dataset", "entity", "concept", "event", "media"}

// defaultRels are the A.2 edge types, in spec order; "" = no inverse.
var defaultRels = []Rel{
	{"part-of", "contains"},
	{"related-to", "related-to"},
	{"mentioned-in", "mentions"},
	{"author", "author-of"},
	{"compared-with", "compared-with"},
	{"derived-from", "origin-of"},
	{"same-as", "same-as"},
	{"discovered-shortcut", ""},
	{"succeeds", "precedes"},
	{"supersedes", "superseded-by"},
}

// DefaultDialect returns the built-in dialect: the eight A.1 node types and
// the ten A.2 rels (supersedes included, v0.58). A forest without
// _meta/schema.md speaks it.
func DefaultDialect() *Dialect {
	return &Dialect{
		Types: append([]string(nil), defaultTypes...),
		Rels:  append([]Rel(nil), defaultRels...),
	}
}

// schemaRow matches one table row of _meta/schema.md (spec §2.3 rule 2),
// applied to the trimmed line: a backticked token in the first cell and
// the second cell's text.
var schemaRow = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|\\s*([^|]*)\\|")

// ParseDialect reads the type and rel tables of a _meta/schema.md body
// exactly as spec §2.3 prescribes, so hand-edited schemas keep their
// meaning: a "#" line switches to rel mode when its lowercase text
// contains "edge" or "rel" and to type mode otherwise; rows whose token is
// "type" or "rel" are headers; a rel's inverse is the second cell without
// backticks, with "", "—", "–" and "-" meaning none. Types and rels each
// fall back to the defaults independently when the body declares none. A
// token declared twice keeps its first position; a rel's last inverse wins.
// The whole file may be passed: frontmatter lines never match a row.
func ParseDialect(body string) *Dialect {
	d := &Dialect{}
	relMode := false
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "#") {
			low := strings.ToLower(line)
			relMode = strings.Contains(low, "edge") || strings.Contains(low, "rel")
			continue
		}
		m := schemaRow.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		token := strings.TrimSpace(m[1])
		if token == "type" || token == "rel" || token == "" {
			continue
		}
		if relMode {
			d.addRel(token, parseInverse(m[2]))
		} else if !d.HasType(token) {
			d.Types = append(d.Types, token)
		}
	}
	if len(d.Types) == 0 {
		d.Types = append([]string(nil), defaultTypes...)
	}
	if len(d.Rels) == 0 {
		d.Rels = append([]Rel(nil), defaultRels...)
	}
	return d
}

// addRel declares rel, or updates its inverse when already declared.
func (d *Dialect) addRel(name, inverse string) {
	for i := range d.Rels {
		if d.Rels[i].Name == name {
			d.Rels[i].Inverse = inverse
			return
		}
	}
	d.Rels = append(d.Rels, Rel{Name: name, Inverse: inverse})
}

// parseInverse reads a rel row's second cell.
func parseInverse(cell string) string {
	inv := strings.Trim(strings.TrimSpace(cell), "`")
	switch inv {
	case "", "—", "–", "-":
		return ""
	}
	return inv
}

// typeDescriptions and relSemantics are the free-text cells of the
// default schema, keyed by token. They match the interop fixture so a
// Go-initialized forest reads like one the reference created.
var typeDescriptions = map[string][2]string{
	"branch":   {"Index file (_index.md) of a folder", "look"},
	"note":     {"Free-text knowledge", "pick"},
	"document": {"Converted document (PDF/DOCX origin)", "pick"},
	"dataset":  {"Tabular data (sibling SQLite)", "query"},
	"entity":   {"Person, organization, product, place", "pick"},
	"concept":  {"Definition / technical term", "pick"},
	"event":    {"Dated fact (meeting, decision, release)", "pick"},
	"media":    {"Image/audio/video with description", "pick"},
}

var relSemantics = map[string]string{
	"part-of":             "Logical hierarchy",
	"related-to":          "Generic association (symmetric)",
	"mentioned-in":        "Entity cited in a document",
	"author":              "Authorship",
	"compared-with":       "Technical contrast (symmetric)",
	"derived-from":        "Provenance",
	"same-as":             "Soft merge of duplicate entities",
	"discovered-shortcut": "The monkey's shout (created by graft)",
	"succeeds":            "Temporal order",
	"supersedes":          "Replacement: the successor makes the predecessor history",
}

// DefaultSchemaBody returns the body Init writes to _meta/schema.md: one
// row per default type and rel under the exact headings and header cells
// of spec §2.3, so ParseDialect reads it back as DefaultDialect.
func DefaultSchemaBody() string {
	var b strings.Builder
	b.WriteString("# Forest dialect\n\n## Node types (type)\n\n")
	b.WriteString("| `type` | Description | Harvest verb |\n|---|---|---|\n")
	for _, t := range defaultTypes {
		cells := typeDescriptions[t]
		b.WriteString("| `" + t + "` | " + cells[0] + " | " + cells[1] + " |\n")
	}
	b.WriteString("\n## Edge types (rel)\n\n")
	b.WriteString("| `rel` | Inverse | Semantics |\n|---|---|---|\n")
	for _, r := range defaultRels {
		inv := "—"
		if r.Inverse != "" {
			inv = "`" + r.Inverse + "`"
		}
		b.WriteString("| `" + r.Name + "` | " + inv + " | " + relSemantics[r.Name] + " |\n")
	}
	return b.String()
}
