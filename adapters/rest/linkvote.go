// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ranger"
)

// The vote on proposed links (spec 07 H.2.1): a person accepts or rejects
// the links an agent or the curator proposed. It is REST's (and the
// shell's) alone: a model must not confirm its own proposal, so MCP has
// no such tool. One POST may carry a group of votes, each named link by
// link; there is no "accept all", which would accept what nobody read.

// maxVotes bounds one group: a console sends a page it showed, not the
// forest.
const maxVotes = 200

// linkVoteRequest is the body of POST /v1/forests/{forest}/links/vote.
type linkVoteRequest struct {
	Votes []ranger.LinkVote `json:"votes"`
}

// linkVoteSchema describes the body in the OpenAPI document.
var linkVoteSchema = doc{"type": "object", "required": []any{"votes"}, "additionalProperties": false,
	"properties": doc{"votes": doc{"type": "array", "minItems": 1, "maxItems": maxVotes,
		"items": doc{"type": "object", "required": []any{"id", "rel", "target", "vote"}, "additionalProperties": false,
			"properties": doc{"id": doc{"type": "string", "description": "the node whose links hold the proposal"},
				"rel": doc{"type": "string"}, "target": doc{"type": "string"},
				"vote": doc{"type": "string", "enum": []any{ranger.Accept, ranger.Reject}}}}}}}

// linkVoteAnswer is its answer; Commit is the last commit the group made
// (each vote's own is in Votes), for the audit row.
type linkVoteAnswer struct {
	Votes  []ranger.VoteResult `json:"votes"`
	Commit string              `json:"commit,omitempty"`
}

// voteLinks serves POST /v1/forests/{forest}/links/vote {votes:[{id, rel,
// target, vote}]}: the forest granted, the write capability, then the
// votes, each node in the key's scope (out of scope answers as a link
// that is not there, E_NOT_FOUND). The group is checked whole before
// its first commit; each change is its own commit stamped with the
// caller's principal.
func (s *Server) voteLinks(w http.ResponseWriter, r *http.Request) {
	const op = "link-vote"
	note := s.noteCall(r, r.PathValue("forest"), op)
	ctx := r.Context()
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	if !pol.Has(vine.CapWrite) {
		s.refuse(w, op, needsCaps(op, pol.Caps, vine.CapWrite))
		return
	}
	body, err := s.readBody(w, r, op)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setArgs(func() record.Args { return record.Digest(op, body) })
	votes, err := decodeVotes(body)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	ctx = stamped(ctx, who)
	var ans linkVoteAnswer
	err = s.on(ctx, who, id, false, func(v *vine.Vine) error {
		sc, err := v.Scoped(pol)
		if err != nil {
			return err
		}
		rg, err := ranger.New(v, ranger.WithoutGC(), ranger.WithScope(sc))
		if err != nil {
			return err
		}
		ans.Votes, err = rg.Vote(ctx, votes)
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	for _, v := range ans.Votes {
		if v.Commit != "" {
			ans.Commit = v.Commit
		}
	}
	note.setCommit(ans)
	s.writeJSON(w, op, http.StatusOK, ans)
}

// decodeVotes reads the body strictly: unknown fields, an empty group and
// an oversized one are E_SCHEMA naming the parameter.
func decodeVotes(body []byte) ([]ranger.LinkVote, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req linkVoteRequest
	if err := dec.Decode(&req); err != nil {
		return nil, envelope.New(envelope.Schema, "link-vote: the body is not {\"votes\": [{id, rel, target, vote}]}: "+err.Error(),
			`send {"votes": [{"id": "a/b", "rel": "related-to", "target": "c/d", "vote": "accept"}]}`)
	}
	switch {
	case len(req.Votes) == 0:
		return nil, envelope.New(envelope.Schema, "parameter 'votes' is required: name each link voted on",
			"there is no accept-all: a vote names the link it decides")
	case len(req.Votes) > maxVotes:
		return nil, envelope.New(envelope.Schema, fmt.Sprintf("parameter 'votes' holds %d votes, more than %d", len(req.Votes), maxVotes),
			"send the votes of one page at a time")
	}
	return req.Votes, nil
}

// proposalLimit bounds one listing, as the map routes bound theirs.
const (
	proposalLimit    = 2000
	proposalLimitMax = 10000
)

// listProposals serves GET /v1/forests/{forest}/links?limit=: the
// proposals a person may vote on, both ends in the key's scope, in id
// order; at the limit truncated is true, never a silent sample. It needs
// read: seeing a proposal is reading two nodes' links.
func (s *Server) listProposals(w http.ResponseWriter, r *http.Request) {
	const op = "links"
	ctx := r.Context()
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err == nil && !pol.Has(vine.CapRead) {
		err = needsCaps(op, pol.Caps, vine.CapRead)
	}
	var limit int
	if err == nil {
		limit, err = proposalsLimit(r)
	}
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	var props []ranger.Proposal
	err = s.scoped(ctx, who, id, pol, func(v *vine.Vine, sc *vine.Scoped) error {
		rg, err := ranger.New(v, ranger.WithoutGC(), ranger.WithScope(sc))
		if err != nil {
			return err
		}
		props, err = rg.Proposals(ctx)
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	truncated := len(props) > limit
	s.writeJSON(w, op, http.StatusOK, map[string]any{"links": props[:min(limit, len(props))], "truncated": truncated})
}

// proposalsLimit reads ?limit= (the only parameter), clamped to
// [1, proposalLimitMax]; absent means proposalLimit.
func proposalsLimit(r *http.Request) (int, error) {
	q := r.URL.Query()
	for name := range q {
		if name != "limit" {
			return 0, envelope.New(envelope.Schema, "unknown query parameter: "+name, "this route accepts: limit.")
		}
	}
	n, err := vine.ParseMapLimit(q.Get("limit"))
	if err != nil || n == 0 {
		return proposalLimit, err
	}
	return min(n, proposalLimitMax), nil
}
