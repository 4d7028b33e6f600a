// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/monkeyllm/vine/forest"
)

// Passport-with-the-bytes bounds (J.8.4).
const (
	maxPassportTitle = 200
	maxPassportNotes = 4000
)

// UploadPassport is what a sender says about a file it uploads (J.8.4):
// a new document's passport takes it instead of asking the Curator, so a
// passported file never reaches the model. Every field is optional; the
// rules every passport obeys still apply (summary fitted, tags through
// the tag rule, aliases unioned after the derived ones, links
// re-checked). A re-sent file is refreshed and its passport not applied:
// the report lists it in PassportsIgnored.
type UploadPassport struct {
	Title   string         `json:"title,omitempty"`
	Summary string         `json:"summary,omitempty"`
	Tags    []string       `json:"tags,omitempty"`
	Aliases []string       `json:"aliases,omitempty"`
	Links   []PassportLink `json:"links,omitempty"`
	// Notes are appended to the body under "## Notes".
	Notes string `json:"notes,omitempty"`
}

// PassportLink is a link an uploaded passport proposes: related-to only
// (an empty Rel means related-to), kept when its target exists, may be
// seen, is no branch and is not the document itself or its parent.
type PassportLink struct {
	Target string `json:"target"`
	Rel    string `json:"rel,omitempty"`
	Note   string `json:"note,omitempty"`
}

// checkPassport applies J.8.4's value rules to entry i's passport; the
// refusal (E_SCHEMA) names the entry and the field.
func checkPassport(i int, p *UploadPassport) error {
	bad := func(field, msg string) error { return entryErr(i, "passport "+field+" "+msg, "") }
	if utf8.RuneCountInString(p.Title) > maxPassportTitle {
		return bad("title", fmt.Sprintf("is over %d characters", maxPassportTitle))
	}
	if p.Summary != "" && FitSummary(p.Summary) == "" {
		return bad("summary", "cannot be trimmed to a valid summary (A.4)")
	}
	if len(p.Aliases) > forest.MaxAliases {
		return bad("aliases", fmt.Sprintf("holds %d, over the limit of %d", len(p.Aliases), forest.MaxAliases))
	}
	for _, a := range p.Aliases {
		if strings.TrimSpace(a) == "" || utf8.RuneCountInString(a) > forest.MaxAliasChars {
			return bad("aliases", fmt.Sprintf("holds %q: an alias is 1 to %d characters", a, forest.MaxAliasChars))
		}
	}
	for _, l := range p.Links {
		if strings.TrimSpace(l.Target) == "" {
			return bad("links", "holds a link without a target")
		}
		if l.Rel != "" && l.Rel != relatedTo {
			return bad("links", fmt.Sprintf("rel %q: a passport proposes %s links only", l.Rel, relatedTo))
		}
	}
	if utf8.RuneCountInString(p.Notes) > maxPassportNotes {
		return bad("notes", fmt.Sprintf("is over %d characters", maxPassportNotes))
	}
	return nil
}

// FitSummary is s fitted to a passport summary (A.4): white space
// collapsed, then whole sentences while they fit; "" when nothing valid
// is left.
func FitSummary(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if forest.ValidateSummary(s) == nil {
		return s
	}
	if f := fitSentences(s); f != "" && forest.ValidateSummary(f) == nil {
		return f
	}
	return ""
}

// applyPassport puts a sender's passport on a new draft in place of the
// Curator (J.8.4); settle applies the rules every passport obeys after.
func (c curation) applyPassport(p *UploadPassport) {
	r, d := c.r, c.d
	if t := strings.TrimSpace(p.Title); t != "" {
		d.Title = t
	}
	if s := FitSummary(p.Summary); s != "" {
		d.Summary = s
	}
	d.Tags = append(d.Tags, p.Tags...)
	var clipped int
	d.Aliases, clipped = unionAliases(d.Aliases, p.Aliases)
	r.report.AliasesClipped += clipped
	for _, l := range p.Links {
		if len(d.Links) < maxProposals && c.linkable(l.Target) {
			d.Links = append(d.Links, DraftLink{Rel: relatedTo, Target: l.Target, Confidence: proposalConf,
				Note: clipNote(strings.TrimSpace(l.Note), maxProposalNote)})
		}
	}
	if n := strings.TrimSpace(p.Notes); n != "" && !c.dataset {
		d.Body = strings.TrimRight(d.Body, "\n") + "\n\n## Notes\n\n" + n + "\n"
	}
}

// linkable reports whether a proposed target may be linked from the
// draft: an existing node, no branch, not the draft or its parent, not
// linked already, and visible to the caller when the host filters.
func (c curation) linkable(target string) bool {
	d := c.d
	target = strings.Trim(strings.TrimSpace(target), "/")
	if target == "" || target == d.ID || target == d.Parent || forest.IsIndex(target) || forest.IsSystem(target) {
		return false
	}
	if slices.ContainsFunc(d.Links, func(l DraftLink) bool { return l.Target == target }) {
		return false
	}
	if f := c.r.c.opt.CandidateFilter; f != nil && !f(target) {
		return false
	}
	return fileExists(c.r.nodePath(target))
}
