// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// The votes a person casts on a proposed link (H.2.1).
const (
	Accept = "accept"
	Reject = "reject"
)

// The outcomes of a vote.
const (
	Accepted  = "accepted"  // the link's confidence is now 1.0
	Rejected  = "rejected"  // the link is gone
	Unchanged = "unchanged" // an accept on a link already at 1.0
)

// LinkVote is a person's decision on one link of a node: Vote is Accept
// or Reject.
type LinkVote struct {
	ID     string `json:"id"`
	Rel    string `json:"rel"`
	Target string `json:"target"`
	Vote   string `json:"vote"`
}

func (lv LinkVote) String() string { return lv.ID + " " + lv.Rel + "->" + lv.Target }

// VoteResult is what one vote did. Commit is the audited commit of the
// one .md, empty when the result is Unchanged.
type VoteResult struct {
	LinkVote
	Result string `json:"result"`
	Commit string `json:"commit,omitempty"`
}

// AcceptLink confirms a proposed link: its confidence becomes 1.0, which
// takes it out of the Ranger's management for good, so heat can never
// undo a person's decision (H.2.1). A link already at 1.0 (or with no
// numeric confidence, a person's own) answers Unchanged with no commit:
// a retried batch is no error. A node without that link is E_NOT_FOUND.
func (r *Ranger) AcceptLink(ctx context.Context, id, rel, target string) (VoteResult, error) {
	return r.vote(ctx, LinkVote{ID: id, Rel: rel, Target: target, Vote: Accept})
}

// RejectLink removes a proposed link (confidence below 1.0) through the
// same audited rewrite as pruning. A link at 1.0, or one the Ranger does
// not manage, is E_SCHEMA: it is nobody's proposal. A node without that
// link is E_NOT_FOUND.
func (r *Ranger) RejectLink(ctx context.Context, id, rel, target string) (VoteResult, error) {
	return r.vote(ctx, LinkVote{ID: id, Rel: rel, Target: target, Vote: Reject})
}

