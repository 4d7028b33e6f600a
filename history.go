// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"strings"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/budget"
)

// BudgetHistory is the token ceiling of a history response (C.16).
const BudgetHistory = 800

// History limits (C.16): the default, and the clamp every limit passes.
const (
	DefaultHistoryLimit = 20
	MaxHistoryLimit     = 50
)

// atLayout is git's %aI: strict ISO 8601 with a numeric offset, so UTC
// prints +00:00 where time.RFC3339 would print Z.
const atLayout = "2006-01-02T15:04:05-07:00"

// HistoryOptions are the wire options of history.
type HistoryOptions struct {
	// Limit is how many commits to list, clamped to [1, 50]; 0 means 20.
	Limit int
}

// HistoryEntry is one commit that changed the node.
type HistoryEntry struct {
	Commit  string `json:"commit"`
	At      string `json:"at"`
	Message string `json:"message"`
	Action  string `json:"action"`
	// By is the station-principal trailer's value; absent on engine-only
	// writes.
	By string `json:"by,omitempty"`
}

// HistoryResult lists a node's commits, newest first. Truncated says more
// commits exist or the budget dropped tail entries; Oldest is the last
// listed sha, absent when nothing is listed.
type HistoryResult struct {
	ID        string         `json:"id"`
	Entries   []HistoryEntry `json:"entries"`
	Returned  int            `json:"returned"`
	Truncated bool           `json:"truncated"`
	Oldest    string         `json:"oldest,omitempty"`
}

func (r *HistoryResult) nodeIDs() []string { return []string{r.ID} }

// History lists the commits that changed a node, newest first, through
// renames: a transplanted node's past before the move is listed too (C.16).
// It is a listing, never time travel. A pruned id has no history
// (E_NOT_FOUND); a waymark answers E_MOVED. The response fits 800 tokens:
// whole tail entries are dropped past it, and truncated says so.
func (v *Vine) History(ctx context.Context, id string, opt HistoryOptions) (*HistoryResult, error) {
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	limit := clampHistoryLimit(opt.Limit)
	repo, err := v.gitRepo()
	if err != nil {
		return nil, err
	}
	log, err := repo.Log(ctx, rec.ID+forest.NodeExt, limit+1, true)
	if err != nil {
		return nil, err
	}
	res := &HistoryResult{ID: rec.ID, Entries: make([]HistoryEntry, 0, min(len(log), limit))}
	for _, e := range log[:min(len(log), limit)] {
		res.Entries = append(res.Entries, historyEntry(e))
	}
	redactHistory(scopeOf(ctx), res.Entries)
	res.Truncated = len(log) > limit
	fitHistory(res)
	return res, nil
}

// clampHistoryLimit maps a limit into [1, 50]; 0 is the default 20.
func clampHistoryLimit(n int) int {
	if n == 0 {
		return DefaultHistoryLimit
	}
	return max(1, min(n, MaxHistoryLimit))
}

func historyEntry(e gitops.Entry) HistoryEntry {
	return HistoryEntry{Commit: e.SHA, At: e.When.Format(atLayout), Message: e.Subject, Action: e.Action, By: e.By}
}

// redactHistory rewrites the messages for a caller under a policy that
// hides some ids (J.3): a commit that changed a visible node may name
// hidden ones (a transplant in from a hidden branch, a plant batch's
// index, a link pruned by a hidden node's move), and a response must name
// none. Each such id becomes <hidden>, keeping the action; so does the
// title or summary of a hidden node. No entry is dropped: every one
// changed the visible node. It runs before fitHistory, so the budget,
// returned, truncated and oldest see the served text.
func redactHistory(s *scope, entries []HistoryEntry) {
	if !s.restricted() {
		return
	}
	hidden := func(ref string) bool { return !s.in(strings.TrimLeft(ref, "/")) }
	for i := range entries {
		entries[i].Message = gitops.RedactSubject(entries[i].Message, hidden)
		entries[i].Action = gitops.ParseAction(entries[i].Message)
	}
}

// fitHistory cuts whole tail entries past the budget and fills the
// derived fields. They are set at their final size before the cut, so
// setting them after it cannot break the ceiling.
func fitHistory(res *HistoryResult) {
	res.Returned = len(res.Entries)
	if len(res.Entries) > 0 {
		res.Oldest = res.Entries[len(res.Entries)-1].Commit
	}
	full := res.Truncated
	res.Truncated = true
	if budget.ShrinkTail(&res.Entries, BudgetHistory, func() any { return res }) == 0 {
		res.Truncated = full
	}
	res.Returned = len(res.Entries)
	res.Oldest = ""
	if len(res.Entries) > 0 {
		res.Oldest = res.Entries[len(res.Entries)-1].Commit
	}
}

// gitRepo is the forest's repository. A read-only Vine holds none (it never
// commits), so history opens one for the call: reads need no lock.
func (v *Vine) gitRepo() (*gitops.Repo, error) {
	if v.repo != nil {
		return v.repo, nil
	}
	return gitops.Open(v.root.Dir())
}

// ---- wire ----

var historySignature = Signature{
	Name: "history",
	Doc: "List the commits that changed a node, newest first, across transplants: commit, at, message, " +
		"action and by (the principal, when the host stamped one). A listing only; limit 1-50.",
	Budget: BudgetHistory,
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "the node"},
		{Name: "limit", Type: TInteger, Default: DefaultHistoryLimit, Doc: "commits to list, clamped to [1, 50]"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: historySignature, run: runHistory}) }

func runHistory(ctx context.Context, v *Vine, a Args) (any, error) {
	limit := a.Int("limit")
	if a.Has("limit") {
		limit = max(1, limit) // an explicit 0 or less clamps to 1, not to the default
	}
	return v.History(ctx, a.String("id"), HistoryOptions{Limit: limit})
}
