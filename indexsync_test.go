// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine/forest"
)

func TestSyncEntrySummary(t *testing.T) {
	body := "# P\n\n## Sub-branches\n- [[p/a/_index]] — Old A. 3 bananas, 1 sub-branches.\n- [[p/b/_index]] — Old B.\n\n" +
		"## Direct bananas\n- [[p/x]] — Old x.\n- [[p/xy]] — Not x.\n- [[p/x|X]] — Second entry for x.\n"
	tests := []struct {
		name, id, summary, coverage, want string
		changed                           bool
	}{
		{"leaf, first match only", "p/x", "New x.", "",
			strings.Replace(body, "- [[p/x]] — Old x.", "- [[p/x]] — New x.", 1), true},
		{"branch keeps its suffix, refreshed", "p/a/_index", "New A.", "4 bananas, 1 sub-branches",
			strings.Replace(body, "Old A. 3 bananas, 1 sub-branches.", "New A. 4 bananas, 1 sub-branches.", 1), true},
		{"unparseable coverage keeps the old suffix", "p/a/_index", "New A.", "lots",
			strings.Replace(body, "Old A.", "New A.", 1), true},
		{"branch without suffix gains none", "p/b/_index", "New B.", "2 bananas, 0 sub-branches",
			strings.Replace(body, "Old B.", "New B.", 1), true},
		{"multi-line summary becomes one line", "p/xy", "Line one\nline two.", "",
			strings.Replace(body, "Not x.", "Line one line two.", 1), true},
		{"no entry", "p/z", "Z.", "", body, false},
		{"same summary", "p/x", "Old x.", "", body, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := syncEntrySummary(body, tt.id, tt.summary, tt.coverage)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.changed, changed)
		})
	}
	got, _ := syncEntrySummary("- [[p/x|Shown]] — Old.\r\nrest", "p/x", "New.", "")
	assert.Equal(t, "- [[p/x|Shown]] — New.\r\nrest", got, "the link part and line ending are kept")
}

func TestRetargetLinks(t *testing.T) {
	n := &forest.Node{ID: "a", Front: forest.NewFrontmatter(forest.Field{Key: "links", Value: []any{
		forest.NewFrontmatter(forest.Field{Key: "rel", Value: "related-to"}, forest.Field{Key: "target", Value: "old"}),
		forest.NewFrontmatter(forest.Field{Key: "rel", Value: "related-to"}, forest.Field{Key: "target", Value: "new"}),
		forest.NewFrontmatter(forest.Field{Key: "rel", Value: "author"}, forest.Field{Key: "target", Value: "old"}),
	}})}
	assert.Equal(t, 2, retargetLinks(n, "old", "new"))
	var pairs []string
	for _, l := range n.Links() {
		pairs = append(pairs, l.Rel+">"+l.Target)
	}
	assert.Equal(t, []string{"related-to>new", "author>new"}, pairs, "a retarget that duplicates a pair keeps the first")
	assert.Equal(t, 0, retargetLinks(n, "nothing", ""))
	assert.Len(t, n.Links(), 2)
	assert.Equal(t, 2, retargetLinks(n, "new", ""), "an empty target drops the links")
	assert.False(t, n.Front.Has("links"), "an emptied list is removed")
}

func FuzzSyncEntrySummary(f *testing.F) {
	f.Add("## Direct bananas\n- [[a/b]] — Old.\n", "a/b", "New.", "")
	f.Add("- [[a/_index|x]] — S. 1 bananas, 0 sub-branches.", "a/_index", "T", "2 bananas, 0 sub-branches")
	f.Add("- [[", "", "", "")
	f.Fuzz(func(t *testing.T, body, id, summary, coverage string) {
		got, changed := syncEntrySummary(body, id, summary, coverage)
		if !changed {
			if got != body {
				t.Fatal("an unchanged body must be returned as is")
			}
			return
		}
		if strings.Count(got, "\n") != strings.Count(body, "\n") {
			t.Fatalf("the line count changed: %q -> %q", body, got)
		}
	})
}
