// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// Joining two sides' edits of one branch index.
//
// A plant rewrites its branch's index: an entry line for the new node,
// the coverage count and the updated date. So two forests that each
// planted a different node under one branch both changed that index, and
// a per-path merge would refuse the pull although no node conflicts. The
// index is derived from its children, so a pull joins it entry by entry:
// each side's added, changed and removed entry lines (keyed by the id
// they name) are applied to the other's, the coverage is counted again
// and updated is the later of the two dates. Anything else both sides
// changed differently (the title, the summary, prose, another field, one
// entry edited two ways) is still a conflict for a person to settle.

// resolveIndexes is the gitops.Resolver of a pull: branch indexes only.
func resolveIndexes(p string, base, ours, theirs []byte) ([]byte, bool) {
	if path.Base(p) != "_index.md" {
		return nil, false
	}
	return mergeBranchIndex(strings.TrimSuffix(p, ".md"), base, ours, theirs)
}

var _ gitops.Resolver = resolveIndexes

// indexSections are the sections whose lines are entries.
var indexSections = []string{forest.SectionSubBranches, forest.SectionDirect}

// indexEntry is one entry line and the section it sits in.
type indexEntry struct{ section, line string }

// mergeBranchIndex joins ours and theirs against base (nil when both
// sides created the index).
func mergeBranchIndex(id string, base, ours, theirs []byte) ([]byte, bool) {
	o, err := forest.Parse(id, ours)
	if err != nil {
		return nil, false
	}
	t, err := forest.Parse(id, theirs)
	if err != nil {
		return nil, false
	}
	b := &forest.Node{ID: id, Front: forest.NewFrontmatter(), Body: ""}
	if base != nil {
		if b, err = forest.Parse(id, base); err != nil {
			return nil, false
		}
	}
	// Start from the side whose non-entry part changed (ours when neither
	// or both changed it the same way), and bring the other side's entry
	// edits onto it.
	so, st, sb := indexSkeleton(o), indexSkeleton(t), indexSkeleton(b)
	start, other := o, t
	switch {
	case bytes.Equal(so, st), bytes.Equal(st, sb):
	case bytes.Equal(so, sb):
		start, other = t, o
	default:
		return nil, false
	}
	body, ok := applyEntryEdits(start.Body, indexEntries(b), indexEntries(start), indexEntries(other))
	if !ok {
		return nil, false
	}
	merged := &forest.Node{ID: id, Front: start.Front.Clone(), Body: body}
	merged.Front.Set("coverage", forest.FormatCoverage(forest.CountCoverage(body)))
	merged.Front.Set("updated", max(o.Front.String("updated"), t.Front.String("updated")))
	return merged.Bytes(), true
}

// applyEntryEdits applies to body (whose entries are mine) what other
// changed against base. An entry both changed differently fails.
func applyEntryEdits(body string, base, mine, other map[string]indexEntry) (string, bool) {
	ids := slices.Sorted(maps.Keys(base))
	ids = append(ids, slices.Sorted(maps.Keys(other))...)
	slices.Sort(ids) // new entries land in id order: the same bytes every time
	for _, id := range slices.Compact(ids) {
		b, bOK := base[id]
		o, oOK := other[id]
		if bOK == oOK && b == o {
			continue // other left it alone
		}
		m, mOK := mine[id]
		switch {
		case mOK == oOK && m == o: // both made the same edit
		case mOK != bOK || m != b: // mine edited it too, differently
			return "", false
		case !oOK:
			body, _ = forest.RemoveEntry(body, id)
		default:
			body = forest.SetEntry(body, o.section, id, o.line)
		}
	}
	return body, true
}

// indexEntries maps the ids of n's entry lines to their lines.
func indexEntries(n *forest.Node) map[string]indexEntry {
	out := map[string]indexEntry{}
	for _, sec := range indexSections {
		for _, line := range forest.SectionLines(n.Body, sec) {
			if id, ok := forest.EntryID(line); ok {
				out[id] = indexEntry{section: sec, line: line}
			}
		}
	}
	return out
}

// indexSkeleton is n without its entry lines, coverage and updated date:
// what of an index a plant never touches.
func indexSkeleton(n *forest.Node) []byte {
	body := n.Body
	for id := range indexEntries(n) {
		body, _ = forest.RemoveEntry(body, id)
	}
	s := &forest.Node{ID: n.ID, Front: n.Front.Clone(), Body: body}
	s.Front.Delete("coverage")
	s.Front.Delete("updated")
	return s.Bytes()
}
