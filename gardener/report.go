// SPDX-License-Identifier: Apache-2.0

package gardener

import "slices"

// IngestReport is the unabridged outcome of an adopt, sync or upload
// (G.10): a partial success reported as success is worse than a failure,
// so every file lands in exactly one list and every problem in Errors.
type IngestReport struct {
	// Planted are the ids of new passports (dry run: drafts that would be
	// planted).
	Planted []string `json:"planted"`
	// Branches are the branch ids created (dry run: would create).
	Branches []string `json:"branches"`
	// Updated are ids refreshed, or whose aliases or origin were
	// backfilled.
	Updated []string `json:"updated"`
	// Unchanged are ids whose source did not change.
	Unchanged []string `json:"unchanged"`
	// Stale are ids whose source is gone; the Gardener never deletes.
	Stale []string `json:"stale"`
	// Unsupported are source paths no converter claims (ids for
	// refreshes that lost their converter).
	Unsupported []string `json:"unsupported"`
	// Errors are "<source path or id>: <message>" lines, fallthroughs and
	// failing hooks included.
	Errors []string `json:"errors"`
	// Drafts are the passports a dry run would plant; nil on real runs.
	Drafts []Draft `json:"drafts,omitempty"`
	// AliasesClipped counts derived, hook or Curator aliases that did not
	// fit a passport (16 at most, 80 characters each).
	AliasesClipped int `json:"aliases_clipped"`
	// TagsDropped counts tags lost to the tag rule or the cap of 12.
	TagsDropped int `json:"tags_dropped"`
	// PassportsIgnored are the staged upload names sent with a passport
	// that refreshed a document already there: a refresh keeps the
	// passport the forest holds (J.8.4).
	PassportsIgnored []string `json:"passports_ignored,omitempty"`
	// Consumed are the staged upload names removed once they landed.
	Consumed []string `json:"consumed"`
	// Curation sums what curation did (G.4 §11.8).
	Curation CurationStats `json:"curation"`
}

// CurationStats are the curation counters of a batch (G.4 §11.8).
// A batch with a model bound and none of summaries, rollups, retries,
// fallbacks or transport errors needed no model: that is not a
// rejection.
type CurationStats struct {
	LLMSummaries      int    `json:"llm_summaries"`
	Fallbacks         int    `json:"fallbacks"`
	Retries           int    `json:"retries"`
	Skipped           int    `json:"skipped"`
	LinksProposed     int    `json:"links_proposed"`
	ProposalFallbacks int    `json:"proposal_fallbacks"`
	BranchRollups     int    `json:"branch_rollups"`
	BranchFallbacks   int    `json:"branch_fallbacks"`
	TransportErrors   int    `json:"transport_errors"`
	Rejected          int    `json:"rejected"`
	Repaired          int    `json:"repaired"`
	TagsDropped       int    `json:"tags_dropped"`
	AliasesClipped    int    `json:"aliases_clipped"`
	Error             string `json:"error,omitempty"`
	RejectedBecause   string `json:"rejected_because,omitempty"`
	LastReply         string `json:"last_reply,omitempty"`
}

// add sums one curation's counters. A fallback that was not a transport
// error is a rejection (the Curator gave up on its replies).
func (c *CurationStats) add(s CurateStats) {
	c.LLMSummaries += s.LLMSummaries
	c.Fallbacks += s.Fallbacks
	c.Retries += s.Retries
	c.Skipped += s.Skipped
	c.ProposalFallbacks += s.ProposalFallbacks
	c.TransportErrors += s.TransportErrors
	c.Repaired += s.Repaired
	c.Rejected += max(0, s.Fallbacks-s.TransportErrors)
	if s.LastError != "" {
		c.Error = s.LastError
	}
	if s.LastReject != "" {
		c.RejectedBecause = s.LastReject
	}
	if s.LastReply != "" {
		c.LastReply = s.LastReply
	}
}

func newReport() *IngestReport {
	return &IngestReport{Planted: []string{}, Branches: []string{}, Updated: []string{}, Unchanged: []string{},
		Stale: []string{}, Unsupported: []string{}, Errors: []string{}, Consumed: []string{}}
}

// clone is a deep copy, so a live partial report can be handed out while
// the batch goes on.
func (r *IngestReport) clone() *IngestReport {
	c := *r
	c.Planted, c.Branches, c.Updated = slices.Clone(r.Planted), slices.Clone(r.Branches), slices.Clone(r.Updated)
	c.Unchanged, c.Stale, c.Unsupported = slices.Clone(r.Unchanged), slices.Clone(r.Stale), slices.Clone(r.Unsupported)
	c.Errors, c.Consumed, c.PassportsIgnored = slices.Clone(r.Errors), slices.Clone(r.Consumed), slices.Clone(r.PassportsIgnored)
	if r.Drafts != nil {
		c.Drafts = make([]Draft, len(r.Drafts))
		for i, d := range r.Drafts {
			c.Drafts[i] = d.clone()
		}
	}
	return &c
}

// Step actions (G.10): the first report list a step grew, in this order
// of precedence.
const (
	ActionPlanted     = "planted"
	ActionUpdated     = "updated"
	ActionUnchanged   = "unchanged"
	ActionUnsupported = "unsupported"
	ActionError       = "error"
	ActionStale       = "stale"
	ActionSkipped     = "skipped"
)

// sizes are the lengths of the lists that decide a step's action, in
// precedence order.
func (r *IngestReport) sizes() [6]int {
	return [6]int{len(r.Planted), len(r.Updated), len(r.Unchanged), len(r.Unsupported), len(r.Errors), len(r.Stale)}
}

// actionSince names the first list that grew since before was taken.
func (r *IngestReport) actionSince(before [6]int) string {
	names := [6]string{ActionPlanted, ActionUpdated, ActionUnchanged, ActionUnsupported, ActionError, ActionStale}
	after := r.sizes()
	for i := range after {
		if after[i] > before[i] {
			return names[i]
		}
	}
	return ActionSkipped
}
