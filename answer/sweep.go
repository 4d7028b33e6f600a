// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/harvest"
)

// Sweep answers question from one harvest and one model call (J.10.3):
// retrieve through the caller's view, refuse below the evidence floor
// before any model call, serve an unchanged reading from the store, else
// ask the model once and settle (store, whisper). p.Hops is ignored.
func (a *Answerer) Sweep(ctx context.Context, v *vine.Vine, question string, p Params) (*Response, error) {
	p.Hops = 0
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
	sw, err := a.prepare(cctx, v, q, sess)
	if err != nil {
		return nil, err
	}
	if sw.done != nil {
		return sw.done.project(q.detail), nil
	}
	defer sw.release()
	t, err := a.generate(ctx, sw)
	if err != nil {
		a.closeQuietly(cctx, v, q)
		return nil, err
	}
	res := a.settleSweep(cctx, v, sw, t)
	return res.project(q.detail), nil
}

// sweep carries a sweep from Prepare through Generate to Settle: values
// only, so Generate touches no forest, catalog, trails or store.
type sweep struct {
	q       *query
	h       *harvest.Result
	steps   []Step // the retrieval slice, captured before any hand-off
	key, fp string
	st      *store // nil: not consulted, not stored
	corpus  int
	msgs    []Message
	done    *Response // a hit or a refusal: no model call
	release func()    // ends this sweep's leadership of its key
	exts    []string  // extensions that changed the messages ("ext:<id>")
}

// prepare is phase 1 (J.10.11): retrieval, the floor, the store.
func (a *Answerer) prepare(ctx context.Context, v *vine.Vine, q *query, sess string) (*sweep, error) {
	mark := traceMark(v.Dir(), sess)
	h, err := runHarvest(ctx, v, q)
	if err != nil {
		a.closeQuietly(ctx, v, q)
		return nil, err
	}
	if q.p.OnRetrieval != nil {
		q.p.OnRetrieval(h)
	}
	sw := &sweep{q: q, h: h, steps: steps(traceSince(v.Dir(), sess, mark)), release: func() {}}
	k := effectiveK(q.k)
	if refusal := floor(q, h, k); refusal != nil {
		refusal.Trace = newTrace(sw.steps, "", -1)
		a.closeQuietly(ctx, v, q)
		sw.done = refusal
		return sw, nil
	}
	sw.key, sw.fp = a.sweepKey(q, h.Terms, k, a.scope(ctx)), fingerprint(h)
	if len(h.Results) > 0 {
		if sw.st, err = a.storeFor(ctx, v); err != nil {
			a.closeQuietly(ctx, v, q)
			return nil, err
		}
	}
	if sw.st != nil && !q.p.NoCache {
		if hit := a.consult(ctx, v, sw); hit != nil {
			a.settle(ctx, v, q, hit) // a hosted answer whispers, hit or miss
			sw.done = hit
			return sw, nil
		}
	}
	sw.corpus = corpusSize(ctx, v)
	sw.msgs = sweepMessages(q, h, sw.corpus, a.replyCap(q))
	sw.exts = a.appendPrompt(ctx, q, "sweep", &sw.msgs[0])
	return sw, nil
}

// consult serves an entry whose reading equals this one, coalescing with
// a concurrent ask of the same key: a follower waits for the leader to
// settle, then re-checks under its own fingerprint.
func (a *Answerer) consult(ctx context.Context, v *vine.Vine, sw *sweep) *Response {
	wait, done := a.flights.join(v.Dir() + "\x00" + sw.key)
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
		}
	} else {
		sw.release = done
	}
	if hit := a.lookup(ctx, sw); hit != nil {
		sw.release()
		sw.release = func() {}
		return hit
	}
	if err := sw.st.missed(ctx); err != nil {
		a.log.Warn("answer store tally not written", "err", err)
	}
	return nil
}

