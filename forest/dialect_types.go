// SPDX-License-Identifier: Apache-2.0

package forest

import "slices"

// Dialect is a forest's vocabulary: the node types and typed edge rels
// declared in _meta/schema.md. The forest's schema is the runtime
// authority; ParseDialect falls back to the defaults independently for
// types and rels when a schema declares none.
type Dialect struct {
	Types []string
	Rels  []Rel
}

// Rel is one declared edge type. Inverse is "" when the rel has none
// (discovered-shortcut).
type Rel struct {
	Name    string
	Inverse string
}

// HasType reports whether t is declared.
func (d *Dialect) HasType(t string) bool { return slices.Contains(d.Types, t) }

// HasRel reports whether rel is declared.
func (d *Dialect) HasRel(rel string) bool {
	return slices.ContainsFunc(d.Rels, func(r Rel) bool { return r.Name == rel })
}

// Inverse is the rel an in-edge of rel is shown with: the declared inverse,
// or rel itself when it has none or is not declared.
func (d *Dialect) Inverse(rel string) string {
	for _, r := range d.Rels {
		if r.Name == rel && r.Inverse != "" {
			return r.Inverse
		}
	}
	return rel
}

// RelNames lists the declared rels in schema order.
func (d *Dialect) RelNames() []string {
	names := make([]string, len(d.Rels))
	for i, r := range d.Rels {
		names[i] = r.Name
	}
	return names
}
