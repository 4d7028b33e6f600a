// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// The members recurate may derive (J.13.6): aliases from the forest's own
// passports, scent through the bound Curator (J.13.6.1).
const (
	deriveAliases = "aliases"
	deriveScent   = "scent"
)

// RecurateMembers is the accepted set of RecurateOptions.Derive, in the
// order Recurate runs them.
var RecurateMembers = []string{deriveAliases, deriveScent}

// RecurateOptions choose what Recurate re-derives.
type RecurateOptions struct {
	// Derive names the members: "aliases", "scent" or both. Empty, or an
	// unknown member, is refused with E_SCHEMA listing the accepted set.
	Derive []string
}

// Recurate re-derives each member of opt.Derive over the whole forest
// (J.13.6): aliases first (RecurateAliases), then scent (RecurateScent).
// The report's Updated lists each changed node once; the members'
// counters are summed.
func (g *Gardener) Recurate(ctx context.Context, opt RecurateOptions) (*RecurateReport, error) {
	if err := checkDerive(opt.Derive); err != nil {
		return nil, err
	}
	rep := &RecurateReport{Updated: []string{}}
	for _, m := range RecurateMembers {
		if !slices.Contains(opt.Derive, m) {
			continue
		}
		run := g.RecurateAliases
		if m == deriveScent {
			run = g.RecurateScent
		}
		part, err := run(ctx)
		if part != nil {
			rep.merge(part)
		}
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// CheckDerive refuses, E_SCHEMA listing the accepted set, an empty
// RecurateOptions.Derive or one with an unknown member: what Recurate
// refuses before any write, for a caller that splits the members.
func CheckDerive(derive []string) error { return checkDerive(derive) }

// checkDerive refuses an empty list or an unknown member.
func checkDerive(derive []string) error {
	accepted := `accepted: ["aliases", "scent"]`
	if len(derive) == 0 {
		return envelope.New(envelope.Schema, "derive: name at least one member", accepted)
	}
	for _, m := range derive {
		if !slices.Contains(RecurateMembers, m) {
			return envelope.New(envelope.Schema, "derive: unknown member "+quoteMember(m), accepted)
		}
	}
	return nil
}

func quoteMember(m string) string { return `"` + strings.ReplaceAll(m, `"`, `\"`) + `"` }

// merge adds part's changes to r, each id once.
func (r *RecurateReport) merge(part *RecurateReport) {
	for _, id := range part.Updated {
		if !slices.Contains(r.Updated, id) {
			r.Updated = append(r.Updated, id)
		}
	}
	slices.Sort(r.Updated)
	r.AliasesClipped += part.AliasesClipped
	r.TagsDropped += part.TagsDropped
	r.Planned += part.Planned
	r.Curation.Merge(part.Curation)
}

// Merge sums another batch's counters into c, as an adapter does with a
// rollup that ran after an ingest batch; o's diagnostics, when set, are
// the latest.
func (c *CurationStats) Merge(o CurationStats) {
	c.LLMSummaries += o.LLMSummaries
	c.Fallbacks += o.Fallbacks
	c.Retries += o.Retries
	c.Skipped += o.Skipped
	c.LinksProposed += o.LinksProposed
	c.ProposalFallbacks += o.ProposalFallbacks
	c.BranchRollups += o.BranchRollups
	c.BranchFallbacks += o.BranchFallbacks
	c.TransportErrors += o.TransportErrors
	c.Rejected += o.Rejected
	c.Repaired += o.Repaired
	c.TagsDropped += o.TagsDropped
	c.AliasesClipped += o.AliasesClipped
	c.Error = cmp.Or(o.Error, c.Error)
	c.RejectedBecause = cmp.Or(o.RejectedBecause, c.RejectedBecause)
	c.LastReply = cmp.Or(o.LastReply, c.LastReply)
}

// ScentPlan lists the nodes a scent recurate would send to the model, in
// the order it would: every source: ingest node that is not a branch or
// a system node, datasets included (J.13.6.1). Its length is the bill a
// host states before the run spends it.
func (g *Gardener) ScentPlan(ctx context.Context) ([]string, error) {
	ids, err := g.c.v.Catalog().IDs(ctx)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, id := range ids {
		if forest.IsSystem(id) {
			continue
		}
		if n, ok := g.c.readNode(id); ok && n.Source() == "ingest" && !n.IsBranch() {
			out = append(out, id)
		}
	}
	return out, nil
}

// readNode reads one node's file; false when it is gone or unreadable.
func (c core) readNode(id string) (*forest.Node, bool) {
	data, err := os.ReadFile(filepath.Join(c.v.Dir(), filepath.FromSlash(id)+forest.NodeExt))
	if err != nil {
		return nil, false
	}
	n, err := forest.ParseWithin(id, data, c.v.ReadLimits())
	return n, err == nil
}

// RecurateScent asks the bound Curator again for the scent of every node
// ScentPlan lists (J.13.6.1): a valid summary REPLACES the passport's,
// tags and aliases are UNIONED after the existing ones, through the tag
// rule and the alias guard (a proposed alias must occur in the title or
// body). A fallback leaves the node as it was. Edge proposals are not
// asked; no body, link or origin is touched.
//
// Each changed node is one graft of summary, tags and aliases (subject
// "graft(<id>): …"), so a new summary reaches the parent's entry as a
// rollup's does; the forest format only recommends "recurate(scent):
// <id>", and the ingest rewrite may not change a summary.
// Options.Progress hears every node as vine.Progress{Op: "recurate"}.
// Without a Curator it is refused with E_SCHEMA: scent is the one member
// that needs a model.
func (g *Gardener) RecurateScent(ctx context.Context) (*RecurateReport, error) {
	cfg, ids, err := g.scentPlanned(ctx)
	if err != nil {
		return nil, err
	}
	rep := &RecurateReport{Updated: []string{}, Planned: len(ids)}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if err := g.c.rescent(ctx, id, cfg.Directives, rep); err != nil {
			return rep, err
		}
		if g.c.opt.Progress != nil {
			g.c.opt.Progress(vine.Progress{Op: "recurate", Done: i + 1, Total: len(ids)})
		}
	}
	return rep, nil
}

// rescent curates one node and commits what changed.
func (c core) rescent(ctx context.Context, id, directives string, rep *RecurateReport) error {
	n, ok := c.readNode(id)
	if !ok {
		return nil // gone since the plan listed it
	}
	in := CurateInput{Title: n.Title(), Body: n.Body, Lang: n.Lang(), Directives: directives,
		Dataset: n.Type() == "dataset"}
	out, err := callCurator(ctx, c.opt.Curator, in)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rep.Curation.add(CurateStats{Fallbacks: 1, TransportErrors: 1, LastError: clipNote(err.Error(), 300)})
		return nil
	}
	rep.Curation.add(out.Stats)
	was := scentFields(n)
	changed, dropped, clipped := applyScent(n, out)
	rep.TagsDropped += dropped
	rep.Curation.TagsDropped += dropped
	rep.AliasesClipped += clipped
	rep.Curation.AliasesClipped += clipped
	if !changed {
		return nil
	}
	res, err := c.v.Graft(ctx, id, vine.GraftPatch{SetFrontmatter: changedFields(was, scentFields(n))})
	if err != nil {
		return fmt.Errorf("recurate %s: %w", id, err)
	}
	if res.Commit == nil {
		return nil
	}
	rep.Updated = append(rep.Updated, id)
	return nil
}

