// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// salesOnly is the visibility of a key allowed "sales/" but denied
// "sales/secret/": people/x and sales/secret/plan are hidden.
func salesOnly(ref string) bool {
	return !strings.HasPrefix(ref, "sales/") || strings.HasPrefix(ref, "sales/secret/")
}

func TestRedactSubject(t *testing.T) {
	const (
		hid  = "people/x"
		hid2 = "sales/secret/plan"
		vis  = "sales/x"
		vis2 = "sales/y"
	)
	tags := PatchSummary{Set: []string{"tags"}}
	for _, tc := range []struct{ name, subject, want string }{
		{"init", InitSubject("Acme"), "init: forest 'Acme' (empty A.5 skeleton)"},
		{"init title naming a hidden id", InitSubject("Acme " + hid), "init: forest 'Acme <hidden>' (empty A.5 skeleton)"},
		{"plant batch", PlantBatchSubject(3), "plant(batch): 3 nodes"},
		{"plant visible", PlantSubject(vis, "Q1 plan", "agent"), "plant(sales/x): Q1 plan [source=agent]"},
		{"plant hidden drops its title", PlantSubject(hid, "Salaries 2026", "manual"), "plant(<hidden>): <hidden> [source=manual]"},
		{"plant denied", PlantSubject(hid2, "Plan", "ingest"), "plant(<hidden>): <hidden> [source=ingest]"},
		{"plant title naming a hidden id", PlantSubject(vis, "Copy of "+hid+".", "agent"), "plant(sales/x): Copy of <hidden>. [source=agent]"},
		{"plant title wikilink", PlantSubject(vis, "See [["+hid2+"|plan]]", "agent"), "plant(sales/x): See [[<hidden>|plan]] [source=agent]"},
		{"plant title naming a visible id", PlantSubject(vis, "After "+vis2, "agent"), "plant(sales/x): After sales/y [source=agent]"},
		{"plant title with the separators", PlantSubject(vis, "Q1 (draft): plan [source=x]", "agent"),
			"plant(sales/x): Q1 (draft): plan [source=x] [source=agent]"},
		{"graft visible", GraftSubject(vis, tags), "graft(sales/x): set tags"},
		{"graft hidden drops its summary", GraftSubject(hid, PatchSummary{Append: []string{"Pay"}}), "graft(<hidden>): <hidden>"},
		{"graft header naming a hidden id", GraftSubject(vis, PatchSummary{Append: []string{hid}}), "graft(sales/x): append '<hidden>'"},
		{"tend visible", TendSubject(vis, "insert", 2), "tend(sales/x): INSERT 2 row(s)"},
		{"tend hidden", TendSubject(hid2, "delete", 1), "tend(<hidden>): DELETE 1 row(s)"},
		{"prune visible", PruneSubject(vis), "prune(sales/x)"},
		{"prune hidden", PruneSubject(hid), "prune(<hidden>)"},
		{"transplant visible", TransplantSubject(vis, vis2), "transplant(sales/x -> sales/y)"},
		{"transplant in from hidden", TransplantSubject(hid, vis), "transplant(<hidden> -> sales/x)"},
		{"transplant out to hidden", TransplantSubject(vis, hid2), "transplant(sales/x -> <hidden>)"},
		{"transplant both hidden", TransplantSubject(hid, hid2), "transplant(<hidden> -> <hidden>)"},
		{"gardener sync visible", GardenerSyncSubject(vis), "gardener(sync): sales/x"},
		{"gardener sync hidden", GardenerSyncSubject(hid), "gardener(sync): <hidden>"},
		{"gardener backfill visible", GardenerBackfillSubject("aliases", vis), "gardener(sync): aliases sales/x"},
		{"gardener backfill hidden", GardenerBackfillSubject("origin", hid), "gardener(sync): origin <hidden>"},
		{"recurate visible", RecurateSubject("aliases", vis), "recurate(aliases): sales/x"},
		{"recurate hidden", RecurateSubject("scent", hid2), "recurate(scent): <hidden>"},
		{"ranger promote visible", RangerPromoteSubject(vis, "related-to", vis2, 0.8), "ranger(promote): sales/x related-to->sales/y 0.8"},
		{"ranger promote to hidden", RangerPromoteSubject(vis, "author", hid, 1), "ranger(promote): sales/x author-><hidden> 1"},
		{"ranger promote from hidden", RangerPromoteSubject(hid2, "part-of", vis, 0.5), "ranger(promote): <hidden> part-of->sales/x 0.5"},
		{"ranger prune visible", RangerPruneSubject(vis, "related-to", vis2), "ranger(prune): sales/x related-to->sales/y"},
		{"ranger prune to hidden", RangerPruneSubject(vis, "related-to", hid), "ranger(prune): sales/x related-to-><hidden>"},
		{"ranger landmarks", RangerLandmarksSubject, "ranger(landmarks): refresh"},
		{"link vote visible", LinkVoteSubject("accept", vis, "related-to", vis2), "links(accept): sales/x related-to->sales/y"},
		{"link vote to hidden", LinkVoteSubject("reject", vis, "related-to", hid), "links(reject): sales/x related-to-><hidden>"},
		{"ids with digits and marks", TransplantSubject("people/2026_q1-x/a", "sales/2026_q1-x/a"), "transplant(<hidden> -> sales/2026_q1-x/a)"},
		{"hand commit", "Move " + hid + " to " + vis + " by hand", "Move <hidden> to sales/x by hand"},
		{"hand merge", "Merge branch '" + hid2 + "'", "Merge branch '<hidden>'"},
		{"hand commit shaped like an action", hid + "(x): y", "<hidden>(x): y"},
		// Ids holding a shape's separators: every reading is weighed.
		{"hidden id holding the plant separator", PlantSubject(hid+"): b", "T", "agent"), "plant(<hidden>): <hidden> [source=agent]"},
		{"visible id holding the transplant arrow", TransplantSubject(vis+" -> "+vis2, "sales/z"), "transplant(sales/x -> sales/y -> sales/z)"},
		{"arrow hiding a hidden id", TransplantSubject(vis, hid+" -> sales/z"), "transplant(<hidden> -> <hidden>)"},
		{"arrow splitting a hidden id", TransplantSubject(vis+" -> "+hid, vis2), "transplant(<hidden> -> <hidden>)"},
		{"ranger id with a space", RangerPruneSubject(hid+" b", "related-to", vis), "ranger(prune): <hidden> related-to->sales/x"},
		{"ranger target with an arrow", RangerPromoteSubject(vis+" b->"+vis2, "author", hid, 0.5), "ranger(promote): <hidden> <hidden>-><hidden> 0.5"},
		{"too many readings", TransplantSubject(vis, strings.Repeat(vis2+" -> ", 20)+vis2), "transplant(<hidden> -> <hidden>)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RedactSubject(tc.subject, salesOnly)
			assert.Equal(t, tc.want, got)
			for _, h := range []string{"people/", "secret"} {
				assert.NotContains(t, got, h)
			}
			if !strings.Contains(tc.name, "too many") {
				assert.Equal(t, tc.subject, RedactSubject(tc.subject, func(string) bool { return false }),
					"nothing hidden: the subject is verbatim")
			}
		})
	}
}

