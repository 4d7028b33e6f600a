// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/trails"
)

// Answerer answers questions over forests with one bound model. It keeps
// one answer store per forest, opened on first use. It is safe for
// concurrent use; Close releases the stores.
type Answerer struct {
	model    Model   // nil: every forest's model comes from modelFor
	binding  Binding // model's, defaults filled
	modelFor func(context.Context, *vine.Vine) (Model, Binding, bool)
	now      func() time.Time
	storeOp  StoreOptions
	storeBy  func(context.Context, *vine.Vine) StoreOptions
	rates    func(string) (Rates, bool)
	scopeOf  func(context.Context) string
	log      *slog.Logger

	mu     sync.Mutex
	stores map[string]*store // forest dir -> its store
	closed bool

	flights flights // coalesced sweep misses

	prompterFor func(context.Context, *vine.Vine) Prompter
}

// New returns an Answerer for model m. opts may be nil; m may be nil
// when opts.ModelFor chooses each forest's model.
func New(m Model, opts *Options) *Answerer {
	var o Options
	if opts != nil {
		o = *opts
	}
	a := &Answerer{model: m, binding: resolveBinding(m, o.Binding), modelFor: o.ModelFor, now: o.Now, storeOp: o.Store,
		storeBy: o.StoreSettings, rates: o.Rates, scopeOf: o.ScopeKey, log: o.Logger, stores: map[string]*store{},
		prompterFor: o.Prompter}
	if a.now == nil {
		a.now = time.Now
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	return a
}

// resolveBinding fills b's defaults: the completion cap, and the model's
// own name when b names none.
func resolveBinding(m Model, b Binding) Binding {
	if b.MaxTokens <= 0 {
		b.MaxTokens = DefaultMaxTokens
	}
	if b.Model == "" {
		if named, ok := m.(interface{ Model() string }); ok {
			b.Model = named.Model()
		}
	}
	return b
}

// bound is the model one call answers with, and its binding.
type bound struct {
	model   Model
	binding Binding
}

// bind chooses the model of a call on v: the forest's own when the host
// binds one (Options.ModelFor), else the Answerer's.
func (a *Answerer) bind(ctx context.Context, v *vine.Vine) (bound, error) {
	if a.modelFor != nil {
		if m, b, ok := a.modelFor(ctx, v); ok && m != nil {
			return bound{m, resolveBinding(m, b)}, nil
		}
	}
	if a.model == nil {
		return bound{}, envelope.New(envelope.Schema, "no answer model is bound to this forest",
			"an administrator binds the answer role to a provider's model (POST /v1/admin/models)")
	}
	return bound{a.model, a.binding}, nil
}

// Binding is the resolved binding the Answerer keys its store on.
func (a *Answerer) Binding() Binding { return a.binding }

// Answer answers question over v: a sweep when p.Hops is 0, else a walk.
// Retrieval runs with ctx, so a policy it carries (vine.Scoped.Context)
// filters every read before the model sees anything; the Answerer never
// widens it. Refusals are *vine.Error (E_SCHEMA for bad parameters and
// provider failures); a sweep below its evidence floor is a Response with
// Reason set, not an error.
func (a *Answerer) Answer(ctx context.Context, v *vine.Vine, question string, p Params) (*Response, error) {
	if p.Hops != 0 {
		return a.Walk(ctx, v, question, p)
	}
	return a.Sweep(ctx, v, question, p)
}

// Close releases every forest's store. Answers after Close fail.
func (a *Answerer) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	var errs []error
	for dir, s := range a.stores {
		errs = append(errs, s.close())
		delete(a.stores, dir)
	}
	return errors.Join(errs...)
}

// settingsOf are the store settings of v's forest now.
func (a *Answerer) settingsOf(ctx context.Context, v *vine.Vine) StoreOptions {
	if a.storeBy != nil {
		return a.storeBy(ctx, v)
	}
	return a.storeOp
}

// storeFor returns the forest's store, or nil when the store is disabled
// or cannot open (answers still run; the failure is logged).
func (a *Answerer) storeFor(ctx context.Context, v *vine.Vine) (*store, error) {
	opt := a.settingsOf(ctx, v)
	if opt.Disabled {
		return nil, nil
	}
	s, err := a.openFor(ctx, v, opt)
	if s != nil {
		s.bound(opt)
	}
	return s, err
}

