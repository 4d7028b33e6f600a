// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureIndex is one _index.md of the interop fixture.
type fixtureIndex struct {
	id, coverage, body string
}

// fixtureIndexes reads every branch index of the fixture, splitting the
// body off with the §2.6 delimiter rule and picking coverage by hand so
// these tests stand apart from the frontmatter codec.
func fixtureIndexes(t *testing.T) []fixtureIndex {
	t.Helper()
	r, err := NewRoot(unpackFixtureForest(t))
	require.NoError(t, err)
	var out []fixtureIndex
	_, err = r.Walk(func(id, path string) error {
		if !IsIndex(id) {
			return nil
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		text := string(data)
		end := strings.Index(text[3:], "\n---") + 3
		body := text[end+4:]
		body = strings.TrimLeft(body[strings.IndexByte(body, '\n')+1:], "\n")
		var coverage string
		for _, line := range strings.Split(text[:end], "\n") {
			if v, ok := strings.CutPrefix(line, "coverage: "); ok {
				coverage = v
			}
		}
		out = append(out, fixtureIndex{id: id, coverage: coverage, body: body})
		return nil
	})
	require.NoError(t, err)
	require.Len(t, out, 12)
	return out
}

func TestFixtureIndexesAgreeWithCoverage(t *testing.T) {
	for _, ix := range fixtureIndexes(t) {
		t.Run(ix.id, func(t *testing.T) {
			notes, branches, ok := ParseCoverage(ix.coverage)
			require.True(t, ok, "coverage %q parses", ix.coverage)
			assert.Equal(t, notes, CountEntries(ix.body, SectionDirect))
			assert.Equal(t, branches, CountEntries(ix.body, SectionSubBranches))
			assert.Equal(t, ix.coverage, FormatCoverage(CountEntries(ix.body, SectionDirect),
				CountEntries(ix.body, SectionSubBranches)))

			direct := EntryIDs(ix.body, SectionDirect)
			subs := EntryIDs(ix.body, SectionSubBranches)
			assert.Len(t, direct, notes)
			assert.Len(t, subs, branches)
			for _, id := range direct {
				assert.False(t, IsIndex(id))
				assert.Equal(t, ix.id, ParentIndex(id), "entry %s", id)
			}
			for _, id := range subs {
				assert.True(t, IsIndex(id))
				assert.Equal(t, ix.id, ParentIndex(id), "entry %s", id)
			}
			assert.NotEmpty(t, CrossTrails(ix.body))
			o := ParseOutline(ix.body)
			assert.NotEmpty(t, o.Title)
			assert.NotEmpty(t, o.Quote, "every fixture index quotes its summary")
			assert.Contains(t, o.SectionNames(), SectionCrossTrails)
		})
	}
}

func TestFixtureIndexRoundTrips(t *testing.T) {
	for _, ix := range fixtureIndexes(t) {
		t.Run(ix.id, func(t *testing.T) {
			for _, section := range []string{SectionSubBranches, SectionDirect, SectionLandmarks} {
				ids := EntryIDs(ix.body, section)
				if len(ids) == 0 {
					continue
				}
				last := ids[len(ids)-1]
				line := entryLineOf(t, ix.body, last)
				removed, ok := RemoveEntry(ix.body, last)
				require.True(t, ok)
				assert.NotContains(t, EntryIDs(removed, section), last)
				assert.Equal(t, ix.body, SetEntry(removed, section, last, line),
					"removing the last entry and setting it again restores the body")

				again, ok := ReplaceEntrySummary(ix.body, last, line)
				assert.False(t, ok, "same line: no change")
				assert.Equal(t, ix.body, again)

				rewritten := ReplaceSection(ix.body, section, SectionLines(ix.body, section))
				assert.Equal(t, ix.body, rewritten, "rewriting a section with its own lines is stable")
			}
		})
	}
}

// entryLineOf returns the body's entry line for id.
func entryLineOf(t *testing.T, body, id string) string {
	t.Helper()
	for _, l := range strings.Split(body, "\n") {
		if got, ok := entryID(l); ok && got == id {
			return l
		}
	}
	t.Fatalf("no entry for %s", id)
	return ""
}

func masterFixtureBody(t *testing.T) string {
	for _, ix := range fixtureIndexes(t) {
		if ix.id == RootIndexID {
			return ix.body
		}
	}
	t.Fatal("no master")
	return ""
}

func TestLandmarksBeforeCrossTrailsTolerated(t *testing.T) {
	body := masterFixtureBody(t)
	lm, _, ok := FindSection(body, SectionLandmarks)
	require.True(t, ok)
	ct, _, ok := FindSection(body, SectionCrossTrails)
	require.True(t, ok)
	require.Less(t, lm, ct, "the fixture's master puts Landmarks first")

	assert.Equal(t, []string{"Forest dialect (node and edge types) → [[_meta/schema]]"}, CrossTrails(body))
	assert.Len(t, EntryIDs(body, SectionLandmarks), 10)
	assert.Empty(t, EntryIDs(body, SectionDirect))

	// The empty Direct bananas section is followed by Landmarks: a new
	// entry lands under its heading, not among the landmarks.
	got := SetEntry(body, SectionDirect, "readme", EntryLine("readme", "Start here."))
	assert.Contains(t, got, "## Direct bananas\n- [[readme]] — Start here.\n\n## Landmarks\n")
	assert.Equal(t, []string{"readme"}, EntryIDs(got, SectionDirect))
	assert.Len(t, EntryIDs(got, SectionLandmarks), 10)

	lines := []string{EntryLine("people/ana-castro", "Data engineer.")}
	got = ReplaceSection(body, SectionLandmarks, lines)
	assert.Contains(t, got, "## Landmarks\n- [[people/ana-castro]] — Data engineer.\n\n## Cross trails\n")
	assert.Equal(t, CrossTrails(body), CrossTrails(got))
	assert.Equal(t, EntryIDs(body, SectionSubBranches), EntryIDs(got, SectionSubBranches))
}

func TestSetEntry(t *testing.T) {
	const base = "# P\n\n> q\n\n## Sub-branches\n- [[p/a/_index]] — A.\n\n## Direct bananas\n- [[p/x]] — X.\n- [[p/y|Y]] — Y.\nA trailing remark.\n\n## Cross trails\n- t → [[q]]\n"
	tests := []struct {
		name, body, heading, id, line, want string
	}{
		{
			name: "append after the last entry, before other text", body: base,
			heading: SectionDirect, id: "p/z", line: "- [[p/z]] — Z.",
			want: strings.Replace(base, "- [[p/y|Y]] — Y.\n", "- [[p/y|Y]] — Y.\n- [[p/z]] — Z.\n", 1),
		},
		{
			name: "an existing entry moves to the end, with its text form dropped", body: base,
			heading: SectionDirect, id: "p/x", line: "- [[p/x]] — X2.",
			want: strings.Replace(base, "- [[p/x]] — X.\n- [[p/y|Y]] — Y.\n", "- [[p/y|Y]] — Y.\n- [[p/x]] — X2.\n", 1),
		},
		{
			name: "an entry moving sections leaves none behind", body: base,
			heading: SectionSubBranches, id: "p/y", line: "- [[p/y]] — now a branch?",
			want: strings.Replace(strings.Replace(base, "- [[p/y|Y]] — Y.\n", "", 1),
				"- [[p/a/_index]] — A.\n", "- [[p/a/_index]] — A.\n- [[p/y]] — now a branch?\n", 1),
		},
		{
			name: "case-insensitive heading", body: base,
			heading: "direct BANANAS", id: "p/z", line: "- [[p/z]] — Z.",
			want: strings.Replace(base, "- [[p/y|Y]] — Y.\n", "- [[p/y|Y]] — Y.\n- [[p/z]] — Z.\n", 1),
		},
		{
			name: "missing section appended at body end", body: "# P\n\n> q\n\n## Direct bananas\n- [[p/x]] — X.\n\n\n",
			heading: SectionSubBranches, id: "p/b/_index", line: "- [[p/b/_index]] — B.",
			want: "# P\n\n> q\n\n## Direct bananas\n- [[p/x]] — X.\n\n## Sub-branches\n- [[p/b/_index]] — B.\n",
		},
		{
			name: "empty body", body: "", heading: SectionDirect, id: "x", line: "- [[x]] — X.",
			want: "## Direct bananas\n- [[x]] — X.\n",
		},
		{
			name: "heading on the last line without newline", body: "## Direct bananas",
			heading: SectionDirect, id: "x", line: "- [[x]] — X.",
			want: "## Direct bananas\n- [[x]] — X.\n",
		},
		{
			name: "last entry without newline", body: "## Direct bananas\n- [[a]] — A.",
			heading: SectionDirect, id: "x", line: "- [[x]] — X.",
			want: "## Direct bananas\n- [[a]] — A.\n- [[x]] — X.\n",
		},
		{
			name: "an unclosed fence is closed before the new section", body: "# P\n```\ncode\n",
			heading: SectionDirect, id: "x", line: "- [[x]] — X.",
			want: "# P\n```\ncode\n```\n\n## Direct bananas\n- [[x]] — X.\n",
		},
		{
			name: "prefix match when no exact heading", body: "## Direct bananas (legacy)\n- [[a]] — A.\n",
			heading: SectionDirect, id: "b", line: "- [[b]] — B.",
			want: "## Direct bananas (legacy)\n- [[a]] — A.\n- [[b]] — B.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SetEntry(tt.body, tt.heading, tt.id, tt.line)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, 1, countOf(EntryIDs(got, tt.heading), tt.id))
		})
	}
}

