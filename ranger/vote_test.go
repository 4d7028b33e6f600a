// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/ranger"
)

// The votes' second node: a proposal at 0.3, a confirmed link at 1.0 and
// a person's link without confidence, all from one node.
const (
	voteSrc      = "concepts/beaufort-scale"
	proposalRel  = "related-to"
	proposalDst  = "operations/departure-checklist"
	confirmedDst = "finance/budget-rules"
	authoredDst  = "finance/ledger-2026"
)

func openVoteFixture(t *testing.T) (*vine.Vine, string) {
	t.Helper()
	v, dir, _ := openFixture(t, func(dir string, _ *fixture.Manifest) {
		editNode(t, dir, voteSrc, func(n *forest.Node) {
			addLinks(n, link(proposalRel, proposalDst, 0.3), link(proposalRel, confirmedDst, 1.0),
				link(proposalRel, authoredDst, nil))
		})
	})
	return v, dir
}

func confidenceOf(t *testing.T, dir, id, rel, target string) []any {
	t.Helper()
	var out []any
	for _, e := range entriesFor(readNode(t, dir, id), rel, target) {
		c, _ := e.Get("confidence")
		out = append(out, c)
	}
	return out
}

func TestAcceptLinkConfirmsAProposal(t *testing.T) {
	v, dir := openVoteFixture(t)
	r := newRanger(t, v)
	base := head(t, dir)
	ctx := context.Background()

	res, err := r.AcceptLink(ctx, shortcutSrc, "discovered-shortcut", shortcutTarget)
	require.NoError(t, err)
	assert.Equal(t, ranger.Accepted, res.Result)
	assert.Equal(t, head(t, dir), res.Commit)
	assert.EqualValues(t, []any{1.0}, confidenceOf(t, dir, shortcutSrc, "discovered-shortcut", shortcutTarget))
	assert.Equal(t, []commit{{
		Subject: gitops.LinkVoteSubject("accept", shortcutSrc, "discovered-shortcut", shortcutTarget),
		Files:   []string{shortcutSrc + forest.NodeExt},
	}}, commitsSince(t, dir, base), "one audited commit of the one .md")
	updated, _ := readNode(t, dir, shortcutSrc).Front.Get("updated")
	assert.Equal(t, now.Format("2006-01-02"), updated)

	// Accepted is out of management: a cold sweep no longer prunes it,
	// and the health report no longer counts it.
	tended, err := r.TendLinks(ctx)
	require.NoError(t, err)
	assert.NotContains(t, tended.Pruned, shortcutSrc+" discovered-shortcut->"+shortcutTarget)
	assert.EqualValues(t, []any{1.0}, confidenceOf(t, dir, shortcutSrc, "discovered-shortcut", shortcutTarget))

	// Again, and on a link at 1.0 or without confidence: unchanged, no
	// commit, no error (a retried batch).
	tip := head(t, dir)
	for _, dst := range []struct{ id, rel, target string }{
		{shortcutSrc, "discovered-shortcut", shortcutTarget},
		{voteSrc, proposalRel, confirmedDst}, {voteSrc, proposalRel, authoredDst},
	} {
		res, err := r.AcceptLink(ctx, dst.id, dst.rel, dst.target)
		require.NoError(t, err, dst.target)
		assert.Equal(t, ranger.Unchanged, res.Result, dst.target)
		assert.Empty(t, res.Commit, dst.target)
	}
	assert.Equal(t, tip, head(t, dir))
}

func TestRejectLinkRemovesAProposal(t *testing.T) {
	v, dir := openVoteFixture(t)
	r := newRanger(t, v)
	base := head(t, dir)

	res, err := r.RejectLink(context.Background(), voteSrc, proposalRel, proposalDst)
	require.NoError(t, err)
	assert.Equal(t, ranger.Rejected, res.Result)
	assert.Empty(t, confidenceOf(t, dir, voteSrc, proposalRel, proposalDst), "the proposal is gone")
	assert.Len(t, confidenceOf(t, dir, voteSrc, proposalRel, confirmedDst), 1, "the other links stay")
	assert.Len(t, confidenceOf(t, dir, voteSrc, proposalRel, authoredDst), 1)
	assert.Equal(t, []commit{{
		Subject: gitops.LinkVoteSubject("reject", voteSrc, proposalRel, proposalDst),
		Files:   []string{voteSrc + forest.NodeExt},
	}}, commitsSince(t, dir, base))

	// The fixture's shortcut sits beside its node's other links, which
	// stay as they were.
	others := func() []string {
		var out []string
		for _, l := range readNode(t, dir, shortcutSrc).Links() {
			if l.Rel != "discovered-shortcut" {
				out = append(out, l.Rel+"->"+l.Target)
			}
		}
		return out
	}
	before := others()
	_, err = r.RejectLink(context.Background(), shortcutSrc, "discovered-shortcut", shortcutTarget)
	require.NoError(t, err)
	assert.Empty(t, confidenceOf(t, dir, shortcutSrc, "discovered-shortcut", shortcutTarget))
	assert.Equal(t, before, others())
}

