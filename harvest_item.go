// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/monkeyllm/vine/forest"
)

// buildItems assembles the seats side by side, each from its own reads;
// the items keep the seats' order. The first is built on the caller's
// goroutine, whose stack is grown already (see runLegs).
func buildItems(ctx context.Context, r HarvestReader, seats []*harvestCandidate, searchTerms []string) []HarvestItem {
	items := make([]HarvestItem, len(seats))
	var wg sync.WaitGroup
	for i, c := range seats[min(1, len(seats)):] {
		wg.Go(func() { items[i+1] = buildItem(ctx, r, c, searchTerms) })
	}
	if len(seats) > 0 {
		items[0] = buildItem(ctx, r, seats[0], searchTerms)
	}
	wg.Wait()
	return items
}

// buildItem assembles one seat: metadata from the locate hit (else the
// sniff hit and the catalog row), refined matches, content, notes.
func buildItem(ctx context.Context, r HarvestReader, c *harvestCandidate, searchTerms []string) HarvestItem {
	it := HarvestItem{ID: c.id, Score: round4(c.score), Created: c.rec.Created, Updated: c.rec.Updated,
		Matches: []SniffMatch{}, Content: []HarvestBlock{}}
	switch {
	case c.loc != nil:
		it.Title, it.Type, it.Trail, it.Summary, it.BodyTokens = c.loc.Title, c.loc.Type, c.loc.Trail, c.loc.Summary, c.loc.BodyTokens
	case c.sniff != nil:
		it.Title, it.Type, it.Trail, it.BodyTokens = c.sniff.Title, c.sniff.Type, c.sniff.Trail, c.sniff.BodyTokens
		it.Summary = c.rec.Summary
	}
	if it.Trail == nil {
		it.Trail = []string{}
	}
	if c.loc != nil {
		it.FoundBy = append(it.FoundBy, "locate")
	}
	node := readsOf(ctx, r, c)
	if c.sniff != nil {
		it.FoundBy = append(it.FoundBy, "sniff")
		it.Matches = refineMatches(ctx, node, c, searchTerms)
	}
	it.Content = itemContent(ctx, node, c, it.Matches)
	if it.Type == "dataset" || it.Type == "media" {
		if notes, err := r.Notes(ctx, c.id); err == nil {
			it.Notes = notes
		}
	}
	return it
}