func countOf(ids []string, id string) int {
	n := 0
	for _, got := range ids {
		if got == id {
			n++
		}
	}
	return n
}

func TestRemoveAndReplaceEntry(t *testing.T) {
	const body = "## Sub-branches\n- [[a/_index]] — Old. 1 bananas, 0 sub-branches.\n- [[a/_indexes]] — Not a.\n\n## Direct bananas\n- [[a/_index|dup]] — x\n- [[b]] — B.\n"
	got, ok := RemoveEntry(body, "a/_index")
	assert.True(t, ok)
	assert.Equal(t, "## Sub-branches\n- [[a/_indexes]] — Not a.\n\n## Direct bananas\n- [[b]] — B.\n", got)
	_, ok = RemoveEntry(body, "zzz")
	assert.False(t, ok)
	_, ok = RemoveEntry(body, "a")
	assert.False(t, ok, "ids match exactly, never by prefix")

	line := SubBranchLine("a/_index", "New.", 2, 0, true)
	got, ok = ReplaceEntrySummary(body, "a/_index", line)
	assert.True(t, ok)
	assert.Equal(t, "## Sub-branches\n- [[a/_index]] — New. 2 bananas, 0 sub-branches.\n- [[a/_indexes]] — Not a.\n\n## Direct bananas\n- [[a/_index]] — New. 2 bananas, 0 sub-branches.\n- [[b]] — B.\n", got)
	got, ok = ReplaceEntrySummary("- [[b]] — B.\r\nx\r\n", "b", "- [[b]] — C.")
	assert.True(t, ok)
	assert.Equal(t, "- [[b]] — C.\r\nx\r\n", got, "line endings kept")
	_, ok = ReplaceEntrySummary(body, "missing", "- [[missing]] — m")
	assert.False(t, ok)
}

