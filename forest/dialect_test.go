// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultDialect(t *testing.T) {
	d := DefaultDialect()
	assert.Equal(t, []string{"branch", "note", "document", "dataset", "entity", "concept", "event", "media"}, d.Types)
	require.Len(t, d.Rels, 10)
	assert.Equal(t, "superseded-by", d.Inverse("supersedes"))
	assert.Equal(t, "discovered-shortcut", d.Inverse("discovered-shortcut"), "no inverse shows as itself")

	d.Types[0] = "mutated"
	assert.Equal(t, "branch", DefaultDialect().Types[0], "each call returns a fresh copy")
}

func TestParseDialectFixture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(unpackFixtureForest(t), "_meta", "schema.md"))
	require.NoError(t, err)
	d := ParseDialect(string(data))
	assert.Equal(t, DefaultDialect(), d, "the fixture declares exactly the defaults")
	want := map[string]string{
		"part-of": "contains", "related-to": "related-to", "mentioned-in": "mentions",
		"author": "author-of", "compared-with": "compared-with", "derived-from": "origin-of",
		"same-as": "same-as", "discovered-shortcut": "", "succeeds": "precedes",
		"supersedes": "superseded-by",
	}
	got := map[string]string{}
	for _, r := range d.Rels {
		got[r.Name] = r.Inverse
	}
	assert.Equal(t, want, got)
}

func TestDefaultSchemaBodyRoundTrip(t *testing.T) {
	body := DefaultSchemaBody()
	assert.Equal(t, DefaultDialect(), ParseDialect(body))
	for _, exact := range []string{
		"# Forest dialect\n", "\n## Node types (type)\n", "\n## Edge types (rel)\n",
		"| `type` | Description | Harvest verb |\n|---|---|---|\n",
		"| `rel` | Inverse | Semantics |\n|---|---|---|\n",
		"| `discovered-shortcut` | — |", "| `supersedes` | `superseded-by` |",
		"| `dataset` | Tabular data (sibling SQLite) | query |",
	} {
		assert.Contains(t, body, exact)
	}
	data, err := os.ReadFile(filepath.Join(unpackFixtureForest(t), "_meta", "schema.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(data), body), "matches the reference's schema body")
}

func TestParseDialectRules(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		types []string
		rels  []Rel
	}{
		{
			name:  "types only: default rels",
			body:  "## Node types\n| `type` | d |\n|---|---|\n| `note` | x |\n| `recipe` | y |\n",
			types: []string{"note", "recipe"},
			rels:  defaultRels,
		},
		{
			name:  "rels only: default types",
			body:  "## Edge types\n| `rel` | Inverse |\n| `cites` | `cited-by` |\n",
			types: defaultTypes,
			rels:  []Rel{{"cites", "cited-by"}},
		},
		{
			name:  "no inverse spellings",
			body:  "# Relations\n| `a` | — |\n| `b` | - |\n| `c` |  |\n| `d` | – |\n| `e` | `` |\n| `f` | `g` | extra | cols |\n",
			types: defaultTypes,
			rels:  []Rel{{"a", ""}, {"b", ""}, {"c", ""}, {"d", ""}, {"e", ""}, {"f", "g"}},
		},
		{
			name:  "header rows skipped in both modes",
			body:  "## Types\n| `type` | x |\n| `rel` | x |\n## Edges\n| `rel` | x |\n| `type` | x |\n",
			types: defaultTypes,
			rels:  defaultRels,
		},
		{
			name:  "edge or rel in any heading switches mode; other headings switch back",
			body:  "# EDGE cases\n| `x` | `y` |\n## Kinds\n| `kind` | z |\n### Relational\n| `p` | q |\n",
			types: []string{"kind"},
			rels:  []Rel{{"x", "y"}, {"p", "q"}},
		},
		{
			name:  "rows are trimmed; non-rows ignored",
			body:  "## Types\n   | ` spaced ` | x |\nnot | `a` | row |\n| plain | no backticks |\n| `unterminated` no pipe\n",
			types: []string{"spaced"},
			rels:  defaultRels,
		},
		{
			name:  "duplicates keep first position, last inverse",
			body:  "## Types\n| `a` |x|\n| `b` |x|\n| `a` |x|\n## Rels\n| `r` | `s` |\n| `t` | — |\n| `r` | `u` |\n",
			types: []string{"a", "b"},
			rels:  []Rel{{"r", "u"}, {"t", ""}},
		},
		{
			name:  "only the inverse's edge backticks go, as the reference strips them",
			body:  "# rel\n| `0` |0`00|0\n| `a` | ``b`` |\n",
			types: defaultTypes,
			rels:  []Rel{{"0", "0`00"}, {"a", "b"}},
		},
		{
			name:  "CRLF line endings",
			body:  "## Types\r\n| `a` | x |\r\n## Rels\r\n| `r` | `s` |\r\n",
			types: []string{"a"},
			rels:  []Rel{{"r", "s"}},
		},
		{name: "empty", body: "", types: defaultTypes, rels: defaultRels},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ParseDialect(tt.body)
			assert.Equal(t, tt.types, d.Types)
			assert.Equal(t, tt.rels, d.Rels)
		})
	}
}

func FuzzParseDialect(f *testing.F) {
	f.Add(DefaultSchemaBody())
	f.Add("## Edge\n| `a` | `b` |\n| `rel` | x |\n")
	f.Add("| `` | |\n# rel\n|`x`|—|")
	f.Add("#rel\n| `0` |0`00|0")
	f.Fuzz(func(t *testing.T, body string) {
		d := ParseDialect(body)
		if len(d.Types) == 0 || len(d.Rels) == 0 {
			t.Fatal("types and rels never come back empty")
		}
		seen := map[string]bool{}
		for _, typ := range d.Types {
			if typ == "type" || typ == "rel" || typ == "" || seen[typ] {
				t.Fatalf("bad or duplicate type %q", typ)
			}
			seen[typ] = true
		}
		seen = map[string]bool{}
		for _, r := range d.Rels {
			if r.Name == "type" || r.Name == "rel" || r.Name == "" || seen[r.Name] {
				t.Fatalf("bad or duplicate rel %q", r.Name)
			}
			if strings.ContainsAny(r.Name, "`|\n") || strings.ContainsAny(r.Inverse, "|\n") ||
				strings.HasPrefix(r.Inverse, "`") || strings.HasSuffix(r.Inverse, "`") {
				t.Fatalf("cell syntax leaked into %+v", r)
			}
			switch r.Inverse {
			case "—", "–", "-":
				t.Fatalf("a none-spelling survived as an inverse: %+v", r)
			}
			seen[r.Name] = true
		}
	})
}