// lookup returns the stored answer for the sweep's key when its reading
// is this one: answer, model, usage and cost from the record, harvest,
// evidence, sources and trace fresh.
func (a *Answerer) lookup(ctx context.Context, sw *sweep) *Response {
	e, ok, err := sw.st.get(ctx, sw.key)
	if err != nil {
		a.log.Warn("answer store read failed", "err", err)
		return nil
	}
	if !ok || e.fingerprint != sw.fp {
		return nil
	}
	var rec Response
	if err := json.Unmarshal(e.response, &rec); err != nil {
		a.log.Warn("stored answer unreadable; answering afresh", "key", sw.key[:16], "err", err)
		return nil
	}
	if err := sw.st.served(ctx, e); err != nil {
		a.log.Warn("answer store tally not written", "err", err)
	}
	res := a.sweepResponse(sw)
	res.Answer, res.AnswerNodes, res.Model, res.Usage, res.Cost = rec.Answer, rec.AnswerNodes, rec.Model, rec.Usage, rec.Cost
	res.ReasoningStripped = rec.ReasoningStripped
	res.Cached, res.CachedAt = true, e.created
	res.Trace = newTrace(sw.steps, "", -1)
	return res
}

// generate is phase 2: the one model call. It reads nothing but values.
func (a *Answerer) generate(ctx context.Context, sw *sweep) (turn, error) {
	return a.complete(ctx, sw.q, sw.msgs, a.maxTokens(sw.q))
}

// settleSweep is phase 3: the response, the store deposit, the whisper.
func (a *Answerer) settleSweep(ctx context.Context, v *vine.Vine, sw *sweep, t turn) *Response {
	res := a.sweepResponse(sw)
	res.Answer = t.text
	res.AnswerNodes = cited(t.text, res.Evidence)
	res.Model = a.modelName(sw.q, t)
	ms := t.ms
	res.ModelMS = &ms
	res.Usage = &Usage{Prompt: t.prompt, Completion: t.complete, Calls: 1}
	res.Cost = a.cost(sw.q, res.Usage)
	res.ReasoningStripped = t.stripped
	res.cut(t)
	res.Trace = newTrace(sw.steps, res.Model, t.ms)
	if sw.st != nil && storable(res) {
		a.keep(ctx, sw.st, sw.key, sw.q.question, sw.fp, res)
	}
	a.settle(ctx, v, sw.q, res)
	return res
}

// sweepResponse is what every sweep answer carries from its retrieval.
func (a *Answerer) sweepResponse(sw *sweep) *Response {
	res := &Response{Harvest: sw.h, Evidence: sw.h.NodeIDs(), ReplyTokens: sw.q.replyTokens,
		Extensions: extensionsOf(sw.h.Extensions, sw.exts)}
	res.Sources = make([]Source, 0, len(sw.h.Results))
	for _, it := range sw.h.Results {
		res.Sources = append(res.Sources, Source{ID: it.ID, Title: it.Title, Summary: it.Summary, Type: it.Type,
			Trail: it.Trail})
	}
	return res
}

