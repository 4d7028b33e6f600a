// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/harvest"
	"github.com/monkeyllm/vine/internal/window"
)

// Limits and defaults of the composite (J.10).
const (
	// DefaultMaxTokens is the answer binding's completion cap: room for
	// a JSON reply with its citations, which 600 tokens cut short.
	DefaultMaxTokens = 1500
	// ReasoningExtra is added to the cap when the binding turns reasoning
	// on, after any reply_tokens override.
	ReasoningExtra = 1000
	// MinReplyTokens and MaxReplyTokens clamp a caller's reply_tokens.
	MinReplyTokens = 64
	MaxReplyTokens = 4000
	// DefaultHops is the walk budget of hops: true.
	DefaultHops = 6
	// MaxHops clamps an integer hop budget.
	MaxHops = 16
	// DefaultMaxEntries bounds the answer store of one forest.
	DefaultMaxEntries = 500
	// Unrestricted is the scope component of the store key for unscoped use.
	Unrestricted = "unrestricted"
)

// Detail values project a response on the way out (J.10.13).
const (
	DetailFull    = "full"
	DetailSources = "sources"
	DetailAnswer  = "answer"
)

// Binding is the resolved model binding of the answer role: which
// provider and model answer, with what completion cap and reasoning
// switch. Every field but the Model value itself enters the store key;
// it carries no secret.
type Binding struct {
	// Provider names the provider ("llamacpp", "openai", ...).
	Provider string
	// Model names the model; "" means the Model value's own Model() name
	// when it has one.
	Model string
	// MaxTokens caps each completion; 0 means DefaultMaxTokens.
	MaxTokens int
	// Reasoning is "on" (adds ReasoningExtra to the cap), "off", or ""
	// (the provider's default).
	Reasoning string
}

// Rates are a provider's published per-token prices in US dollars.
type Rates struct {
	PromptUSD, CompletionUSD float64
}

// StoreOptions bound the answer store (J.10.7).
type StoreOptions struct {
	// Disabled turns the store off: every ask runs the model and nothing
	// is kept.
	Disabled bool
	// MaxEntries bounds the entries kept per forest; 0 means
	// DefaultMaxEntries. The oldest-served entries are evicted first.
	MaxEntries int
	// TTL expires entries (deleted on sight); 0 keeps them until evicted
	// or invalidated. It is hygiene only: invalidation is by key.
	TTL time.Duration
}

// Options configure an Answerer. The zero value answers with the model's
// defaults, the host clock, the store on and no prices.
type Options struct {
	// Binding is the model binding the store keys on.
	Binding Binding
	// Now is the host clock: today's date in the walk prompt and key.
	// Use the same clock the forest stamps created/updated with.
	Now func() time.Time
	// Store bounds the answer store.
	Store StoreOptions
	// StoreSettings, when set, gives each forest its own store settings,
	// read on every call so a change applies at once (a Station keeps them
	// per forest); nil means Store for every forest.
	StoreSettings func(ctx context.Context, v *vine.Vine) StoreOptions
	// ModelFor, when set, chooses the model per forest on every call (a
	// Station binds the answer role per forest), with its Binding; found
	// false falls back to the model given to New, and without one the
	// call is refused E_SCHEMA "no answer model is bound to this forest".
	ModelFor func(ctx context.Context, v *vine.Vine) (m Model, b Binding, found bool)
	// Rates looks up the provider's published prices for a model; nil or
	// false means unpriced (no usd is reported, never 0.00).
	Rates func(model string) (Rates, bool)
	// ScopeKey returns the canonical, opaque value naming the caller's
	// policy (allow, deny and table grants, sorted) for the store key, so
	// entries are shared within one scope and never across. Nil means
	// Unrestricted for every call; a host serving scoped principals must
	// set it. Walk entries are additionally served only when every node
	// they mention is visible to the caller.
	ScopeKey func(ctx context.Context) string
	// Logger receives what never reaches the caller (store failures).
	// Nil discards it.
	Logger *slog.Logger
	// Prompter, when set, gives a forest's prompt contribution (spec 11
	// §3, the prompt seam: the first claimant among the extensions it
	// enables), nil when it has none.
	Prompter func(ctx context.Context, v *vine.Vine) Prompter
}

// Prompter appends to answer's system message (the prompt seam): it is
// asked with the mode ("sweep" or "walk"), the question and the system
// message, and what it returns is appended, never substituted, so the
// rules on citation, refusing to invent and the budget stay. A failure
// or a reply slower than PromptDeadline leaves the message unmodified.
type Prompter interface {
	Name() string // "ext:<id>"
	Prompt(ctx context.Context, mode, question, system string) (string, error)
}

// PromptDeadline is how long a Prompter may take.
const PromptDeadline = 2 * time.Second

