// SPDX-License-Identifier: Apache-2.0

package gardener

import "context"

// Curator writes the scent of a new draft (G.4.2): its summary, tags and
// aliases, and picks related nodes from a closed candidate list. The
// deterministic default needs no model; adapters/llamacpp provides a
// model-backed one.
type Curator interface {
	Curate(ctx context.Context, in CurateInput) (*CurateOutput, error)
}

// CurateInput is one draft as the Curator sees it: the full text, before
// the content policy slims the body.
type CurateInput struct {
	Title      string
	Body       string
	Lang       string      // the draft's valid lang, if stated
	Directives string      // curation.directives from _meta/gardener.yaml
	Dataset    bool        // a dataset passport: the body is its sample map
	Candidates []Candidate // closed list for edge proposals (may be empty)
}

// Candidate is one node a Curator may propose a related-to link to.
type Candidate struct {
	ID, Title, Summary string
}

// CurateOutput is a Curator's answer. An empty Summary keeps the derived
// one. Related ids not among the candidates are dropped by the caller.
type CurateOutput struct {
	Summary string
	Tags    []string
	Aliases []string
	Related []Related
	Stats   CurateStats
}

// Related is one proposed related-to link.
type Related struct {
	ID   string
	Note string // at most 120 characters
}

// CurateStats counts what happened inside one curation, summed into the
// report's curation section (G.4 §11.8).
type CurateStats struct {
	LLMSummaries      int
	Fallbacks         int
	Repaired          int
	Retries           int
	TransportErrors   int
	ProposalFallbacks int
	Skipped           int
	LastReject        string
	LastReply         string
	LastError         string
}