func TestFindSection(t *testing.T) {
	const body = "# Title\n## Notes about this\n### Sub\ntext\n## notes\nN\n```\n## Fenced\n```\n## Other\n# Top\n"
	tests := []struct {
		heading string
		want    string // section text; "" = not found
	}{
		{"Notes", "## notes\nN\n```\n## Fenced\n```\n"},
		{"  NOTES ", "## notes\nN\n```\n## Fenced\n```\n"},
		{"Notes about", "## Notes about this\n### Sub\ntext\n"},
		{"sub", "### Sub\ntext\n"},
		{"Other", "## Other\n"},
		{"Title", "# Title\n## Notes about this\n### Sub\ntext\n## notes\nN\n```\n## Fenced\n```\n## Other\n"},
		{"Top", "# Top\n"},
		{"Fenced", ""},
		{"Missing", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.heading, func(t *testing.T) {
			start, end, ok := FindSection(body, tt.heading)
			if tt.want == "" {
				assert.False(t, ok)
				assert.Nil(t, SectionLines(body, tt.heading))
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want, body[start:end])
		})
	}
	assert.Equal(t, []string{"N", "```", "## Fenced", "```"}, SectionLines(body, "notes"))
	assert.Equal(t, []string{}, SectionLines("## Empty\n\n\n## Next\n", "empty"))
}

