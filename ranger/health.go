// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/trails"
)

// Health is the read-only health report (H.3). The first seven fields are
// the specification's; the rest break the lint counts down into the nodes
// an operator has to visit, and report the writer lock. Lists are sorted
// ids and never null.
type Health struct {
	// NeedsSplit: branches with more than split_entries "- [[" lines, or
	// a body over split_tokens estimated tokens.
	NeedsSplit []string `json:"needs_split"`
	// FatNodes: nodes with more than fat_degree catalog edges (in + out).
	FatNodes []string `json:"fat_nodes"`
	// Lint: the validate engine's counts.
	Lint Lint `json:"lint"`
	// StalePassports: source_path no longer under the gardener's
	// source_root; empty when _meta/gardener.yaml names no source_root.
	StalePassports []string `json:"stale_passports"`
	// NeedsDescription: media nodes still carrying the stub sentence.
	NeedsDescription []string `json:"needs_description"`
	// UncertainLinks counts managed links per confidence ("0.3": 4).
	UncertainLinks map[string]int `json:"uncertain_links"`
	// Heat summarizes persistent heat.
	Heat trails.HeatStats `json:"heat"`

	// BrokenWikilinks: body wikilinks naming no node.
	BrokenWikilinks []Wikilink `json:"broken_wikilinks"`
	// Orphans: nodes their parent index does not list, so navigation
	// never reaches them (or whose parent index is missing).
	Orphans []string `json:"orphans"`
	// MissingPayloads: local payloads absent, or outside the forest.
	MissingPayloads []string `json:"missing_payloads"`
	// PayloadDrift: local payloads whose bytes no longer match
	// payload_hash.
	PayloadDrift []string `json:"payload_drift"`
	// ChangedSources: source files still present whose bytes no longer
	// match source_hash (a sync would refresh them).
	ChangedSources []string `json:"changed_sources"`
	// Landmarks: the nodes the master index lists under Landmarks, in
	// its order (RefreshLandmarks writes them).
	Landmarks []string `json:"landmarks"`
	// Lock is the writer lock's state, probed without taking it.
	Lock forest.LockProbe `json:"lock"`
}

// Lint counts validate's findings by level.
type Lint struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Wikilink is one body wikilink: the node holding it and the id it names.
type Wikilink struct {
	ID     string `json:"id"`
	Target string `json:"target"`
}

// Health reports what needs an operator's attention (H.3). It is
// read-only: no file, heat, trace or commit is written, so it serves a
// read-only Vine and may run beside the writer. _meta is not walked.
func (r *Ranger) Health(ctx context.Context) (*Health, error) {
	w := &healthWalk{r: r, h: newHealth(), src: sourceRootOf(r.v.Dir()),
		ids: map[string]bool{}, indexes: map[string]string{}}
	if err := w.walk(ctx); err != nil {
		return nil, err
	}
	if err := w.finish(ctx); err != nil {
		return nil, err
	}
	h := w.h
	rep, err := r.v.Validate(ctx)
	if err != nil {
		return nil, err
	}
	h.Lint = Lint{Errors: rep.Errors, Warnings: rep.Warnings}
	if h.Heat, err = r.v.Trails().Stats(ctx); err != nil {
		return nil, err
	}
	if h.Lock, err = forest.ProbeLock(r.v.Dir()); err != nil {
		return nil, err
	}
	h.sort()
	return h, nil
}

func newHealth() *Health {
	return &Health{NeedsSplit: []string{}, FatNodes: []string{}, StalePassports: []string{},
		NeedsDescription: []string{}, UncertainLinks: map[string]int{}, BrokenWikilinks: []Wikilink{},
		Orphans: []string{}, MissingPayloads: []string{}, PayloadDrift: []string{}, ChangedSources: []string{},
		Landmarks: []string{}}
}

func (h *Health) sort() {
	for _, l := range [][]string{h.NeedsSplit, h.FatNodes, h.StalePassports, h.NeedsDescription,
		h.Orphans, h.MissingPayloads, h.PayloadDrift, h.ChangedSources} {
		slices.Sort(l)
	}
	slices.SortFunc(h.BrokenWikilinks, func(a, b Wikilink) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.Target, b.Target))
	})
	h.BrokenWikilinks = slices.Compact(h.BrokenWikilinks)
}

// healthWalk is one pass over the node files. Checks that need the whole
// forest (wikilink targets, parent listings, degrees) keep what they need
// per node and are settled in finish, so bodies are not held in memory.
type healthWalk struct {
	r       *Ranger
	h       *Health
	root    forest.Root
	src     string            // the gardener's source_root, "" when unset
	ids     map[string]bool   // every node file, _meta included
	indexes map[string]string // branch id -> body, for the orphan check
	links   []Wikilink        // every body wikilink of a non-_meta node
	nodes   []string          // non-_meta ids, for orphans and degrees
}