// TestEverySubjectWriterHasAShape keeps subjectShapes in step with
// subjects.go: a writer without a shape would fall back to word scrubbing,
// which cannot tell a hidden node's title from prose.
func TestEverySubjectWriterHasAShape(t *testing.T) {
	for _, subject := range []string{
		InitSubject("A"), PlantSubject("a/b", "T", "agent"), PlantBatchSubject(2),
		GraftSubject("a/b", PatchSummary{}), TendSubject("a/b", "update", 1), PruneSubject("a/b"),
		TransplantSubject("a/b", "c/d"), GardenerSyncSubject("a/b"), GardenerBackfillSubject("aliases", "a/b"),
		RecurateSubject("aliases", "a/b"), RangerPromoteSubject("a/b", "author", "c/d", 0.9),
		RangerPruneSubject("a/b", "author", "c/d"), RangerLandmarksSubject,
		LinkVoteSubject("accept", "a/b", "related-to", "c/d"), LinkVoteSubject("reject", "a/b", "related-to", "c/d"),
	} {
		sh, readings, complete := firstShape(subject)
		assert.NotNil(t, sh, subject)
		assert.True(t, complete, subject)
		assert.Len(t, readings, 1, subject)
	}
}

// hiddenMark is in every hidden id the fuzz target makes and in nothing
// else it writes, so "no hidden id in the output" is "no mark in it".
const hiddenMark = "~"

