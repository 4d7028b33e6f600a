// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func TestYAMLDepth(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"flat", "a: 1\nb: two\n", 1},
		{"nested mapping", "a:\n  b:\n    c: 1\n", 3},
		{"back out", "a:\n  b:\n    c: 1\nd: 2\n", 3},
		{"sequence at the key's column", "a:\n- x\n- y\n", 2},
		{"indented sequence of mappings", "links:\n  - rel: r\n    target: t\n", 3},
		{"compact sequences", "a:\n  - - - x\n", 4},
		{"flow", "a: [[1, {b: [2]}]]\n", 5},
		{"flow over lines", "a: [\n  [\n    1]]\nb: 1\n", 3},
		{"comments do not nest", "a: 1\n        # far right\nb: 2\n", 1},
		{"block scalar text does not nest", "a: |\n  x\n    y\n      z\nb: 1\n", 1},
		{"brackets in quotes do not nest", "a: '[[[['\nb: \"{{{\"\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, yamlDepth(tt.src, 100))
			assert.LessOrEqual(t, tt.want, depthBound(tt.src))
		})
	}
	assert.Equal(t, 11, yamlDepth("a: "+strings.Repeat("[", 50)+strings.Repeat("]", 50), 10), "stops past the limit")
}

// FuzzDepthBound: the byte bound is never below the depth the tokens
// give, so a source within it is within the limit.
func FuzzDepthBound(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a:\n  - - - x\n", "a: [[1, {b: [2]}]]\n", "? a\n: b\n", "a:\r  b:\r    c: 1", "-\n-\n -"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if d, b := yamlDepth(src, 1<<20), depthBound(src); d > b {
			t.Fatalf("depth %d above the bound %d for %q", d, b, src)
		}
	})
}

// TestParseWithinLimits: each read limit refuses a file past it with
// E_FRONTMATTER naming the limit, before or after the YAML is parsed.
func TestParseWithinLimits(t *testing.T) {
	node := func(extra string) []byte {
		return []byte("---\nid: x\ntype: note\ntitle: X\n" + extra + "---\n\nBody.\n")
	}
	var links strings.Builder
	links.WriteString("links:\n")
	for i := range 20 {
		fmt.Fprintf(&links, "  - {rel: related-to, target: t%d}\n", i)
	}
	tests := []struct {
		name  string
		data  []byte
		lim   ReadLimits
		limit string // "" when the file reads
	}{
		{"within every limit", node(links.String()), ReadLimits{}, ""},
		{"frontmatter too long", node("notes: " + strings.Repeat("n", 200) + "\n"), ReadLimits{FrontmatterBytes: 128}, "FrontmatterBytes read limit of 128 bytes"},
		{"flow nesting", node("deep: " + strings.Repeat("[", 9) + strings.Repeat("]", 9) + "\n"), ReadLimits{YAMLDepth: 8}, "YAMLDepth read limit of 8"},
		{"block nesting", node("deep:\n  " + strings.Repeat("- ", 9) + "x\n"), ReadLimits{YAMLDepth: 8}, "YAMLDepth read limit of 8"},
		{"alias expansion", node("a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n"), ReadLimits{YAMLValues: 50}, "YAMLValues read limit of 50"},
		{"too many links", node(links.String()), ReadLimits{Links: 19}, "20 links: over the Links read limit of 19"},
		{"links at the limit", node(links.String()), ReadLimits{Links: 20}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseWithin("x", tt.data, tt.lim)
			if tt.limit == "" {
				require.NoError(t, err)
				assert.Equal(t, "X", n.Front.String("title"))
				return
			}
			require.Error(t, err)
			assert.Equal(t, envelope.Frontmatter, envelope.CodeOf(err))
			assert.Contains(t, err.Error(), tt.limit)
			_, err = Parse("x", tt.data)
			assert.NoError(t, err, "the defaults read it")
		})
	}
}

func TestDefaultReadLimitsBoundHostileFiles(t *testing.T) {
	var links strings.Builder
	links.WriteString("links:\n")
	for i := range DefaultLinks + 1 {
		fmt.Fprintf(&links, "- {rel: r, target: t%d}\n", i)
	}
	for name, front := range map[string]string{
		"ten thousand brackets": "deep: " + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + "\n",
		"compact block nesting": "deep:\n  " + strings.Repeat("- ", 9_000) + "x\n",
		"links past the limit":  links.String(),
		"a megabyte of fields":  strings.Repeat("k: value\n", 120_000),
	} {
		_, err := Parse("x", []byte("---\nid: x\n"+front+"---\n"))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "read limit", name)
	}
}

// FuzzParseWithin: any file reads, or is refused E_FRONTMATTER; tight
// limits only ever refuse what the defaults read, never change it.
func FuzzParseWithin(f *testing.F) {
	f.Add([]byte("---\nid: x\nlinks:\n  - {rel: r, target: t}\n---\n\nBody.\n"))
	f.Add([]byte("---\na: &a [x, x]\nb: [*a, *a]\n---\n"))
	f.Add([]byte("---\nd: [[[[{a: [1]}]]]]\n---\n"))
	f.Add([]byte("---\nd:\n  - - - - x\n---\n"))
	tight := ReadLimits{FrontmatterBytes: 64, YAMLDepth: 3, YAMLValues: 8, Links: 1}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Parse("x", data)
		if err != nil && envelope.CodeOf(err) != envelope.Frontmatter {
			t.Fatalf("refusal is not E_FRONTMATTER: %v", err)
		}
		tn, terr := ParseWithin("x", data, tight)
		switch {
		case terr != nil && envelope.CodeOf(terr) != envelope.Frontmatter:
			t.Fatalf("tight refusal is not E_FRONTMATTER: %v", terr)
		case terr == nil && err != nil:
			t.Fatalf("tight limits read what the defaults refuse: %v", err)
		case terr == nil && string(tn.Bytes()) != string(n.Bytes()):
			t.Fatalf("tight limits changed the node")
		}
	})
}
