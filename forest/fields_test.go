// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parseFront(t *testing.T, yamlText string) *Node {
	t.Helper()
	n, err := Parse("notes/x", []byte("---\n"+yamlText+"---\nbody\n"))
	require.NoError(t, err)
	return n
}

func TestFieldAccessors(t *testing.T) {
	n := parseFront(t, `id: notes/x
type: entity
title: Ana Castro
summary: Data engineer.
created: '2026-06-01'
updated: 2026-06-10T09:00:00Z
tags: [data, Ação]
aliases: [Ana, 7]
moved_from: [old/x]
confidence: 0.75
source: manual
entity_kind: person
payload: x.db
payload_type: sqlite
payload_hash: abc
origin: https://example.org/x
coverage: 1 bananas, 0 sub-branches
content: cached
lang: pt-BR
`)
	assert.Equal(t, "entity", n.Type())
	assert.Equal(t, "Ana Castro", n.Title())
	assert.Equal(t, "Data engineer.", n.Summary())
	assert.Equal(t, "2026-06-01", n.Created())
	assert.Equal(t, "2026-06-10", n.Updated(), "a datetime is truncated to its day")
	assert.Equal(t, []string{"data", "Ação"}, n.Tags())
	assert.Equal(t, []string{"Ana", "7"}, n.Aliases(), "scalars in a list read as text")
	assert.Equal(t, []string{"old/x"}, n.MovedFrom())
	assert.Equal(t, 0.75, n.Confidence())
	assert.Equal(t, "manual", n.Source())
	assert.Equal(t, "person", n.EntityKind())
	assert.Equal(t, "x.db", n.Payload())
	assert.Equal(t, "sqlite", n.PayloadType())
	assert.Equal(t, "abc", n.PayloadHash())
	assert.Equal(t, "https://example.org/x", n.Origin())
	assert.Equal(t, "1 bananas, 0 sub-branches", n.Coverage())
	assert.Equal(t, "cached", n.Content())
	assert.Equal(t, "pt-BR", n.Lang())
	assert.False(t, n.IsBranch())
}

func TestFieldAccessorsLenient(t *testing.T) {
	n := parseFront(t, `type: [branch]
title: {a: b}
created: not a date
updated: 2026-13-01
tags: solo
confidence: high
lang: null
`)
	assert.Equal(t, "", n.Type(), "a list is not text")
	assert.Equal(t, "", n.Title(), "a mapping is not text")
	assert.Equal(t, "", n.Created())
	assert.Equal(t, "", n.Updated(), "month 13 is not a date")
	assert.Nil(t, n.Tags(), "a scalar is not a list")
	assert.Equal(t, 1.0, n.Confidence())
	assert.Equal(t, "", n.Lang())
	assert.False(t, n.IsBranch())

	empty := &Node{}
	assert.Equal(t, "", empty.Title())
	assert.Nil(t, empty.Links())
	assert.Equal(t, 1.0, empty.Confidence())
}

func TestDates(t *testing.T) {
	tests := map[string]string{
		"'2026-06-01'":             "2026-06-01",
		"2026-06-01":               "2026-06-01",
		"2026-06-01 10:00:00":      "2026-06-01",
		"'2026-06-01 and a note'":  "2026-06-01",
		"'2026-02-30'":             "",
		"'0000-01-01'":             "",
		"'2026-6-1'":               "",
		"20260601":                 "",
		"'2026/06/01'":             "",
		"!!timestamp 2026-06-01":   "2026-06-01",
		"'2026-06-01T23:59:59+05'": "2026-06-01",
	}
	for in, want := range tests {
		n := parseFront(t, "created: "+in+"\n")
		assert.Equal(t, want, n.Created(), in)
	}
}

func TestLangBoolean(t *testing.T) {
	// PyYAML reads an unquoted no/yes as a boolean; goccy keeps the text.
	// Either way the reader sees the tag.
	assert.Equal(t, "no", parseFront(t, "lang: no\n").Lang())
	assert.Equal(t, "no", parseFront(t, "lang: false\n").Lang())
	assert.Equal(t, "yes", parseFront(t, "lang: true\n").Lang())
}

func TestLinks(t *testing.T) {
	n := parseFront(t, `links:
- rel: part-of
  target: notes/_index
- rel: discovered-shortcut
  target: concepts/rag
  confidence: 0.5
  discovered_by: agent
  note: seen in a trail
- rel: related-to
  target: x
  confidence: '0.3'
- {rel: author}
- just a string
- rel: 3
  target: y
- rel: same-as
  target: z
  confidence: 1
`)
	links := n.Links()
	require.Len(t, links, 4, "malformed entries are skipped")
	assert.Equal(t, Link{Rel: "part-of", Target: "notes/_index", Confidence: 1,
		Entry: NewFrontmatter(Field{"rel", "part-of"}, Field{"target", "notes/_index"})}, links[0])
	assert.Equal(t, 0.5, links[1].Confidence)
	assert.Equal(t, []string{"rel", "target", "confidence", "discovered_by", "note"}, links[1].Entry.Keys())
	assert.Equal(t, "agent", links[1].Entry.String("discovered_by"))
	assert.Equal(t, 1.0, links[2].Confidence, "a quoted number is not a number")
	assert.Equal(t, 1.0, links[3].Confidence, "an integer confidence reads as a float")

	links[1].Entry.Set("note", "changed")
	assert.Equal(t, "seen in a trail", n.Links()[1].Entry.String("note"), "Entry is a copy")
}

func TestIsBranch(t *testing.T) {
	assert.True(t, parseFront(t, "type: branch\n").IsBranch())
	assert.False(t, parseFront(t, "type: Branch\n").IsBranch())
}