func TestReplaceSection(t *testing.T) {
	tests := []struct {
		name, body, heading string
		lines               []string
		want                string
	}{
		{
			name: "blank line after a rewritten section", body: "## Landmarks\n- [[a]] — A.\n## Cross trails\n- t\n",
			heading: "Landmarks", lines: []string{"- [[b]] — B.", "- [[c]] — C."},
			want: "## Landmarks\n- [[b]] — B.\n- [[c]] — C.\n\n## Cross trails\n- t\n",
		},
		{
			name: "subsections replaced too", body: "## A\nx\n### A1\ny\n## B\n",
			heading: "A", lines: []string{"z"},
			want: "## A\nz\n\n## B\n",
		},
		{
			name: "emptied", body: "# T\n## Landmarks\n- [[a]] — A.\n\n## Next\n",
			heading: "landmarks", lines: nil,
			want: "# T\n## Landmarks\n\n## Next\n",
		},
		{
			name: "last section", body: "# T\n\n## Landmarks\n- [[a]] — A.\n\n\n",
			heading: "Landmarks", lines: []string{"- [[b]] — B."},
			want: "# T\n\n## Landmarks\n- [[b]] — B.\n",
		},
		{
			name: "created when missing", body: "# T\n\n> q\n",
			heading: "Landmarks", lines: []string{"- [[b]] — B."},
			want: "# T\n\n> q\n\n## Landmarks\n- [[b]] — B.\n",
		},
		{
			name: "heading level and spelling kept", body: "### landmarks\nold\n",
			heading: "Landmarks", lines: []string{"new"},
			want: "### landmarks\nnew\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ReplaceSection(tt.body, tt.heading, tt.lines))
		})
	}
}

func TestEntryLines(t *testing.T) {
	assert.Equal(t, "- [[p/x]] — Leaf summary.", EntryLine("p/x", "  Leaf summary. "))
	assert.Equal(t, "- [[p/x]] — Two lines joined.", EntryLine("p/x", "Two lines\n  joined.\r\n"))
	assert.Equal(t, "- [[p/m/_index]] — Child. 4 bananas, 0 sub-branches.",
		SubBranchLine("p/m/_index", "Child.", 4, 0, true))
	assert.Equal(t, "- [[p/m/_index]] — Child.", SubBranchLine("p/m/_index", "Child.", 4, 0, false))
	id, ok := entryID(EntryLine("a b/ç", "x"))
	assert.True(t, ok)
	assert.Equal(t, "a b/ç", id)
}