// scentFields are the passport fields a scent recurate may change, as
// graft sets them: graft, not the ingest rewrite, because a new summary
// must reach the parent's entry as a rollup's does.
func scentFields(n *forest.Node) []forest.Field {
	return []forest.Field{{Key: "summary", Value: n.Summary()}, {Key: "tags", Value: anyList(n.Tags())},
		{Key: "aliases", Value: anyList(n.Aliases())}}
}

// changedFields keeps the fields of now whose value differs from was.
func changedFields(was, now []forest.Field) []forest.Field {
	var out []forest.Field
	for i, f := range now {
		if !reflect.DeepEqual(f.Value, was[i].Value) {
			out = append(out, f)
		}
	}
	return out
}

// applyScent writes a Curator's answer into n: the summary replaced when
// it passes A.4, tags and aliases unioned after the existing ones.
func applyScent(n *forest.Node, out *CurateOutput) (changed bool, dropped, clipped int) {
	if s := strings.TrimSpace(out.Summary); s != "" && forest.ValidateSummary(s) == nil && s != n.Summary() {
		n.Front.Set("summary", s)
		changed = true
	}
	have := n.Tags()
	tags, dropped := unionTags(have, out.Tags)
	if len(tags) > len(have) {
		n.Front.Set("tags", anyList(tags))
		changed = true
	}
	haveAliases := n.Aliases()
	aliases, clipped := unionAliases(haveAliases, proposedAliases(haveAliases, out.Aliases, n.Title(), n.Body))
	if len(aliases) > len(haveAliases) {
		n.Front.Set("aliases", anyList(aliases))
		changed = true
	}
	return changed, dropped, clipped
}