// runHarvest sweeps through the forest's Call, so the policy in ctx
// applies and the read is traced like any other.
func runHarvest(ctx context.Context, v *vine.Vine, q *query) (*harvest.Result, error) {
	args := map[string]any{"query": q.question, "k": q.k, "include_superseded": q.p.IncludeSuperseded,
		"hybrid": q.p.Hybrid}
	if len(q.terms) > 0 {
		args["terms"] = q.terms
	}
	for name, val := range map[string]string{"since": q.p.Since, "until": q.p.Until, "date_field": q.p.DateField} {
		if val != "" {
			args[name] = val
		}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := v.Call(ctx, harvest.Signature.Name, raw)
	if err != nil {
		return nil, err
	}
	h, ok := out.(*harvest.Result)
	if !ok {
		return nil, envelope.New(envelope.Internal, "answer: harvest returned an unexpected shape", "")
	}
	return h, nil
}

// effectiveK is the sweep's k as harvest caps it: the cap names a sweep
// in the store, so a raised cap misses cleanly. Harvest has already
// refused a malformed cap by the time this runs.
func effectiveK(k int) int { return min(max(1, k), harvest.MaxK()) }

// floor is the evidence floor (J.10.10): items with content, at or above
// min_score when set, counted against min_evidence clamped to [0, k].
// Below it the sweep is refused before the store and the model.
func floor(q *query, h *harvest.Result, k int) *Response {
	need := min(q.minEvidence, k)
	if need == 0 {
		return nil
	}
	count, below := 0, 0
	for _, it := range h.Results {
		if len(it.Content) == 0 {
			continue
		}
		if q.minScore > 0 && it.Score < q.minScore {
			below++
			continue
		}
		count++
	}
	if count >= need {
		return nil
	}
	res := &Response{Reason: ReasonInsufficientEvidence, EvidenceCount: &count, MinEvidence: &need, Harvest: h}
	if q.minScore > 0 {
		s := q.minScore
		res.MinScore, res.BelowMinScore = &s, &below
	}
	return res
}

// corpusSize is how many nodes the caller can see, for the prompt's
// "ranked top-k of a larger corpus"; 0 when unknown.
func corpusSize(ctx context.Context, v *vine.Vine) int {
	rep, err := v.Coverage(ctx, vine.CoverageOptions{})
	if err != nil {
		return 0
	}
	return rep.Total
}

// citeRE finds the [id] citations the prompt asks for.
var citeRE = regexp.MustCompile(`\[([^\[\]\s]+)\]`)

// cited are the ids the answer cites that are among have, in citation
// order, each once. A cited id the answer never had is dropped.
func cited(text string, have []string) []string {
	var out []string
	for _, m := range citeRE.FindAllStringSubmatch(text, -1) {
		id := strings.Trim(m[1], "/")
		if slices.Contains(have, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// storable: a whole, non-empty answer standing on evidence, not itself
// served from the store (J.10.7).
func storable(res *Response) bool {
	return !res.Refused() && !res.Cached && !res.Truncated && strings.TrimSpace(res.Answer) != "" &&
		len(res.Evidence) > 0
}

// keep stores res as served (trace and cost attached), replacing any
// entry under key.
func (a *Answerer) keep(ctx context.Context, st *store, key, question, fp string, res *Response) {
	body, err := json.Marshal(res)
	if err != nil {
		a.log.Warn("answer not stored", "err", err)
		return
	}
	trail, _ := json.Marshal(res.Evidence)
	e := &entry{key: key, question: question, response: body, trail: trail, fingerprint: fp}
	if res.Cost != nil && res.Cost.Priced && res.Cost.USD != nil {
		e.priced, e.usd = true, *res.Cost.USD
	}
	if err := st.put(ctx, e); err != nil {
		a.log.Warn("answer not stored", "key", key[:16], "err", err)
	}
}

// closeQuietly ends a session that produced no answer: nothing is
// deposited, and the tracer forgets its events.
func (a *Answerer) closeQuietly(ctx context.Context, v *vine.Vine, q *query) {
	if q.p.LeaveOpen {
		return
	}
	if _, err := v.CloseSession(ctx, false, nil); err != nil {
		a.log.Warn("answer session not closed", "err", err)
	}
}

// modelName is the binding's model, else the one the provider named.
func (a *Answerer) modelName(q *query, t turn) string {
	if q.bound.binding.Model != "" {
		return q.bound.binding.Model
	}
	return t.model
}

// replyCap is the reply size the prompt states: reply_tokens when set,
// else the binding's cap (reasoning allowance excluded: it is not reply).
func (a *Answerer) replyCap(q *query) int {
	if q.replyTokens > 0 {
		return q.replyTokens
	}
	return q.bound.binding.MaxTokens
}