// refine re-reads a sniff-found, non-index item one term at a time, rarest
// term first, so a rare exact term is not drowned by common ones under
// sniff's three-per-node cap (C.6c rule 2). Index items keep their global
// matches: scoping sniff to an index would search its whole subtree.
func refineMatches(ctx context.Context, node nodeReads, c *harvestCandidate, searchTerms []string) []SniffMatch {
	global := c.sniff.Matches
	if forest.IsIndex(c.id) || len(searchTerms) == 0 {
		return nonNilMatches(global)
	}
	var hits []SniffHit
	if each, err := node.SniffEach(ctx, searchTerms); err == nil {
		for _, h := range each {
			if h.MatchCount > 0 {
				hits = append(hits, h)
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b SniffHit) int { return a.MatchCount - b.MatchCount })
	type key struct {
		section string
		line    int
	}
	seen := map[key]bool{}
	var out []SniffMatch
	for _, h := range hits {
		for _, m := range h.Matches {
			k := key{line: m.Line}
			if m.Section != nil {
				k.section = *m.Section
			}
			if seen[k] || len(out) == HarvestMaxMatches {
				continue
			}
			seen[k] = true
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nonNilMatches(global)
	}
	return out
}

// content serves the body whole when it is small, else up to two matched
// sections whole, else the outline with a hint. Bodies are never sliced.
func itemContent(ctx context.Context, node nodeReads, c *harvestCandidate, matches []SniffMatch) []HarvestBlock {
	whole, err := node.Pick(ctx, PickOptions{})
	if err != nil {
		return []HarvestBlock{}
	}
	if whole.Shape == ContentBody && !whole.Truncated && whole.BodyTokens <= HarvestWholeBodyTokens {
		return []HarvestBlock{{Body: &whole.Body, BodyTokens: whole.BodyTokens}}
	}
	var blocks []HarvestBlock
	var sections []string
	for _, m := range matches {
		if m.Section != nil && !slices.Contains(sections, *m.Section) && len(sections) < HarvestMaxSections {
			sections = append(sections, *m.Section)
		}
	}
	for _, s := range sections {
		sec, err := node.Pick(ctx, PickOptions{Section: s})
		if err != nil || sec.Cut {
			continue
		}
		name := s
		blocks = append(blocks, HarvestBlock{Section: &name, Body: &sec.Body, BodyTokens: sec.BodyTokens})
	}
	if len(blocks) > 0 {
		return blocks
	}
	if !c.found {
		return []HarvestBlock{}
	}
	rec := c.rec
	return []HarvestBlock{{Outline: nonNilStrings(rec.Outline), BodyTokens: rec.BodyTokens,
		Hint: fmt.Sprintf("The body is %d tokens; read one part with pick(id, section=<header from outline>) "+
			"or page it with pick(id, after=\"\").", rec.BodyTokens)}}
}

// annotate marks time order and replacement among the selected items:
// every catalog edge of rel succeeds or supersedes with both ends
// selected gives its source supersedes and its target superseded_by.
// A selected item that a live node supersedes lists that node too, even
// when it is not selected. Both read the items' in-edges, which seating
// has mostly read already.
func annotateSupersession(ctx context.Context, r HarvestReader, seats []*harvestCandidate, items []HarvestItem, includeSuperseded bool) error {
	index := map[string]int{}
	for i, it := range items {
		index[it.ID] = i
	}
	add := func(list *[]string, id string) {
		if !slices.Contains(*list, id) {
			*list = append(*list, id)
			slices.Sort(*list)
		}
	}
	for j, c := range seats {
		in, err := c.inEdges(ctx, r)
		if err != nil {
			return err
		}
		for _, e := range in {
			if e.Rel != "succeeds" && e.Rel != "supersedes" {
				continue
			}
			if i, ok := index[e.Src]; ok {
				add(&items[i].Supersedes, items[j].ID)
				add(&items[j].SupersededBy, e.Src)
			}
			if includeSuperseded && e.Rel == "supersedes" {
				add(&items[j].SupersededBy, e.Src)
			}
		}
	}
	return nil
}

// windowFacts echoes the window of the legs: undated_excluded is the
// larger of the two.
func (l *harvestLegs) windowFacts(res *HarvestResult) {
	res.Window = l.loc.Window
	res.UndatedExcluded = l.loc.UndatedExcluded
	if l.sniff != nil && l.sniff.UndatedExcluded > res.UndatedExcluded {
		res.UndatedExcluded = l.sniff.UndatedExcluded
	}
}

// emptyFacts explains an empty sweep without naming forest content: the
// locate leg's count of searched nodes (else sniff's), and for a window
// the locate leg's window-aware hint.
func (l *harvestLegs) emptyFacts(res *HarvestResult) {
	switch {
	case l.loc.Searched != nil:
		res.Searched = l.loc.Searched
	case l.sniff != nil:
		n := l.sniff.ScannedNodes
		res.Searched = &n
	default:
		n := 0
		res.Searched = &n
	}
	res.Hint = harvestEmptyHint
	if res.Window != nil && l.loc.MatchedWindow != nil {
		res.MatchedWindow = l.loc.MatchedWindow
		res.Hint = l.loc.Hint
	}
}

func nonNilMatches(m []SniffMatch) []SniffMatch {
	if m == nil {
		return []SniffMatch{}
	}
	return m
}

func round4(f float64) float64 {
	const scale = 1e4
	if f < 0 {
		return -round4(-f)
	}
	return float64(int64(f*scale+0.5)) / scale
}
