// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/terms"
)

// walkTools is the walk's whitelist (J.10.5).
var walkTools = []string{"locate", "sniff", "look", "move", "pick", "scan", "query", "coverage", "calendar"}

// WalkTools returns the walk's whitelist (J.10.5): the read primitives,
// with coverage and calendar for questions about the corpus as a whole.
// Nothing else is offered, whatever the caller may do; view is not.
func WalkTools() []string { return slices.Clone(walkTools) }

// windowed are the tools the caller's window is merged into, last.
var windowed = []string{"locate", "sniff", "scan", "calendar"}

// Walk answers question with a tool loop (J.10.5): the model reads the
// forest through the whitelisted primitives, one call per turn, for at
// most the hop budget (p.Hops, 0 meaning DefaultHops), then must answer.
// Every call goes through the forest's Call with ctx, so a policy in ctx
// filters what the model sees. p.OnHop observes each hop as it lands.
// An unchanged forest (same HEAD, same day) serves a stored walk whole.
func (a *Answerer) Walk(ctx context.Context, v *vine.Vine, question string, p Params) (*Response, error) {
	if p.Hops == 0 {
		p.Hops = DefaultHops
	}
	q, err := validate(question, p)
	if err != nil {
		return nil, err
	}
	if q.bound, err = a.bind(ctx, v); err != nil {
		return nil, err
	}
	q.prompter = a.prompter(ctx, v)
	sess := session(p)
	cctx := vine.WithSession(ctx, sess)
	today := a.now().Format(time.DateOnly) // one reading of the clock: the prompt's date is the key's
	st, key, err := a.walkStore(cctx, v, q, today)
	if err != nil {
		a.closeQuietly(cctx, v, q)
		return nil, err
	}
	if st != nil && !p.NoCache {
		if hit := a.walkHit(cctx, v, st, key); hit != nil {
			a.settle(cctx, v, q, hit)
			return hit.project(q.detail), nil
		}
	}
	w := newWalker(cctx, a, v, q, today)
	mark := traceMark(v.Dir(), sess)
	res, err := w.run()
	if err != nil {
		a.closeQuietly(cctx, v, q)
		return nil, err
	}
	res.Trace = w.trace(traceSince(v.Dir(), sess, mark), res.Model)
	if st != nil && storable(res) {
		a.keep(cctx, st, key, q.question, "", res)
	}
	a.settle(cctx, v, q, res)
	return res.project(q.detail), nil
}

// walkStore returns the forest's store and the walk's key, or a nil
// store when the store is off or HEAD cannot be read (a key without HEAD
// would outlive commits).
func (a *Answerer) walkStore(ctx context.Context, v *vine.Vine, q *query, today string) (*store, string, error) {
	st, err := a.storeFor(ctx, v)
	if err != nil || st == nil {
		return nil, "", err
	}
	repo, err := gitops.Open(v.Dir())
	if err != nil {
		return nil, "", nil
	}
	head, err := repo.Head()
	if err != nil || head == "" {
		return nil, "", nil
	}
	return st, a.walkKey(q, terms.Derive(q.question), a.scope(ctx), head, today), nil
}

// walkHit serves a stored walk whole, with cached and cached_at, when
// every node it mentions is visible to this caller. No trace event is
// appended.
func (a *Answerer) walkHit(ctx context.Context, v *vine.Vine, st *store, key string) *Response {
	e, ok, err := st.get(ctx, key)
	if err != nil {
		a.log.Warn("answer store read failed", "err", err)
		return nil
	}
	if !ok {
		a.missed(ctx, st)
		return nil
	}
	var res Response
	if err := json.Unmarshal(e.response, &res); err != nil || !a.visible(ctx, v, &res) {
		a.missed(ctx, st)
		return nil
	}
	if err := st.served(ctx, e); err != nil {
		a.log.Warn("answer store tally not written", "err", err)
	}
	res.Cached, res.CachedAt, res.Outcome = true, e.created, nil
	return &res
}

func (a *Answerer) missed(ctx context.Context, st *store) {
	if err := st.missed(ctx); err != nil {
		a.log.Warn("answer store tally not written", "err", err)
	}
}

// visible reports whether the caller sees every node a stored walk
// mentions: a safety net under the scope component of the key, so an
// answer read under a wider view never reaches a narrower one.
func (a *Answerer) visible(ctx context.Context, v *vine.Vine, res *Response) bool {
	ids := mentioned(res)
	if len(ids) == 0 {
		return true
	}
	recs, err := v.Records(ctx, ids)
	return err == nil && len(recs) == len(ids)
}

// mentioned lists, once each, every node id a response names.
func mentioned(res *Response) []string {
	var ids []string
	add := func(list ...string) {
		for _, id := range list {
			if id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	add(res.Evidence...)
	add(res.AnswerNodes...)
	for _, s := range res.Sources {
		add(s.ID)
	}
	for _, r := range res.Read {
		add(r.ID)
	}
	for _, h := range res.Hops {
		if h.OK { // a refused hop's id is the model's own word, not a read
			add(h.ID)
			add(h.IDs...)
		}
	}
	return ids
}
