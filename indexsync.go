// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/forest"
)

// touchSet collects the existing nodes one write rewrites (holders of
// links, parent indexes), keyed by id, so that two edits of one file — an
// index that is also a link holder — compose instead of overwriting each
// other. Nodes are staged into the txn in first-touch order.
type touchSet struct {
	v     *Vine
	today string
	order []string
	nodes map[string]*forest.Node
}

// newTouchSet starts the touch set of one write of v.
func newTouchSet(v *Vine) *touchSet {
	return &touchSet{v: v, today: v.today(), nodes: map[string]*forest.Node{}}
}

// get returns the set's copy of a catalog-known node, reading it on first
// use. ok is false when the file is gone (a catalog row ahead of a
// hand-deleted file): there is nothing to rewrite then.
func (s *touchSet) get(id string) (n *forest.Node, ok bool, err error) {
	if n, ok := s.nodes[id]; ok {
		return n, true, nil
	}
	n, err = s.v.readNode(id)
	if err != nil {
		if isNotExist(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	s.nodes[id] = n
	s.order = append(s.order, id)
	return n, true, nil
}

// put adds a node the write creates or replaces wholesale.
func (s *touchSet) put(n *forest.Node) {
	if _, ok := s.nodes[n.ID]; !ok {
		s.order = append(s.order, n.ID)
	}
	s.nodes[n.ID] = n
}

// ids lists the touched nodes in first-touch order.
func (s *touchSet) ids() []string { return slices.Clone(s.order) }

// stage hands every touched node to the txn.
func (s *touchSet) stage(t *txn) error {
	for _, id := range s.order {
		if err := t.put(s.nodes[id]); err != nil {
			return err
		}
	}
	return nil
}

// dropEntry removes id's entry line from its parent index and re-renders
// the index (the plant indexer in reverse). A parent without an entry for
// id, or without a file, is left alone.
func (s *touchSet) dropEntry(id string) error {
	parent := forest.ParentIndex(id)
	if parent == "" {
		return nil
	}
	_, already := s.nodes[parent]
	idx, ok, err := s.get(parent)
	if err != nil || !ok {
		return err
	}
	body, removed := forest.RemoveEntry(idx.Body, id)
	if !removed {
		if !already {
			s.forget(parent)
		}
		return nil
	}
	idx.Body = body
	rerenderIndex(idx, s.today)
	return nil
}

// addEntry lists a leaf in its parent index under Direct bananas and
// re-renders the index, as plant does.
func (s *touchSet) addEntry(id, summary string) error {
	idx, ok, err := s.get(forest.ParentIndex(id))
	if err != nil {
		return err
	}
	if !ok {
		return notFound(forest.ParentIndex(id))
	}
	idx.Body = forest.SetEntry(idx.Body, forest.SectionDirect, id, forest.EntryLine(id, summary))
	rerenderIndex(idx, s.today)
	return nil
}

// retargetLinks rewrites, in n, every link whose target is from: to "to"
// when to is not empty, otherwise the link is dropped. It returns how many
// links it changed; a retarget that duplicates an existing (rel, target)
// pair keeps the first, since a pair is a link's identity.
func retargetLinks(n *forest.Node, from, to string) int {
	v, _ := n.Front.Get("links")
	items, _ := v.([]any)
	changed := 0
	kept := make([]any, 0, len(items))
	for _, it := range items {
		m, ok := it.(*forest.Frontmatter)
		if !ok || m.String("target") != from {
			kept = append(kept, it)
			continue
		}
		changed++
		if to != "" {
			m.Set("target", to)
			kept = append(kept, m)
		}
	}
	if changed == 0 {
		return 0
	}
	kept = dedupeLinks(kept)
	if len(kept) == 0 {
		n.Front.Delete("links")
	} else {
		n.Front.Set("links", kept)
	}
	return changed
}

// dedupeLinks keeps the first entry of each (rel, target) pair.
func dedupeLinks(items []any) []any {
	type pair struct{ rel, target string }
	seen := map[pair]bool{}
	out := items[:0]
	for _, it := range items {
		if m, ok := it.(*forest.Frontmatter); ok {
			p := pair{m.String("rel"), m.String("target")}
			if seen[p] {
				continue
			}
			seen[p] = true
		}
		out = append(out, it)
	}
	return out
}

// entryPrefixRe reads the link part of an index entry line, "- [[id]]" or
// "- [[id|text]]" (A.5).
var entryPrefixRe = regexp.MustCompile(`^- \[\[([^\]|]*)(\|[^\]]*)?\]\]`)

// coverageSuffixRe is a sub-branch entry's trailing coverage (A.5, v0.13).
var coverageSuffixRe = regexp.MustCompile(` \d+ bananas?, \d+ sub-branch(?:es)?\.?$`)

// syncEntrySummary puts summary, verbatim, into the first entry line for
// id in body (C.8, A.5). The line keeps its link part as written; a branch
// entry that carried a coverage suffix keeps one, refreshed to the branch's
// current coverage when that parses. It reports whether the body changed.
func syncEntrySummary(body, id, summary, coverage string) (string, bool) {
	var b strings.Builder
	rest := body
	for rest != "" {
		line, tail, hasNL := strings.Cut(rest, "\n")
		text := strings.TrimRight(line, "\r")
		if m := entryPrefixRe.FindStringSubmatch(text); m != nil && m[1] == id {
			next := entryWithSummary(text, m[0], id, summary, coverage)
			if next == text {
				return body, false
			}
			b.WriteString(next)
			b.WriteString(line[len(text):])
			if hasNL {
				b.WriteByte('\n')
			}
			b.WriteString(tail)
			return b.String(), true
		}
		b.WriteString(line)
		if hasNL {
			b.WriteByte('\n')
		}
		rest = tail
	}
	return body, false
}

// entryWithSummary renders the new text of one entry line.
func entryWithSummary(line, link, id, summary, coverage string) string {
	next := link + strings.TrimPrefix(forest.EntryLine(id, summary), "- [["+id+"]]")
	if !forest.IsIndex(id) {
		return next
	}
	old := coverageSuffixRe.FindString(line)
	if old == "" {
		return next
	}
	if notes, subs, ok := forest.ParseCoverage(coverage); ok {
		return next + " " + forest.FormatCoverage(notes, subs) + "."
	}
	return next + old
}

// propagateSummary writes n's summary into every branch index holding an
// entry line for n (first match per index) and re-renders each index it
// changed, all through the touch set so they land in the write's commit.
func (s *touchSet) propagateSummary(ctx context.Context, n *forest.Node) error {
	// Every branch index the catalog knows may hold an entry line for n.
	ids, err := s.v.cat.Branches(ctx, "")
	if err != nil {
		return err
	}
	if p := forest.ParentIndex(n.ID); p != "" && !slices.Contains(ids, p) {
		ids = append(ids, p) // a parent not indexed yet still gets its entry
	}
	for _, id := range ids {
		if id == n.ID {
			continue
		}
		if err := s.syncIndex(id, n); err != nil {
			return err
		}
	}
	return nil
}

func (s *touchSet) syncIndex(indexID string, n *forest.Node) error {
	_, already := s.nodes[indexID]
	if !already && !s.mentionsEntry(indexID, n.ID) {
		return nil // most indexes never list the node: skip parsing them
	}
	idx, ok, err := s.get(indexID)
	if err != nil || !ok {
		return err
	}
	body, changed := syncEntrySummary(idx.Body, n.ID, n.Summary(), n.Coverage())
	if !changed {
		if !already {
			s.forget(indexID)
		}
		return nil
	}
	idx.Body = body
	rerenderIndex(idx, s.today)
	return nil
}

// mentionsEntry is a cheap byte scan of an index file for an entry line
// that could be id's; true when the file cannot be read, so the parse
// decides.
func (s *touchSet) mentionsEntry(indexID, id string) bool {
	p, err := s.v.root.TrustedPath(indexID)
	if err != nil {
		return true
	}
	data, err := forest.ReadFile(p)
	if err != nil {
		return !isNotExist(err)
	}
	return bytes.Contains(data, []byte("- [["+id+"]]")) || bytes.Contains(data, []byte("- [["+id+"|"))
}

// forget drops a node read only to be inspected, so it is not rewritten.
func (s *touchSet) forget(id string) {
	delete(s.nodes, id)
	if i := slices.Index(s.order, id); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
}

func isNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }
