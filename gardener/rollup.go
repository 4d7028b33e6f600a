// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

// rollupInputTokens bounds the entry lines a branch summary is written
// from (G.4.4 rule 3).
const rollupInputTokens = 1500

// BranchCurator is implemented by a Curator that can also write a branch
// summary (G.4.4): "what lives here and where else", from the branch's
// entry lines only, never its children's bodies. The answer must pass
// A.4 and may not open with "This folder contains".
type BranchCurator interface {
	CurateBranch(ctx context.Context, in BranchInput) (summary string, stats CurateStats, err error)
}

// BranchInput is one branch as a BranchCurator sees it.
type BranchInput struct {
	Title      string
	Entries    string // the "- [[…" lines of Sub-branches and Direct bananas, clipped by line
	Directives string
}

// RollupOptions widen a rollup.
type RollupOptions struct {
	// All rolls up every branch, not only those the Gardener created
	// (source: ingest). _meta is never rolled up.
	All bool
}

// RollupReport counts a rollup: branches whose summary changed, how many
// of the summaries were the model-free fallback, and branches skipped
// (no entries). Curation sums the BranchCurator's counters.
type RollupReport struct {
	Rolled    int           `json:"rolled"`
	Fallbacks int           `json:"fallbacks"`
	Skipped   int           `json:"skipped"`
	Curation  CurationStats `json:"curation"`
}

// Rollup rewrites the summaries of ingested branches bottom-up (G.4.4):
// deepest first, each from its fresh entry lines, through the Curator
// when it is a BranchCurator, else (or when it fails) as "Region
// '<title>': a, b, c (+N more)." Each change is one graft of summary,
// which carries it into the parent's entry; an unchanged summary writes
// nothing. It never creates nodes or links and never touches a body.
// Adapters run it at the end of a batch when a model is bound and the
// batch was not cancelled. Options.Progress hears every branch as
// vine.Progress{Op: "rollup"}.
func (g *Gardener) Rollup(ctx context.Context, opt RollupOptions) (*RollupReport, error) {
	if err := g.c.writable("rollup"); err != nil {
		return nil, err
	}
	ids, err := g.c.rollupScope(ctx, opt.All)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(g.c.v.Dir())
	if err != nil {
		return nil, err
	}
	rep := &RollupReport{}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if err := g.c.rollOne(ctx, id, cfg.Directives, rep); err != nil {
			return rep, err
		}
		if g.c.opt.Progress != nil {
			g.c.opt.Progress(vine.Progress{Op: "rollup", Done: i + 1, Total: len(ids)})
		}
	}
	return rep, nil
}

// rollupScope lists the branches to roll up, deepest first, then by id.
func (c core) rollupScope(ctx context.Context, all bool) ([]string, error) {
	source := "ingest"
	if all {
		source = ""
	}
	listed, err := c.v.Catalog().Branches(ctx, source)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, id := range listed {
		if !forest.IsSystem(id) {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		di, dj := strings.Count(ids[i], "/"), strings.Count(ids[j], "/")
		if di != dj {
			return di > dj
		}
		return ids[i] < ids[j]
	})
	return ids, nil
}

// rollOne rolls up one branch.
func (c core) rollOne(ctx context.Context, id, directives string, rep *RollupReport) error {
	data, err := os.ReadFile(filepath.Join(c.v.Dir(), filepath.FromSlash(id)+forest.NodeExt))
	if err != nil {
		return nil // gone since the catalog listed it
	}
	n, err := forest.ParseWithin(id, data, c.v.ReadLimits())
	if err != nil {
		return nil
	}
	lines := append(entryLines(n.Body, forest.SectionSubBranches), entryLines(n.Body, forest.SectionDirect)...)
	if len(lines) == 0 {
		rep.Skipped++
		return nil
	}
	title := n.Title()
	if title == "" {
		title = forest.ParseOutline(n.Body).Title
	}
	summary := ""
	if bc, ok := c.opt.Curator.(BranchCurator); ok {
		s, stats, err := callBranchCurator(ctx, bc, BranchInput{Title: title, Entries: clipLines(lines), Directives: directives})
		rep.Curation.add(stats)
		if err == nil && validBranchSummary(s) {
			summary = strings.TrimSpace(s)
			rep.Curation.BranchRollups++
		}
	}
	if summary == "" {
		summary = c.regionSummary(ctx, title, n.Body)
		rep.Fallbacks++
		rep.Curation.BranchFallbacks++
	}
	if summary == n.Summary() {
		return nil
	}
	res, err := c.v.Graft(ctx, id, vine.GraftPatch{SetFrontmatter: []forest.Field{{Key: "summary", Value: summary}}})
	if err != nil {
		return fmt.Errorf("rollup %s: %w", id, err)
	}
	if res.Commit != nil {
		rep.Rolled++
	}
	return nil
}

func callBranchCurator(ctx context.Context, bc BranchCurator, in BranchInput) (s string, stats CurateStats, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("branch curator panic: %v", p)
		}
	}()
	return bc.CurateBranch(ctx, in)
}

func validBranchSummary(s string) bool {
	s = strings.TrimSpace(s)
	return forest.ValidateSummary(s) == nil && !strings.HasPrefix(strings.ToLower(s), "this folder contains")
}

// entryLines are a section's "- [[" lines.
func entryLines(body, heading string) []string {
	var out []string
	for _, l := range forest.SectionLines(body, heading) {
		if strings.HasPrefix(l, "- [[") {
			out = append(out, l)
		}
	}
	return out
}

// clipLines joins whole lines up to the input budget and names how many
// were left out.
func clipLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if budget.EstimateTokens(b.String()+l+"\n") > rollupInputTokens {
			fmt.Fprintf(&b, "(... %d more entries)", len(lines)-i)
			break
		}
		b.WriteString(l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// regionSummary is the model-free branch summary: the children's titles
// that fit A.4, else the entry count.
func (c core) regionSummary(ctx context.Context, title, body string) string {
	ids := append(forest.EntryIDs(body, forest.SectionSubBranches), forest.EntryIDs(body, forest.SectionDirect)...)
	recs, err := c.v.Catalog().GetMany(ctx, ids)
	if err != nil {
		recs = nil
	}
	var titles []string
	for _, id := range ids {
		if rec, ok := recs[id]; ok && strings.TrimSpace(rec.Title) != "" {
			titles = append(titles, strings.Join(strings.Fields(rec.Title), " "))
		}
	}
	best := ""
	for k := 1; k <= len(titles); k++ {
		s := fmt.Sprintf("Region '%s': %s", title, strings.Join(titles[:k], ", "))
		if more := len(ids) - k; more > 0 {
			s += fmt.Sprintf(" (+%d more)", more)
		}
		s += "."
		if forest.ValidateSummary(s) != nil {
			break
		}
		best = s
	}
	if best != "" {
		return best
	}
	return fallbackSummary("Region '%s' with "+fmt.Sprint(len(ids))+" entries.", title)
}
