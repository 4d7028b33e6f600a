// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
)

// branchIndexText is a branch index with the given title, updated date
// and direct entries ("id — summary").
func branchIndexText(title, updated string, entries ...string) []byte {
	var b strings.Builder
	b.WriteString("---\nid: c/_index\ntype: branch\ntitle: " + title + "\nsummary: Notes on c.\n")
	b.WriteString("coverage: 0 bananas, 0 sub-branches\ncreated: '2026-01-01'\nupdated: '" + updated + "'\n---\n\n")
	b.WriteString("# " + title + "\n\n> Notes on c.\n\n## Sub-branches\n\n## Direct bananas\n")
	for _, e := range entries {
		b.WriteString("- [[" + e + "\n")
	}
	b.WriteString("\n## Cross trails\n")
	return []byte(b.String())
}

func TestMergeBranchIndex(t *testing.T) {
	base := branchIndexText("C", "2026-02-01", "c/a]] — A.", "c/b]] — B.")
	cases := []struct {
		name         string
		ours, theirs []byte
		ok           bool
		want         []string // entry lines, in order
		title        string
	}{
		{"both add", branchIndexText("C", "2026-03-01", "c/a]] — A.", "c/b]] — B.", "c/x]] — X."),
			branchIndexText("C", "2026-03-02", "c/a]] — A.", "c/b]] — B.", "c/y]] — Y."), true,
			[]string{"c/a", "c/b", "c/x", "c/y"}, "C"},
		{"one removes, one adds", branchIndexText("C", "2026-03-01", "c/b]] — B."),
			branchIndexText("C", "2026-03-02", "c/a]] — A.", "c/b]] — B.", "c/y]] — Y."), true,
			[]string{"c/b", "c/y"}, "C"},
		{"same entry two ways", branchIndexText("C", "2026-03-01", "c/a]] — A one way.", "c/b]] — B."),
			branchIndexText("C", "2026-03-02", "c/a]] — A another.", "c/b]] — B."), false, nil, ""},
		{"one retitles, one adds", branchIndexText("Sea", "2026-03-01", "c/a]] — A.", "c/b]] — B."),
			branchIndexText("C", "2026-03-02", "c/a]] — A.", "c/b]] — B.", "c/y]] — Y."), true,
			[]string{"c/a", "c/b", "c/y"}, "Sea"},
		{"both retitle differently", branchIndexText("Sea", "2026-03-01", "c/a]] — A.", "c/b]] — B."),
			branchIndexText("Ocean", "2026-03-02", "c/a]] — A.", "c/b]] — B."), false, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := mergeBranchIndex("c/_index", base, c.ours, c.theirs)
			require.Equal(t, c.ok, ok)
			if !ok {
				return
			}
			again, _ := mergeBranchIndex("c/_index", base, c.ours, c.theirs)
			assert.Equal(t, got, again, "the same three versions join to the same bytes")
			n, err := forest.Parse("c/_index", got)
			require.NoError(t, err)
			assert.Equal(t, c.want, forest.EntryIDs(n.Body, forest.SectionDirect))
			assert.Equal(t, c.title, n.Front.String("title"))
			assert.Equal(t, forest.FormatCoverage(len(c.want), 0), n.Coverage())
			assert.Equal(t, "2026-03-02", n.Front.String("updated"), "the later date")
		})
	}
	t.Run("not an index", func(t *testing.T) {
		_, ok := resolveIndexes("c/a.md", base, base, base)
		assert.False(t, ok)
	})
}