func TestCoverage(t *testing.T) {
	assert.Equal(t, "0 bananas, 0 sub-branches", FormatCoverage(0, 0))
	assert.Equal(t, "1 bananas, 1 sub-branches", FormatCoverage(1, 1), "always plural")
	tests := []struct {
		in          string
		notes, subs int
		ok          bool
	}{
		{"4 bananas, 0 sub-branches", 4, 0, true},
		{"1 banana, 1 sub-branch", 1, 1, true},
		{"1 banana, 2 sub-branches.", 1, 2, true},
		{"  12 bananas, 3 sub-branches  ", 12, 3, true},
		{"4 bananas,0 sub-branches", 0, 0, false},
		{"four bananas, 0 sub-branches", 0, 0, false},
		{"4 notes, 0 sub-branches", 0, 0, false},
		{"-1 bananas, 0 sub-branches", 0, 0, false},
		{"99999999999999999999 bananas, 0 sub-branches", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			n, m, ok := ParseCoverage(tt.in)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.notes, n)
			assert.Equal(t, tt.subs, m)
		})
	}
}

func TestCrossTrails(t *testing.T) {
	body := "## Cross trails\n- Theory → [[concepts/_index]]\n  - indented → [[x]]\n-no space\nnot a bullet\n-   \n\n## Next\n- other\n"
	assert.Equal(t, []string{"Theory → [[concepts/_index]]", "indented → [[x]]", "no space"}, CrossTrails(body))
	assert.Equal(t, []string{}, CrossTrails("# none"))
}

func TestMasterBody(t *testing.T) {
	assert.Equal(t, "# Acme\n\n> Master branch of Acme.\n\n## Sub-branches\n\n## Direct bananas\n\n## Cross trails\n\n## Landmarks\n",
		MasterBody("Acme", "Master branch of Acme."))
	body := MasterBody("Acme", "S.")
	for _, s := range []string{SectionSubBranches, SectionDirect, SectionCrossTrails, SectionLandmarks} {
		_, _, ok := FindSection(body, s)
		assert.True(t, ok, s)
	}
	o := ParseOutline(body)
	assert.Equal(t, "Acme", o.Title)
	assert.Equal(t, "S.", o.Quote)
}

func TestMasterBodyMatchesFixtureShape(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(unpackFixtureForest(t), "_index.md"))
	require.NoError(t, err)
	headings := ParseOutline(string(data)).SectionNames()
	want := ParseOutline(MasterBody("t", "s")).SectionNames()
	assert.ElementsMatch(t, want, headings, "the master carries the same four sections")
}

func FuzzIndexOps(f *testing.F) {
	f.Add("# P\n## Direct bananas\n- [[a]] — A.\n", SectionDirect, "a", "New.")
	f.Add("```\n## Direct bananas\n", SectionDirect, "x/y", "s")
	f.Add("## Direct bananas (old)\n- [[b|B]] — b\n## Sub\n", "direct", "b", "multi\nline")
	f.Fuzz(func(t *testing.T, body, heading, id, summary string) {
		heading = strings.TrimSpace(heading)
		if heading == "" || strings.ContainsAny(heading, "\r\n") || badIDShape(id) != "" ||
			strings.ContainsAny(id, "[]|") || id != strings.TrimSpace(id) || id == "" {
			t.Skip()
		}
		got := SetEntry(body, heading, id, EntryLine(id, summary))
		if notes, subs := CountCoverage(got); notes != CountEntries(got, SectionDirect) || subs != CountEntries(got, SectionSubBranches) {
			t.Fatalf("CountCoverage(%q) = %d, %d; CountEntries disagrees", got, notes, subs)
		}
		if n := countOf(EntryIDs(got, heading), id); n != 1 {
			t.Fatalf("entry %q appears %d times in section %q of %q", id, n, heading, got)
		}
		removed, ok := RemoveEntry(got, id)
		if !ok || countOf(EntryIDs(removed, heading), id) != 0 {
			t.Fatalf("remove left %q in %q", id, removed)
		}
		replaced := ReplaceSection(got, heading, []string{EntryLine(id, "s")})
		if n := countOf(EntryIDs(replaced, heading), id); n != 1 {
			t.Fatalf("replace section: %d entries for %q in %q", n, id, replaced)
		}
	})
}

