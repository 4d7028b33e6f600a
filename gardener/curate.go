// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/terms"
)

// CurateHook changes a new draft before it is planted (G.4 rule 3): it
// may edit any field or replace the draft wholesale. Returning an error
// (or panicking) skips the hook: its changes are discarded, the batch
// reports "on_curate hook '<name>': <err>" and goes on.
type CurateHook func(ctx context.Context, d *Draft) error

// NamedHook is a CurateHook with the name its failures are reported
// under.
type NamedHook struct {
	Name string
	Hook CurateHook
}

var (
	hooksMu   sync.RWMutex
	hookTable []NamedHook
)

// RegisterHook adds a process-wide hook, run on every Gardener's drafts
// before the hooks of its Options, in registration order. It is the Go
// form of the reference's on_curate entry points: call it from an init
// function.
func RegisterHook(name string, h CurateHook) {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	hookTable = append(hookTable, NamedHook{Name: name, Hook: h})
}

func registeredHooks() []NamedHook {
	hooksMu.RLock()
	defer hooksMu.RUnlock()
	return slices.Clone(hookTable)
}

// Edge proposal limits (G.4.2.1).
const (
	maxCandidates     = 8
	maxProposals      = 3
	proposalConf      = 0.3
	maxProposalNote   = 120
	relatedTo         = "related-to"
	candidateScanRows = 64
)

// curation is the curate stage of one draft: the deterministic scent
// first, then hooks, then the Curator, then the rules every passport
// obeys. dataset marks a passport whose body is its sample map and must
// stay as generated.
type curation struct {
	r       *run
	d       *Draft
	dataset bool
}

func (c curation) run(ctx context.Context) {
	r, d := c.r, c.d
	tags, dropped := CleanTags(r.cfg.DefaultTags)
	d.Tags = tags
	r.report.TagsDropped += dropped
	r.report.Curation.TagsDropped += dropped
	for _, h := range append(registeredHooks(), r.c.opt.Hooks...) {
		c.hook(ctx, h)
	}
	if p := r.passports[c.d.SourcePath]; p != nil {
		c.applyPassport(p) // the gate: a passported draft never reaches the model
	} else if r.c.opt.Curator != nil {
		c.curator(ctx)
	}
	c.settle()
}

// hook runs one hook on a copy, keeping the result only when the hook
// succeeds; placement is restored either way.
func (c curation) hook(ctx context.Context, h NamedHook) {
	work := c.d.clone()
	err := callHook(ctx, h.Hook, &work)
	if err != nil {
		c.r.report.Errors = append(c.r.report.Errors, fmt.Sprintf("on_curate hook '%s': %v", h.Name, err))
		return
	}
	c.keepPlacement(&work)
	*c.d = work
}

func callHook(ctx context.Context, h CurateHook, d *Draft) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h(ctx, d)
}

// keepPlacement restores what no hook may change: the address, the type,
// the source, and a dataset's generated body.
func (c curation) keepPlacement(d *Draft) {
	d.ID, d.Parent, d.Type, d.SourcePath = c.d.ID, c.d.Parent, c.d.Type, c.d.SourcePath
	if c.dataset {
		d.Body = c.d.Body
	}
}

// curator asks the Curator; a failure keeps the derived scent.
func (c curation) curator(ctx context.Context) {
	r, d := c.r, c.d
	cands := r.candidates(ctx, d)
	in := CurateInput{Title: d.Title, Body: d.Body, Lang: d.Lang, Directives: r.cfg.Directives,
		Dataset: c.dataset, Candidates: cands}
	out, err := callCurator(ctx, r.c.opt.Curator, in)
	if err != nil {
		r.report.Curation.add(CurateStats{Fallbacks: 1, TransportErrors: 1, LastError: clipNote(err.Error(), 300)})
		return
	}
	r.report.Curation.add(out.Stats)
	if s := strings.TrimSpace(out.Summary); s != "" {
		if forest.ValidateSummary(s) == nil {
			d.Summary = s
		} else {
			r.report.Curation.add(CurateStats{Fallbacks: 1, LastReject: "summary breaks A.4: " + clipNote(s, 200)})
		}
	}
	d.Tags = append(d.Tags, out.Tags...)
	added := proposedAliases(d.Aliases, out.Aliases, d.Title, d.Body)
	var clipped int
	d.Aliases, clipped = unionAliases(d.Aliases, added)
	r.report.Curation.AliasesClipped += clipped
	r.report.AliasesClipped += clipped
	c.links(out.Related, cands)
}

func callCurator(ctx context.Context, cur Curator, in CurateInput) (out *CurateOutput, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("curator panic: %v", p)
		}
	}()
	out, err = cur.Curate(ctx, in)
	if err == nil && out == nil {
		err = errors.New("curator returned no output")
	}
	return out, err
}

// links keeps the proposals that name an offered candidate (G.4.2.1):
// related-to at confidence 0.3, notes clipped, no self-link, no
// duplicate of a link the draft has, at most three.
func (c curation) links(related []Related, cands []Candidate) {
	d := c.d
	kept := 0
	for _, rel := range related {
		if kept == maxProposals {
			break
		}
		offered := slices.ContainsFunc(cands, func(cd Candidate) bool { return cd.ID == rel.ID })
		dup := slices.ContainsFunc(d.Links, func(l DraftLink) bool { return l.Rel == relatedTo && l.Target == rel.ID })
		if !offered || dup || rel.ID == d.ID {
			continue
		}
		d.Links = append(d.Links, DraftLink{Rel: relatedTo, Target: rel.ID, Confidence: proposalConf,
			Note: clipNote(strings.TrimSpace(rel.Note), maxProposalNote)})
		kept++
	}
	c.r.report.Curation.LinksProposed += kept
}

// settle applies the rules every new passport obeys whoever curated it:
// a valid summary, the tag rule, and the alias bounds.
func (c curation) settle() {
	r, d := c.r, c.d
	d.Title = strings.Join(strings.Fields(d.Title), " ")
	if forest.ValidateSummary(d.Summary) != nil {
		d.Summary = DeriveSummary(d.Title, d.Body)
	}
	var dropped int
	d.Tags, dropped = CleanTags(d.Tags)
	r.report.TagsDropped += dropped
	r.report.Curation.TagsDropped += dropped
	var clipped int
	d.Aliases, clipped = unionAliases(nil, d.Aliases)
	r.report.AliasesClipped += clipped
}

// candidates is the closed list a Curator may link to (G.4.2.1): BM25
// over the catalog's curated metadata for the draft's title and summary,
// at most eight, never the draft itself, its parent, a branch or a
// system node.
func (r *run) candidates(ctx context.Context, d *Draft) []Candidate {
	words := terms.Derive(d.Title + " " + d.Summary)
	if len(words) == 0 {
		words = strings.Fields(d.Title + " " + d.Summary)
	}
	match := catalog.MatchExpr(words)
	if match == "" {
		return nil
	}
	found, err := r.c.v.Catalog().Search(ctx, match, candidateScanRows)
	if err != nil {
		return nil // no candidates is a valid list; the draft still lands
	}
	var out []Candidate
	for _, m := range found {
		if len(out) == maxCandidates {
			break
		}
		if m.Kind == "branch" || m.ID == d.ID || m.ID == d.Parent || forest.IsSystem(m.ID) ||
			r.c.opt.CandidateFilter != nil && !r.c.opt.CandidateFilter(m.ID) {
			continue
		}
		out = append(out, Candidate{ID: m.ID, Title: m.Title, Summary: m.Summary})
	}
	return out
}

// clipNote cuts s to at most n characters.
func clipNote(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