func TestRefusedVotesWriteNothing(t *testing.T) {
	v, dir := openVoteFixture(t)
	r := newRanger(t, v, ranger.WithScope(scopeFunc(func(id string) bool { return id != "finance/budget-rules" })))
	ctx := context.Background()
	digest := testforest.TreeDigest(t, dir)
	absent := envelope.New(envelope.NotFound, "", "")
	for _, tc := range []struct {
		name string
		vote ranger.LinkVote
		code envelope.Code
	}{
		{"reject at 1.0", ranger.LinkVote{ID: voteSrc, Rel: proposalRel, Target: confirmedDst, Vote: ranger.Reject}, envelope.Schema},
		{"reject a person's link", ranger.LinkVote{ID: voteSrc, Rel: proposalRel, Target: authoredDst, Vote: ranger.Reject}, envelope.Schema},
		{"no such node", ranger.LinkVote{ID: "concepts/nowhere", Rel: proposalRel, Target: proposalDst, Vote: ranger.Accept}, absent.Code},
		{"no such link", ranger.LinkVote{ID: voteSrc, Rel: "author", Target: proposalDst, Vote: ranger.Accept}, absent.Code},
		{"other rel", ranger.LinkVote{ID: voteSrc, Rel: proposalRel, Target: "concepts/nowhere", Vote: ranger.Reject}, absent.Code},
		{"system node", ranger.LinkVote{ID: "_meta/schema", Rel: proposalRel, Target: proposalDst, Vote: ranger.Accept}, absent.Code},
		{"escape", ranger.LinkVote{ID: "../outside", Rel: proposalRel, Target: proposalDst, Vote: ranger.Accept}, absent.Code},
		{"out of scope", ranger.LinkVote{ID: "finance/budget-rules", Rel: proposalRel, Target: proposalDst, Vote: ranger.Accept}, absent.Code},
		{"bad vote", ranger.LinkVote{ID: voteSrc, Rel: proposalRel, Target: proposalDst, Vote: "maybe"}, envelope.Schema},
		{"no rel", ranger.LinkVote{ID: voteSrc, Target: proposalDst, Vote: ranger.Accept}, envelope.Schema},
	} {
		_, err := r.Vote(ctx, []ranger.LinkVote{tc.vote})
		require.Error(t, err, tc.name)
		assert.Equal(t, tc.code, envelope.CodeOf(err), tc.name)
		if tc.code == envelope.NotFound {
			assert.Equal(t, "no such link: "+tc.vote.String(), vine.AsError("vote", err).Message,
				"%s: one answer for every absent link, hidden or not", tc.name)
		}
		assert.Equal(t, digest, testforest.TreeDigest(t, dir), tc.name)
	}

	// A group is checked whole before its first write: one bad vote
	// refuses all, and a reject after an accept of the same link too.
	good := ranger.LinkVote{ID: voteSrc, Rel: proposalRel, Target: proposalDst, Vote: ranger.Accept}
	for _, group := range [][]ranger.LinkVote{
		{good, {ID: voteSrc, Rel: "author", Target: proposalDst, Vote: ranger.Reject}},
		{good, {ID: voteSrc, Rel: proposalRel, Target: proposalDst, Vote: ranger.Reject}},
	} {
		_, err := r.Vote(ctx, group)
		require.Error(t, err)
		assert.Equal(t, digest, testforest.TreeDigest(t, dir), "a refused group writes nothing")
	}

	ro, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	_, err = newRanger(t, ro).AcceptLink(ctx, voteSrc, proposalRel, proposalDst)
	assert.Equal(t, envelope.ReadOnly, envelope.CodeOf(err))
	assert.Equal(t, digest, testforest.TreeDigest(t, dir))
}

func TestVoteGroupCommitsEachVote(t *testing.T) {
	v, dir := openVoteFixture(t)
	r := newRanger(t, v)
	base := head(t, dir)
	res, err := r.Vote(context.Background(), []ranger.LinkVote{
		{ID: voteSrc, Rel: proposalRel, Target: proposalDst, Vote: ranger.Reject},
		{ID: shortcutSrc, Rel: "discovered-shortcut", Target: shortcutTarget, Vote: ranger.Accept},
		{ID: voteSrc, Rel: proposalRel, Target: confirmedDst, Vote: ranger.Accept},
	})
	require.NoError(t, err)
	require.Len(t, res, 3)
	assert.Equal(t, []string{ranger.Rejected, ranger.Accepted, ranger.Unchanged},
		[]string{res[0].Result, res[1].Result, res[2].Result})
	commits := commitsSince(t, dir, base)
	require.Len(t, commits, 2, "one commit per change, none for the unchanged")
	assert.Equal(t, gitops.LinkVoteSubject("accept", shortcutSrc, "discovered-shortcut", shortcutTarget), commits[0].Subject)
	assert.Equal(t, gitops.LinkVoteSubject("reject", voteSrc, proposalRel, proposalDst), commits[1].Subject)
}

type scopeFunc func(id string) bool

func (f scopeFunc) InScope(id string) bool { return f(id) }

func TestProposals(t *testing.T) {
	v, dir := openVoteFixture(t)
	digest := testforest.TreeDigest(t, dir)
	got, err := newRanger(t, v).Proposals(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []ranger.Proposal{
		{ID: voteSrc, Rel: proposalRel, Target: proposalDst, Confidence: 0.3},
		{ID: shortcutSrc, Rel: "discovered-shortcut", Target: shortcutTarget, Confidence: 0.5},
	}, got, "the managed links only, in id order")

	hidden := scopeFunc(func(id string) bool { return id != proposalDst })
	got, err = newRanger(t, v, ranger.WithScope(hidden)).Proposals(context.Background())
	require.NoError(t, err)
	assert.Empty(t, got, "a proposal with a hidden end is not listed")
	assert.Equal(t, digest, testforest.TreeDigest(t, dir), "listing writes nothing")
}
