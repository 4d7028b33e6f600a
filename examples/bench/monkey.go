// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/trails"
)

// monkey is the walk: the model explores with the read primitives.
type monkey struct {
	a          *answer.Answerer
	v          *vine.Vine
	m          *meter
	hops, k    int
	replyToken int
}

func (mk *monkey) Name() string { return "monkey" }

// Ask walks once. The session is left open and closed as a failure, so
// the bench deposits no heat: an arm run first must not warm the forest
// for the arms after it.
func (mk *monkey) Ask(ctx context.Context, q Question) (Trial, error) {
	spent := mk.m.reset()
	sess := trails.NewSession()
	defer mk.v.CloseSession(vine.WithSession(ctx, sess), false, nil)
	var pending bool
	calls, bananaAt, bananaTurn := 0, 0, 0
	res, err := mk.a.Walk(ctx, mk.v, q.Question, answer.Params{
		Hops: mk.hops, K: mk.k, ReplyTokens: mk.replyToken, NoCache: true, Session: sess, LeaveOpen: true,
		Call: func(ctx context.Context, tool string, args []byte) (any, error) {
			out, err := mk.v.Call(ctx, tool, args)
			pending = err == nil && (tool == "pick" || tool == "query") && readsBanana(args, q.ExpectedNodes)
			return out, err
		},
		OnHop: func(h answer.Hop) {
			calls++
			if pending && bananaAt == 0 {
				bananaAt, bananaTurn = calls, h.N
			}
		},
	})
	if err != nil {
		return Trial{}, err
	}
	t := Trial{Answer: res.Answer, AnswerNodes: res.AnswerNodes, Truncated: res.Truncated}
	if bananaAt > 0 { // the turn after the hop is the call that read its result
		tok, _ := spent(bananaTurn + 1)
		t.HopsToBanana, t.TokensToBanana = &bananaAt, &tok
	}
	t.Tokens, t.Calls = spent(-1)
	return t, nil
}

// readsBanana reports whether a pick or query addresses an expected node
// (one id or a list).
func readsBanana(args []byte, expected []string) bool {
	var a struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(args, &a) != nil {
		return false
	}
	var one string
	if json.Unmarshal(a.ID, &one) == nil {
		return slices.Contains(expected, one)
	}
	var many []string
	if json.Unmarshal(a.ID, &many) == nil {
		for _, id := range many {
			if slices.Contains(expected, id) {
				return true
			}
		}
	}
	return false
}

// sweep is the answer composite's default: one harvest, one call.
type sweep struct {
	a          *answer.Answerer
	v          *vine.Vine
	m          *meter
	k          int
	replyToken int
}

func (s *sweep) Name() string { return "sweep" }

func (s *sweep) Ask(ctx context.Context, q Question) (Trial, error) {
	spent := s.m.reset()
	sess := trails.NewSession()
	defer s.v.CloseSession(vine.WithSession(ctx, sess), false, nil)
	res, err := s.a.Sweep(ctx, s.v, q.Question, answer.Params{K: s.k, ReplyTokens: s.replyToken, NoCache: true,
		Session: sess, LeaveOpen: true})
	if err != nil {
		return Trial{}, err
	}
	t := Trial{Answer: res.Answer, AnswerNodes: res.AnswerNodes, Truncated: res.Truncated}
	for _, id := range res.Evidence {
		if slices.Contains(q.ExpectedNodes, id) {
			one := 1
			tok, _ := spent(1)
			t.HopsToBanana, t.TokensToBanana = &one, &tok
			break
		}
	}
	t.Tokens, t.Calls = spent(-1)
	return t, nil
}