func TestCountCoverage(t *testing.T) {
	for _, tt := range []struct {
		body        string
		notes, subs int
	}{
		{"", 0, 0},
		{"# B\n\n## Sub-branches\n- [[a/_index]] — A.\n\n## Direct bananas\n- [[x]] — X.\n- [[y]] — Y.\n", 2, 1},
		{"## Direct bananas\n- [[x]]\n```\n- [[in a fence]]\n## Sub-branches\n```\n- [[y]]\n", 3, 0},
		{"## Sub-branches\n- [[s]]\n### Deeper\n- [[t]]\n## Cross trails\n- [[u]]\n", 0, 2},
	} {
		notes, subs := CountCoverage(tt.body)
		assert.Equal(t, [2]int{tt.notes, tt.subs}, [2]int{notes, subs}, "%q", tt.body)
		assert.Equal(t, [2]int{CountEntries(tt.body, SectionDirect), CountEntries(tt.body, SectionSubBranches)}, [2]int{notes, subs})
	}
}

// entryPattern is A.5's entry pattern, the oracle entryID is held to.
var entryPattern = regexp.MustCompile(`^- \[\[([^\]|]*)(?:\|[^\]]*)?\]\]`)

// TestEntryIDMatchesPattern: the hand-written entry reader answers as the
// spec's pattern does, on well-formed and malformed lines alike.
func TestEntryIDMatchesPattern(t *testing.T) {
	lines := []string{
		"", "-", "- [[", "- [[]]", "- [[a]]", "- [[a]] — s", "- [[a|b]] — s", "- [[a|]]",
		"- [[a|b]", "- [[a|b] ]]", "- [[a]x]]", "- [[a] ]]", "- [[a||b]]", "- [[a|b|c]]",
		"- [[a|b]]]", "- [[a b/ç]] — x", " - [[a]]", "-  [[a]]", "* [[a]]", "- [a]]",
		"- [[a|b]c]]", "- [[a\tb]]", "- [[a]]]]", "- [[|x]]", "- [[]] — empty id",
		"- [[a]", "- [[a", "- [[a|b", "## Direct bananas", "- [[p/x#anchor]] — s",
	}
	for _, l := range lines {
		got, ok := entryID(l)
		m := entryPattern.FindStringSubmatch(l)
		want := ""
		if m != nil {
			want = m[1]
		}
		assert.Equal(t, m != nil, ok, "%q", l)
		assert.Equal(t, want, got, "%q", l)
	}
}

// forwardLastEntryEnd is the forward scan lastEntryEnd replaced.
func forwardLastEntryEnd(section string) int {
	at := 0
	for l := range spanLines(section) {
		if strings.HasPrefix(l.text, entryPrefix) {
			at = l.end
		}
	}
	return at
}

func TestLastEntryEndAsForwardScan(t *testing.T) {
	for _, s := range []string{
		"", "\n", "- [[a]]", "- [[a]]\n", "- [[a]]\r\n", "- [[a]]\n\n", "text\n- [[a]] — A.\nmore text\n\n",
		"- [[a]]\n- [[b]]\ntail without newline", "\n\n- [[a]]", "- [[\n", "- [", "- [[a]]\r", "x\r- [[a]]\n",
		"- [[a]] — A.\n" + strings.Repeat("- [[g/page]] — a page.\n", 50) + "A remark.\n",
	} {
		assert.Equal(t, forwardLastEntryEnd(s), lastEntryEnd(s), "%q", s)
	}
}

func FuzzLastEntryEnd(f *testing.F) {
	f.Add("text\n- [[a]] — A.\nmore text\n\n")
	f.Add("- [[a]]\r\n\n- [[b]]")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lastEntryEnd(s), forwardLastEntryEnd(s); got != want {
			t.Fatalf("lastEntryEnd(%q) = %d, want %d", s, got, want)
		}
	})
}