// openFor returns the forest's store, opening it on first use whether or
// not it is enabled: its statistics and its clearing are there either way.
func (a *Answerer) openFor(ctx context.Context, v *vine.Vine, opt StoreOptions) (*store, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, envelope.New(envelope.Internal, "answer: the answerer is closed", "")
	}
	if s, ok := a.stores[v.Dir()]; ok {
		return s, nil
	}
	s, err := openStore(ctx, v.Dir(), opt, a.now)
	if err != nil {
		a.log.Warn("answer store unavailable; answering without it", "err", err)
		return nil, nil
	}
	a.stores[v.Dir()] = s
	return s, nil
}

// StoreStats reports v's answer store.
func (a *Answerer) StoreStats(ctx context.Context, v *vine.Vine) (StoreStats, error) {
	s, err := a.openFor(ctx, v, a.settingsOf(ctx, v))
	if err != nil || s == nil {
		return StoreStats{}, err
	}
	return s.stats(ctx)
}

// ClearStore drops every stored answer of v; the tallies stay.
func (a *Answerer) ClearStore(ctx context.Context, v *vine.Vine) error {
	s, err := a.openFor(ctx, v, a.settingsOf(ctx, v))
	if err != nil || s == nil {
		return err
	}
	return s.clear(ctx)
}

// scope is the canonical scope component of the store key.
func (a *Answerer) scope(ctx context.Context) string {
	if a.scopeOf == nil {
		return Unrestricted
	}
	return a.scopeOf(ctx)
}

// session is the call's trace and heat session: the caller's lab session,
// else a fresh one, never the transport's, so a slice of the trace is
// this call's alone and a close ends only this hunt.
func session(p Params) string {
	if p.Session != "" {
		return p.Session
	}
	return trails.NewSession()
}

// settle closes the call's session (Part D): success with evidence
// whispers heat on it (and the indexes of its trails) and may suggest
// shortcuts. Telemetry never fails an answer: a failed close is logged.
func (a *Answerer) settle(ctx context.Context, v *vine.Vine, q *query, res *Response) {
	if q.p.LeaveOpen {
		return
	}
	success := res.Answer != "" && !res.Truncated && len(res.Evidence) > 0
	var nodes []string
	if success {
		nodes = res.Evidence
	}
	out, err := v.CloseSession(ctx, success, nodes)
	if err != nil {
		a.log.Warn("answer session not closed", "err", err)
		return
	}
	res.Outcome = out
}

// complete runs one model call, timing it and reading its content at the
// one place content is read.
func (a *Answerer) complete(ctx context.Context, q *query, msgs []Message, maxTokens int) (turn, error) {
	start := time.Now()
	r, err := q.bound.model.Complete(ctx, msgs, maxTokens)
	ms := round3(float64(time.Since(start).Microseconds()) / 1000)
	if err != nil {
		if ctx.Err() != nil {
			return turn{}, ctx.Err()
		}
		// Provider failures answer E_SCHEMA for parity with the original
		// (§8 open point 12); the detail goes in the hint, clipped.
		return turn{}, envelope.New(envelope.Schema, "answer failed: the model call did not complete",
			clip(err.Error(), 300))
	}
	if r == nil {
		return turn{}, envelope.New(envelope.Schema, "answer failed: the model returned no reply", "")
	}
	t := read(r)
	t.ms = ms
	return t, nil
}

// cost prices usage when the provider publishes rates; unpriced is
// priced: false with no dollars, never 0.00.
func (a *Answerer) cost(q *query, u *Usage) *Cost {
	c := &Cost{PromptTokens: u.Prompt, CompletionTokens: u.Completion, Calls: u.Calls}
	if a.rates == nil {
		return c
	}
	r, ok := a.rates(q.bound.binding.Model)
	if !ok {
		return c
	}
	p, k := float64(u.Prompt)*r.PromptUSD, float64(u.Completion)*r.CompletionUSD
	total := p + k
	c.Priced, c.PromptUSD, c.CompletionUSD, c.USD = true, &p, &k, &total
	return c
}

// cut sets the cut facts of the last turn (J.10.8): "stop" or none says
// nothing, "length" (or a cut the provider reported) is truncated with
// its reason, any other reason is echoed alone.
func (res *Response) cut(t turn) {
	if t.truncated {
		res.Truncated = true
	}
	if t.finish != "" && t.finish != "stop" {
		res.FinishReason = t.finish
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