func (w *healthWalk) walk(ctx context.Context) error {
	root, err := forest.NewRoot(w.r.v.Dir())
	if err != nil {
		return err
	}
	w.root = root
	done := 0
	_, err = root.Walk(func(id, p string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		w.ids[id] = true
		done++
		w.r.progress(vine.Progress{Op: "ranger health", Done: done})
		if forest.IsSystem(id) {
			return nil
		}
		w.nodes = append(w.nodes, id)
		if n, ok := readNode(id, p); ok {
			w.node(n)
		}
		return nil
	})
	return err
}

// node runs the checks that need one node only.
func (w *healthWalk) node(n *forest.Node) {
	h := w.h
	if n.IsBranch() || forest.IsIndex(n.ID) {
		w.indexes[n.ID] = n.Body
		if entryCount(n.Body) > w.r.cfg.SplitEntries || budget.EstimateTokens(n.Body) > w.r.cfg.SplitTokens {
			h.NeedsSplit = append(h.NeedsSplit, n.ID)
		}
	}
	if n.Type() == "media" && strings.Contains(n.Body, gardener.MediaStubSentinel) {
		h.NeedsDescription = append(h.NeedsDescription, n.ID)
	}
	for _, l := range n.Links() {
		if c, ok := Managed(l); ok {
			h.UncertainLinks[fmt.Sprintf("%.1f", c)]++
		}
	}
	for _, target := range forest.Wikilinks(n.Body) {
		w.links = append(w.links, Wikilink{ID: n.ID, Target: target})
	}
	w.payload(n)
	w.source(n)
}

// payload checks a local payload exists inside the forest and still
// matches payload_hash. Remote payloads are the fetcher's (G.9).
func (w *healthWalk) payload(n *forest.Node) {
	name := n.Payload()
	if name == "" || isRemote(name) {
		return
	}
	pf, err := w.root.Payload(n.ID, name)
	p := pf.Abs
	if err != nil {
		w.h.MissingPayloads = append(w.h.MissingPayloads, n.ID)
		return
	}
	switch matches(p, n.PayloadHash()) {
	case fileMissing:
		w.h.MissingPayloads = append(w.h.MissingPayloads, n.ID)
	case fileChanged:
		w.h.PayloadDrift = append(w.h.PayloadDrift, n.ID)
	}
}

// source checks a passport's source_path against the gardener's
// source_root: gone (or outside the root) is stale, present with other
// bytes than source_hash is changed.
func (w *healthWalk) source(n *forest.Node) {
	sp := n.Front.String("source_path")
	if w.src == "" || sp == "" || isRemote(sp) {
		return
	}
	p, ok := within(w.src, sp)
	if !ok {
		w.h.StalePassports = append(w.h.StalePassports, n.ID)
		return
	}
	switch matches(p, n.Front.String("source_hash")) {
	case fileMissing:
		w.h.StalePassports = append(w.h.StalePassports, n.ID)
	case fileChanged:
		w.h.ChangedSources = append(w.h.ChangedSources, n.ID)
	}
}

// finish settles the checks that need every id: wikilink targets, parent
// listings and catalog degrees.
func (w *healthWalk) finish(ctx context.Context) error {
	for _, l := range w.links {
		if !w.ids[l.Target] {
			w.h.BrokenWikilinks = append(w.h.BrokenWikilinks, l)
		}
	}
	if master, ok := w.indexes[forest.RootIndexID]; ok {
		w.h.Landmarks = append(w.h.Landmarks, forest.EntryIDs(master, forest.SectionLandmarks)...)
	}
	for _, id := range w.nodes {
		if id == forest.RootIndexID {
			continue
		}
		body, ok := w.indexes[forest.ParentIndex(id)]
		if _, listed := forest.RemoveEntry(body, id); !ok || !listed {
			w.h.Orphans = append(w.h.Orphans, id)
		}
	}
	deg, err := w.r.degrees(ctx)
	if err != nil {
		return err
	}
	for _, id := range w.nodes {
		if deg[id] > w.r.cfg.FatDegree {
			w.h.FatNodes = append(w.h.FatNodes, id)
		}
	}
	return nil
}

// entryCount counts the body's lines starting "- [[", wherever they sit
// (A.5's size signal).
func entryCount(body string) int {
	n := 0
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "- [[") {
			n++
		}
	}
	return n
}
