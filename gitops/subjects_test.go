// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestSubjects(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{InitSubject("Acme"), "init: forest 'Acme' (empty A.5 skeleton)"},
		{PlantSubject("crm/acme", "Acme Corp", "agent"), "plant(crm/acme): Acme Corp [source=agent]"},
		{PlantSubject("docs/q1", "Q1 report", "ingest"), "plant(docs/q1): Q1 report [source=ingest]"},
		{PlantBatchSubject(3), "plant(batch): 3 nodes"},
		{GraftSubject("crm/acme", PatchSummary{Set: []string{"tags", "summary"}, AddLinks: 1}),
			"graft(crm/acme): set summary,tags; +1 links"},
		{GraftSubject("sales/_index", PatchSummary{Set: []string{"summary"}}), "graft(sales/_index): set summary"},
		{TendSubject("crm/leads", "insert", 2), "tend(crm/leads): INSERT 2 row(s)"},
		{TendSubject("crm/leads", "DELETE", 0), "tend(crm/leads): DELETE 0 row(s)"},
		{PruneSubject("probes/size-probe"), "prune(probes/size-probe)"},
		{TransplantSubject("crm/acme", "clients/acme"), "transplant(crm/acme -> clients/acme)"},
		{GardenerSyncSubject("docs/q1"), "gardener(sync): docs/q1"},
		{GardenerBackfillSubject("aliases", "docs/q1"), "gardener(sync): aliases docs/q1"},
		{GardenerBackfillSubject("origin", "docs/q1"), "gardener(sync): origin docs/q1"},
		{RecurateSubject("aliases", "docs/q1"), "recurate(aliases): docs/q1"},
		{RangerPromoteSubject("concepts/a", "related-to", "concepts/b", 0.8), "ranger(promote): concepts/a related-to->concepts/b 0.8"},
		{RangerPromoteSubject("concepts/a", "related-to", "concepts/b", 1), "ranger(promote): concepts/a related-to->concepts/b 1"},
		{RangerPruneSubject("concepts/a", "related-to", "concepts/b"), "ranger(prune): concepts/a related-to->concepts/b"},
		{RangerLandmarksSubject, "ranger(landmarks): refresh"},
		{LinkVoteSubject("accept", "concepts/a", "related-to", "concepts/b"), "links(accept): concepts/a related-to->concepts/b"},
		// A title never breaks the subject onto two lines.
		{PlantSubject("a", "Line one\r\nline two\tend", "agent"), "plant(a): Line one line two end [source=agent]"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}

func TestPatchSummary(t *testing.T) {
	for _, tc := range []struct {
		p    PatchSummary
		want string
	}{
		{PatchSummary{}, "noop"},
		{PatchSummary{Set: []string{}}, "noop"},
		{PatchSummary{Set: []string{"title", "aliases", "title"}}, "set aliases,title"},
		{PatchSummary{RemoveLinks: 2}, "-2 links"},
		{PatchSummary{ReplaceBody: true}, "replace body (0 words)"},
		{PatchSummary{ReplaceBodyWords: 9}, "noop"},
		{PatchSummary{
			ReplaceBody: true, ReplaceBodyWords: 120, Replace: []string{"Notes"}, Append: []string{"Log"},
			RemoveLinks: 1, AddLinks: 3, Set: []string{"tags", "confidence"},
		}, "set confidence,tags; +3 links; -1 links; append 'Log'; replace 'Notes'; replace body (120 words)"},
	} {
		assert.Equal(t, tc.want, tc.p.String())
	}
	// String does not reorder the caller's slice.
	set := []string{"tags", "summary"}
	_ = PatchSummary{Set: set}.String()
	assert.Equal(t, []string{"tags", "summary"}, set)
}

func TestParseAction(t *testing.T) {
	for subject, want := range map[string]string{
		"init: forest 'x' (empty A.5 skeleton)": "init",
		"plant(a): T [source=agent]":            "plant",
		"plant(batch): 3 nodes":                 "plant",
		"graft(crm/acme): set summary":          "graft",
		"tend(x): INSERT 1 row(s)":              "tend",
		"prune(x)":                              "prune",
		"transplant(a -> b)":                    "transplant",
		"gardener(sync): aliases x":             "gardener",
		"ranger(landmarks): refresh":            "ranger",
		"recurate(aliases): x":                  "recurate",
		"weird subject":                         "weird subject",
		"fixture: initial forest (~100 nodes)":  "fixture",
		"Merge branch 'x' (by hand)":            "Merge branch 'x' (by hand)",
		"(leading paren)":                       "(leading paren)",
		":leading colon":                        ":leading colon",
		"":                                      "",
		"plain":                                 "plain",
		"tab\there: x":                          "tab\there: x",
		"ünïcode(x): y":                         "ünïcode",
	} {
		assert.Equal(t, want, ParseAction(subject), subject)
	}
}

