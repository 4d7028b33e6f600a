// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The commit subjects of spec §4, one function a row. Every argument is
// folded onto one line (control characters become a space), because a
// title with a newline would otherwise split the subject into a body.

// InitSubject: `init: forest '<title>' (empty A.5 skeleton)`.
func InitSubject(title string) string {
	return "init: forest '" + oneLine(title) + "' (empty A.5 skeleton)"
}

// PlantSubject: `plant(<id>): <title> [source=<source>]`. The Gardener's
// adoptions are plants with source "ingest".
func PlantSubject(id, title, source string) string {
	return "plant(" + oneLine(id) + "): " + oneLine(title) + " [source=" + oneLine(source) + "]"
}

// PlantBatchSubject: `plant(batch): <N> nodes` (C.7.4).
func PlantBatchSubject(n int) string {
	return "plant(batch): " + strconv.Itoa(n) + " nodes"
}

// GraftSubject: `graft(<id>): <patch summary>`. A rollup (G.4.4) is a graft
// whose summary is "set summary".
func GraftSubject(id string, p PatchSummary) string {
	return "graft(" + oneLine(id) + "): " + oneLine(p.String())
}

// TendSubject: `tend(<id>): <VERB> <n> row(s)`, the verb upper-cased.
func TendSubject(id, op string, n int) string {
	return fmt.Sprintf("tend(%s): %s %d row(s)", oneLine(id), strings.ToUpper(oneLine(op)), n)
}

// PruneSubject: `prune(<id>)`.
func PruneSubject(id string) string { return "prune(" + oneLine(id) + ")" }

// TransplantSubject: `transplant(<old> -> <new>)`. [Repo.Log] reads it back
// to follow a node across its move.
func TransplantSubject(oldID, newID string) string {
	return "transplant(" + oneLine(oldID) + " -> " + oneLine(newID) + ")"
}

// GardenerSyncSubject: `gardener(sync): <id>`, the Gardener's refresh.
func GardenerSyncSubject(id string) string { return "gardener(sync): " + oneLine(id) }

// GardenerBackfillSubject: `gardener(sync): <field> <id>`, the Gardener's
// backfill of one field ("aliases" or "origin").
func GardenerBackfillSubject(field, id string) string {
	return "gardener(sync): " + oneLine(field) + " " + oneLine(id)
}

// RecurateSubject: `recurate(<what>): <id>`, one per changed node; what is
// "aliases" (v0.61) or "scent" (v0.75, recommended by §12).
func RecurateSubject(what, id string) string {
	return "recurate(" + oneLine(what) + "): " + oneLine(id)
}

// RangerPromoteSubject: `ranger(promote): <id> <rel>-><target> <confidence>`,
// the confidence in its shortest form (0.8, 1).
func RangerPromoteSubject(id, rel, target string, confidence float64) string {
	return "ranger(promote): " + oneLine(id) + " " + oneLine(rel) + "->" + oneLine(target) + " " +
		strconv.FormatFloat(confidence, 'f', -1, 64)
}

// RangerPruneSubject: `ranger(prune): <id> <rel>-><target>`.
func RangerPruneSubject(id, rel, target string) string {
	return "ranger(prune): " + oneLine(id) + " " + oneLine(rel) + "->" + oneLine(target)
}

// LinkVoteSubject: `links(<vote>): <id> <rel>-><target>`, a person's
// vote on a proposed link (H.2.1), vote "accept" or "reject"; the
// subject spec 07 §8 suggests, through the Ranger's rewrite.
func LinkVoteSubject(vote, id, rel, target string) string {
	return "links(" + oneLine(vote) + "): " + oneLine(id) + " " + oneLine(rel) + "->" + oneLine(target)
}

// RangerLandmarksSubject is the Landmarks refresh's subject.
const RangerLandmarksSubject = "ranger(landmarks): refresh"

// PatchSummary describes a graft for its subject (spec §4, C.8).
type PatchSummary struct {
	Set              []string // frontmatter keys set
	AddLinks         int      // add_links entries
	RemoveLinks      int      // remove_links entries
	Append           []string // headers of appended sections
	Replace          []string // headers of replaced sections
	ReplaceBodyWords int      // words of the new body, with ReplaceBody
	ReplaceBody      bool     // the whole body was replaced
}

// String renders the present parts joined by "; " in the order
// `set <keys sorted, comma-joined>`, `+<n> links`, `-<n> links`,
// `append '<header>'`, `replace '<header>'`, `replace body (<w> words)`,
// or "noop" when nothing is present.
func (p PatchSummary) String() string {
	var parts []string
	if len(p.Set) > 0 {
		keys := slices.Compact(slices.Sorted(slices.Values(p.Set)))
		parts = append(parts, "set "+strings.Join(keys, ","))
	}
	if p.AddLinks > 0 {
		parts = append(parts, fmt.Sprintf("+%d links", p.AddLinks))
	}
	if p.RemoveLinks > 0 {
		parts = append(parts, fmt.Sprintf("-%d links", p.RemoveLinks))
	}
	for _, h := range p.Append {
		parts = append(parts, "append '"+h+"'")
	}
	for _, h := range p.Replace {
		parts = append(parts, "replace '"+h+"'")
	}
	if p.ReplaceBody {
		parts = append(parts, fmt.Sprintf("replace body (%d words)", p.ReplaceBodyWords))
	}
	if len(parts) == 0 {
		return "noop"
	}
	return strings.Join(parts, "; ")
}

// oneLine replaces each run of line-breaking or control characters with
// one space, and invalid UTF-8 with U+FFFD, so the result is safe as (part
// of) a subject.
func oneLine(s string) string {
	if strings.IndexFunc(s, isBreak) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	inBreak := false
	for _, r := range s {
		if isBreak(r) {
			if !inBreak {
				b.WriteByte(' ')
			}
			inBreak = true
			continue
		}
		inBreak = false
		b.WriteRune(r)
	}
	return b.String()
}