func FuzzRedactSubject(f *testing.F) {
	f.Add(uint8(6), "x", "y", "Title", true, false)
	f.Add(uint8(2), "a): b", "c", "Q1 (draft): plan [source=x]", true, true)
	f.Add(uint8(10), "a b->c", "d", "", false, true)
	f.Add(uint8(6+128), "a -> b", "c -> d", "see", false, false)
	f.Add(uint8(13), "Move people/x", "to sales/x", "t", true, true)
	f.Fuzz(func(t *testing.T, kind uint8, a, b, title string, hideA, hideB bool) {
		a, b, title = clean(a), clean(b), clean(title)
		idA, idB := fuzzID(a, hideA), fuzzID(b, hideB)
		inject := kind&128 != 0
		if inject {
			title += " " + fuzzID(b, true) + " end"
		}
		subject := fuzzSubject(kind&127, idA, idB, a, title)
		_, readings, complete := firstShape(subject)
		if complete && RedactSubject(subject, func(string) bool { return false }) != subject {
			t.Fatalf("subject not read back verbatim: %q", subject)
		}
		if kind%14 == 13 {
			return // a raw subject may claim a visible id that holds the mark
		}
		got := RedactSubject(subject, fuzzHidden)
		plain := !strings.Contains(subject, hiddenMark) && !strings.Contains(title, "/")
		if plain && complete && len(readings) == 1 && got != subject {
			t.Fatalf("visible subject changed:\n%q\n%q", subject, got)
		}
		for _, h := range []string{idA, idB} {
			if fuzzHidden(h) && strings.Contains(got, h) {
				t.Fatalf("hidden id %q in %q (from %q)", h, got, subject)
			}
		}
		if strings.Contains(got, hiddenMark) {
			t.Fatalf("hidden text in %q (from %q)", got, subject)
		}
	})
}

// clean keeps the mark out of fuzzed text.
func clean(s string) string { return strings.ReplaceAll(s, hiddenMark, "") }

// fuzzID is a visible id under sales/, or a hidden one: outside the
// grant, or under the denied sales/~s/.
func fuzzID(name string, hide bool) string {
	switch {
	case !hide:
		return "sales/" + name
	case len(name)%2 == 0:
		return hiddenMark + "h/" + name
	}
	return "sales/" + hiddenMark + "s/" + name
}

// fuzzHidden is the grant of fuzzID: sales/ allowed, sales/~s/ denied.
func fuzzHidden(ref string) bool {
	return !strings.HasPrefix(ref, "sales/") || strings.HasPrefix(ref, "sales/"+hiddenMark+"s/")
}

// fuzzSubject is the subject writer picked by kind, or raw text.
func fuzzSubject(kind uint8, idA, idB, a, title string) string {
	switch kind % 14 {
	case 0:
		return InitSubject(title)
	case 1:
		return PlantBatchSubject(len(a))
	case 2:
		return PlantSubject(idA, title, "agent")
	case 3:
		return GraftSubject(idA, PatchSummary{Append: []string{title}, AddLinks: len(a)})
	case 4:
		return TendSubject(idA, "insert", len(a))
	case 5:
		return PruneSubject(idA)
	case 6:
		return TransplantSubject(idA, idB)
	case 7:
		return GardenerSyncSubject(idA)
	case 8:
		return GardenerBackfillSubject("origin", idA)
	case 9:
		return RecurateSubject("aliases", idA)
	case 10:
		return RangerPromoteSubject(idA, "related-to", idB, float64(len(a))/8)
	case 11:
		return RangerPruneSubject(idA, "author", idB)
	case 12:
		return RangerLandmarksSubject
	}
	return a + " " + title
}

// firstShape is the shape RedactSubject reads subject with, if any.
func firstShape(subject string) (sh shape, readings [][]string, complete bool) {
	for _, sh := range subjectShapes {
		readings, complete := sh.readings(subject)
		if len(readings) > 0 || !complete {
			return sh, readings, complete
		}
	}
	return nil, nil, true
}