// Vote casts a group of votes, as a console's one POST does (H.2.1):
// every vote is checked against the forest as it is first, so a refusal
// anywhere writes nothing; then each is applied as its own commit, in
// order. Votes on one link are taken in turn (accept then reject refuses
// the reject). A vote refused after the check (the link changed
// meanwhile) ends the group with its error; the votes before it stand.
func (r *Ranger) Vote(ctx context.Context, votes []LinkVote) ([]VoteResult, error) {
	if err := r.writable("vote"); err != nil {
		return nil, err
	}
	if err := r.checkVotes(ctx, votes); err != nil {
		return nil, err
	}
	out := make([]VoteResult, 0, len(votes))
	for _, lv := range votes {
		res, err := r.vote(ctx, lv)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// checkVotes replays the votes on copies of their nodes under the writer
// lock, staging nothing.
func (r *Ranger) checkVotes(ctx context.Context, votes []LinkVote) error {
	_, err := r.v.Maintain(ctx, "links(check): no commit", func(e *vine.Editor) error {
		seen := map[string]*forest.Node{}
		for _, lv := range votes {
			n, ok := seen[lv.ID]
			if !ok {
				var err error
				if n, err = r.voteNode(e, lv); err != nil {
					return err
				}
				seen[lv.ID] = n
			}
			if _, err := castVote(n, lv); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// vote applies one vote as its own commit under the writer lock.
func (r *Ranger) vote(ctx context.Context, lv LinkVote) (VoteResult, error) {
	res := VoteResult{LinkVote: lv}
	if err := r.writable("vote"); err != nil {
		return res, err
	}
	if err := checkVote(lv); err != nil {
		return res, err
	}
	sha, err := r.v.Maintain(ctx, gitops.LinkVoteSubject(lv.Vote, lv.ID, lv.Rel, lv.Target), func(e *vine.Editor) error {
		n, err := r.voteNode(e, lv)
		if err != nil {
			return err
		}
		if res.Result, err = castVote(n, lv); err != nil || res.Result == Unchanged {
			return err
		}
		return e.Put(n)
	})
	if err != nil {
		return VoteResult{LinkVote: lv}, err
	}
	res.Commit = sha
	return res, nil
}

// checkVote refuses a vote that is neither accept nor reject, or that
// names no link.
func checkVote(lv LinkVote) error {
	switch {
	case lv.Vote != Accept && lv.Vote != Reject:
		return envelope.New(envelope.Schema, fmt.Sprintf("parameter 'vote' is %q, expected accept or reject", lv.Vote),
			"accept sets the proposal's confidence to 1.0; reject removes it")
	case lv.ID == "" || lv.Rel == "" || lv.Target == "":
		return envelope.New(envelope.Schema, "parameters 'id', 'rel' and 'target' name the link voted on",
			"the health report's uncertain_links counts the proposals; each sits in its node's links")
	}
	return nil
}

// voteNode reads the node a vote is about; _meta holds no proposals, and
// a node outside the voter's scope is as absent as a missing one.
func (r *Ranger) voteNode(e *vine.Editor, lv LinkVote) (*forest.Node, error) {
	if err := checkVote(lv); err != nil {
		return nil, err
	}
	if forest.IsSystem(lv.ID) || (r.scope != nil && !r.scope.InScope(lv.ID)) {
		return nil, noProposal(lv)
	}
	n, err := e.Node(lv.ID)
	if vine.CodeOf(err) == vine.ENotFound {
		return nil, noProposal(lv)
	}
	return n, err
}

// castVote applies lv to n in place and says what it did. The link must
// be there; reject needs a managed one.
func castVote(n *forest.Node, lv LinkVote) (string, error) {
	found, managed := false, false
	for _, l := range n.Links() {
		if l.Rel == lv.Rel && l.Target == lv.Target {
			found = true
			_, ok := Managed(l)
			managed = managed || ok
		}
	}
	switch {
	case !found:
		return "", noProposal(lv)
	case !managed && lv.Vote == Accept:
		return Unchanged, nil
	case !managed:
		return "", envelope.New(envelope.Schema, "reject refused: "+lv.String()+" is not a proposal (its confidence is 1.0 or a person's)",
			"reject removes proposals below 1.0; edit the node to remove a confirmed link")
	case lv.Vote == Accept:
		one := 1.0
		rewriteLink(n, lv.Rel, lv.Target, &one)
		return Accepted, nil
	}
	rewriteLink(n, lv.Rel, lv.Target, nil)
	return Rejected, nil
}

// noProposal is the one answer for a link that is not there, whether the
// node is missing or lacks it.
func noProposal(lv LinkVote) error {
	return envelope.New(envelope.NotFound, "no such link: "+lv.String(),
		"vote on a link of the node's links; the health report's uncertain_links counts the proposals")
}

// Proposal is one link a person may vote on: a managed link (a numeric
// confidence below 1.0 on a rel that is not structural).
type Proposal struct {
	ID         string  `json:"id"`
	Rel        string  `json:"rel"`
	Target     string  `json:"target"`
	Confidence float64 `json:"confidence"`
}

// Proposals lists the forest's proposals as the files hold them now, in
// id order, so a console shows what a person reads before voting. With
// WithScope it lists only the proposals whose two ends the voter sees. It
// writes nothing and works on a read-only Vine.
func (r *Ranger) Proposals(ctx context.Context) ([]Proposal, error) {
	props, err := r.proposals(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Proposal, 0, len(props))
	for _, p := range props {
		if r.scope != nil && (!r.scope.InScope(p.id) || !r.scope.InScope(p.target)) {
			continue
		}
		out = append(out, Proposal{ID: p.id, Rel: p.rel, Target: p.target, Confidence: p.confidence})
	}
	slices.SortStableFunc(out, func(a, b Proposal) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