// unionTags appends the proposals that pass the tag rule and that have
// lacks (by forest.TagKey), keeping every existing spelling; losses to
// the rule or the cap of 12 are counted.
func unionTags(have, proposals []string) ([]string, int) {
	clean, dropped := CleanTags(proposals)
	seen := make(map[string]bool, len(have))
	for _, t := range have {
		seen[forest.TagKey(t)] = true
	}
	out := slices.Clone(have)
	for _, t := range clean {
		if seen[forest.TagKey(t)] {
			continue
		}
		if len(out) >= forest.MaxTags {
			dropped++
			continue
		}
		seen[forest.TagKey(t)] = true
		out = append(out, t)
	}
	return out, dropped
}

// RecurateScentSteps is RecurateScent as a batch taken one node at a time
// (J.13.6.1: it runs as an ingest job, J.9): each Next asks the Curator
// about one node of ScentPlan and grafts what changed, one commit. Its
// report lists changed nodes as updated, the others as unchanged, a
// node whose graft failed in errors, and sums the curation counters.
// Total is the bill, known before the first model call. The refusals
// are RecurateScent's, before any step.
func (g *Gardener) RecurateScentSteps(ctx context.Context) (*Steps, error) {
	cfg, ids, err := g.scentPlanned(ctx)
	if err != nil {
		return nil, err
	}
	r := &run{c: g.c, op: "recurate", cfg: cfg, report: newReport(), planned: map[string]bool{}}
	tasks := make([]task, len(ids))
	for i, id := range ids {
		tasks[i] = task{scentID: id}
	}
	return &Steps{r: r, tasks: tasks}, nil
}

// rescent is one step of RecurateScentSteps.
func (r *run) rescent(ctx context.Context, id string) error {
	var rep RecurateReport
	if err := r.c.rescent(ctx, id, r.cfg.Directives, &rep); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.fail(id, err)
		return nil
	}
	r.report.Curation.Merge(rep.Curation)
	if len(rep.Updated) > 0 {
		r.report.Updated = append(r.report.Updated, id)
	} else {
		r.report.Unchanged = append(r.report.Unchanged, id)
	}
	return nil
}

// scentPlanned refuses what a scent recurate cannot start on — a
// read-only forest, no model — and answers the forest's config and
// plan.
func (g *Gardener) scentPlanned(ctx context.Context) (*Config, []string, error) {
	if err := g.c.writable("recurate"); err != nil {
		return nil, nil, err
	}
	if g.c.opt.Curator == nil {
		return nil, nil, envelope.New(envelope.Schema, `derive: "scent" needs a bound model`,
			`bind an ingest model (a Curator), or derive "aliases", which needs none`)
	}
	cfg, err := LoadConfig(g.c.v.Dir())
	if err != nil {
		return nil, nil, err
	}
	ids, err := g.ScentPlan(ctx)
	return cfg, ids, err
}