func TestParsePrincipal(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"plant(a): T [source=agent]\n", ""},
		{"s\n\nstation-principal: alice\n", "alice"},
		{"s\n\nstation-principal: alice\nStation-Principal:  bob  \n", "bob"},
		{"s\n\nSTATION-PRINCIPAL:carol\nJob: j1\n", "carol"},
		{"s\n\nstation-principal: alice\r\n", "alice"},
		{"s\n\n station-principal: indented\n", ""},
		{"s\n\nstation-principals: other-key\n", ""},
		{"s\n\nstation-principal:\n", ""},
	} {
		assert.Equal(t, tc.want, ParsePrincipal(tc.msg), tc.msg)
	}
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "plain", oneLine("plain"))
	assert.Equal(t, "a b", oneLine("a\n\n\nb"))
	assert.Equal(t, "a b", oneLine("a\u2028b"))
	assert.Equal(t, "a\uFFFDb", oneLine("a\xffb"))
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"init: forest 'x' (y)", "plant(a): T", "weird subject", "(", ":", "a(b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, subject string) {
		a := ParseAction(subject)
		if a == subject {
			return
		}
		// A shortened action is a non-empty, space-free prefix ended by ( or :.
		if a == "" || !strings.HasPrefix(subject, a) || strings.ContainsAny(a, " \t\n(:") {
			t.Fatalf("ParseAction(%q) = %q", subject, a)
		}
		if next := subject[len(a)]; next != '(' && next != ':' {
			t.Fatalf("ParseAction(%q) = %q ends before %q", subject, a, next)
		}
	})
}

func FuzzParsePrincipal(f *testing.F) {
	f.Add("s\n\nstation-principal: alice\n", "bob")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, body, who string) {
		// Whatever the body holds, a rendered stamp is what comes back.
		m := Message{Subject: "s", Body: body, Trailers: []Trailer{{PrincipalKey, who}}}
		text, err := m.render()
		if err != nil {
			return
		}
		if got := ParsePrincipal(text); got != strings.TrimSpace(who) {
			t.Fatalf("stamp %q came back as %q from %q", who, got, text)
		}
	})
}

func FuzzSubjectsAreOneLine(f *testing.F) {
	f.Add("id", "Title\nsecond")
	f.Fuzz(func(t *testing.T, id, title string) {
		for _, s := range []string{PlantSubject(id, title, "agent"), InitSubject(title), TransplantSubject(id, title)} {
			if strings.IndexFunc(s, isBreak) >= 0 || !utf8.ValidString(s) {
				t.Fatalf("subject %q is not one valid line", s)
			}
			if _, err := (Message{Subject: s}).render(); err != nil && strings.TrimSpace(s) != "" {
				t.Fatalf("subject %q refused: %v", s, err)
			}
		}
	})
}

func FuzzParseTransplant(f *testing.F) {
	f.Add("a/b", "c/d")
	f.Fuzz(func(t *testing.T, oldID, newID string) {
		o, n, ok := parseTransplant(TransplantSubject(oldID, newID))
		if !ok {
			return
		}
		if strings.TrimSpace(oneLine(oldID)) == o && strings.TrimSpace(oneLine(newID)) == n {
			return
		}
		// Ids holding " -> " themselves are ambiguous; the split is at the first.
		if !strings.Contains(oldID, " -> ") && !strings.Contains(newID, " -> ") &&
			!strings.HasSuffix(oneLine(oldID), " ") && !strings.HasPrefix(oneLine(newID), " ") {
			t.Fatalf("transplant(%q -> %q) parsed as %q, %q", oldID, newID, o, n)
		}
	})
}

func FuzzSubjectOf(f *testing.F) {
	f.Add("plant(a): T\n\nbody\n\nstation-principal: x\n")
	f.Add("two\nline subject\n\nbody")
	f.Fuzz(func(t *testing.T, message string) {
		s := subjectOf(message)
		if strings.Contains(s, "\n") {
			t.Fatalf("subject of %q spans lines: %q", message, s)
		}
		if first, _, _ := strings.Cut(strings.TrimLeft(message, "\n"), "\n"); !strings.HasPrefix(s, first) {
			t.Fatalf("subject %q does not start with the first line %q", s, first)
		}
	})
}