// Params are the parameters of one answer besides the question (J.10.2).
// The zero value is a sweep with k = 3 and every default.
type Params struct {
	// K is the number of evidence items (sweep: capped by the server as
	// harvest caps it; walk: the entry search size). 0 means 3.
	K int
	// Hops selects the mode: 0 is a sweep; ≥ 1 is a walk with that many
	// hops, clamped to [1, MaxHops]. DefaultHops is the budget of
	// hops: true on the wire.
	Hops int
	// Terms are literal body-search terms for the sweep; a walk refuses
	// them (it authors its own retrieval).
	Terms []string
	// ReplyTokens, when set, replaces the binding's cap on every call,
	// clamped to [MinReplyTokens, MaxReplyTokens].
	ReplyTokens int
	// MinEvidence and MinScore are the sweep's evidence floor (J.10.10).
	MinEvidence int
	MinScore    float64
	// NoCache skips serving from the store (retrieval still runs and a
	// storable result still replaces the entry): cache: false.
	NoCache bool
	// IncludeSuperseded keeps replaced nodes in the sweep, annotated.
	IncludeSuperseded bool
	// Since, Until and DateField window every search (C.13); the
	// caller's window overrides any bound the model writes.
	Since, Until, DateField string
	// Hybrid fuses the vector leg into entry search for this call.
	Hybrid bool
	// Detail projects the response: DetailFull (""), DetailSources or
	// DetailAnswer.
	Detail string

	// OnRetrieval, when set, receives the sweep's evidence bundle before
	// the model runs. OnHop receives each walk hop as it completes. Both
	// are called on the answering goroutine and must not block.
	OnRetrieval func(*harvest.Result)
	OnHop       func(Hop)

	// Lab knobs, for multi-walker experiments such as the Troop (Part E);
	// answer itself has no multi-agent parameter.

	// Session names the trace and heat session of the call; "" means a
	// fresh one per call. Walkers sharing a session rank with each
	// other's session heat.
	Session string
	// LeaveOpen leaves the session open: the caller closes it and decides
	// which trails earn heat. Nothing is whispered.
	LeaveOpen bool
	// Entry starts a walk at this node (its digest is the entry material)
	// instead of the synthetic locate of the question.
	Entry string
	// Call, when set, runs the walk's tool calls instead of the forest's
	// own Call (a shared cache, for one). It must keep the caller's
	// policy: pass ctx through to the forest.
	Call func(ctx context.Context, tool string, args []byte) (any, error)
}

// query is a validated ask.
type query struct {
	question    string
	k           int
	hops        int // 0: sweep
	terms       []string
	replyTokens int // 0: binding rules
	minEvidence int
	minScore    float64
	win         window.Window
	detail      string
	p           Params
	bound       bound    // the model this call answers with
	prompter    Prompter // the forest's prompt contribution, nil for none
}

// validate refuses what no work should start on (E_SCHEMA naming the
// parameter) and clamps what the specification clamps.
func validate(question string, p Params) (*query, error) {
	q := &query{question: strings.TrimSpace(question), k: p.K, terms: p.Terms, p: p,
		minEvidence: p.MinEvidence, minScore: p.MinScore}
	if q.question == "" {
		return nil, envelope.New(envelope.Schema, "answer: parameter 'question' is empty",
			"pass the question as a non-empty string")
	}
	switch p.Detail {
	case "", DetailFull:
		q.detail = DetailFull
	case DetailSources, DetailAnswer:
		q.detail = p.Detail
	default:
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("answer: parameter 'detail' got %q, expected one of full, sources, answer", p.Detail), "")
	}
	if p.Hops != 0 {
		q.hops = min(max(p.Hops, 1), MaxHops)
		if len(p.Terms) > 0 {
			return nil, envelope.New(envelope.Schema,
				"answer: parameter 'terms' cannot be combined with 'hops'",
				"a walk authors its own searches; drop terms, or drop hops to sweep with them")
		}
	}
	if q.k <= 0 {
		q.k = harvest.DefaultK
	}
	if p.ReplyTokens != 0 {
		q.replyTokens = min(max(p.ReplyTokens, MinReplyTokens), MaxReplyTokens)
	}
	q.minScore = max(q.minScore, 0)
	q.minEvidence = max(q.minEvidence, 0)
	w, err := window.Parse(p.Since, p.Until, p.DateField)
	if err != nil {
		return nil, err
	}
	q.win = w
	return q, nil
}

// maxTokens is the completion cap of every call: reply_tokens when set,
// else the binding's, plus the reasoning allowance when it is on.
func (a *Answerer) maxTokens(q *query) int {
	n := q.bound.binding.MaxTokens
	if q.replyTokens > 0 {
		n = q.replyTokens
	}
	if q.bound.binding.Reasoning == "on" {
		n += ReasoningExtra
	}
	return n
}
