// SPDX-License-Identifier: Apache-2.0

// Package forest reads and writes the on-disk forest format, Parts A and
// B of spec 01 (forest format): markdown nodes with a YAML frontmatter
// passport, the dialect in _meta/schema.md, branch indexes (_index.md),
// canonical ids and path containment, wikilinks, and the writer lock.
//
// The package touches only files. It knows nothing of git or of the derived
// catalog; the root package vine composes it with those.
package forest
