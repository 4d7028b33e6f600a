// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"strings"
	"sync"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/harvest"
)

// Signature is the answer composite's entry in the engine's signature
// table. It is added only by Register, when a host binds a model, so a
// surface without a model never lists it.
var Signature = vine.Signature{
	Name: "answer",
	Doc: "Answer a question with the bound model, from this forest only. Default: one evidence sweep and one " +
		"model call, citing sources as `Title [id]`. With hops: the model explores the forest with the read " +
		"tools, one call per hop, then answers. An answer may show an image as ![caption](media:<id>); " +
		"resolve it with view(forest, id).",
	Params: []vine.Param{
		{Name: "question", Type: vine.TString, Doc: "the question (or pass it as query)"},
		{Name: "query", Type: vine.TString, Doc: "alias of question"},
		{Name: "k", Type: vine.TInteger, Default: 3, Doc: "evidence items; capped by the server"},
		{Name: "hops", Type: vine.TBoolOrInteger, Doc: "explore instead of sweeping: true for 6 hops, or 1-16"},
		{Name: "terms", Type: vine.TStringList, Doc: "literal body-search terms (sweep only)"},
		{Name: "reply_tokens", Type: vine.TInteger, Doc: "reply size, 64-4000 tokens; default the binding's"},
		{Name: "min_evidence", Type: vine.TInteger, Default: 0, Doc: "refuse without a model call below this many items with content"},
		{Name: "min_score", Type: vine.TNumber, Default: 0, Doc: "items under this score do not count toward min_evidence"},
		{Name: "cache", Type: vine.TBoolean, Default: true, Doc: "serve a stored answer when the reading is unchanged"},
		{Name: "include_superseded", Type: vine.TBoolean, Default: false, Doc: "keep replaced nodes, annotated (sweep)"},
		{Name: "since", Type: vine.TString, Doc: "window start: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "until", Type: vine.TString, Doc: "window end: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "date_field", Type: vine.TString, Default: "created", Doc: "created or updated"},
		{Name: "hybrid", Type: vine.TBoolean, Default: false, Doc: "fuse the vector leg into entry search for this call"},
		{Name: "detail", Type: vine.TString, Default: DetailFull, Enum: []string{DetailFull, DetailSources, DetailAnswer},
			Doc: "full, sources (no bundle, reads or trace) or answer (the text and flags)"},
		{Name: "run", Type: vine.TString, Doc: "a run id of your choosing: the same key may watch this call's live events " +
			"(retrieval, each hop, done) at GET …/answer/{run}/events; the answer is unchanged"},
	},
	ReadOnly: true,
}

// registering makes Register's check-then-add one step.
var registering sync.Mutex

// Register binds m as the answer model of every forest this process
// serves: it adds the answer composite to the engine's one signature
// table, so the CLI, MCP and REST surfaces list and validate it like any
// primitive. Call it once, before building servers; a second call fails.
// opts may be nil. m may be nil when opts.ModelFor chooses each forest's
// model (a forest it binds none for is then refused). The returned
// Answerer owns the answer stores; Close it on shutdown.
func Register(m Model, opts *Options) (*Answerer, error) {
	registering.Lock()
	defer registering.Unlock()
	if _, dup := vine.LookupSignature(Signature.Name); dup {
		return nil, envelope.New(envelope.Schema, "answer: a model is already bound in this process",
			"bind one model per process; reuse the Answerer Register returned")
	}
	a := New(m, opts)
	vine.Register(Signature, a.serve)
	return a, nil
}

// serve is the wire entry: arguments already validated against
// Signature by the engine.
func (a *Answerer) serve(ctx context.Context, v *vine.Vine, args vine.Args) (any, error) {
	question := args.String("question")
	if !args.Has("question") {
		question = args.String("query")
	} else if args.Has("query") && strings.TrimSpace(args.String("query")) != strings.TrimSpace(question) {
		return nil, envelope.New(envelope.Schema, "answer: 'question' and its alias 'query' differ",
			"pass the question once")
	}
	p := Params{K: args.Int("k"), Terms: args.Strings("terms"), ReplyTokens: args.Int("reply_tokens"),
		MinEvidence: args.Int("min_evidence"), MinScore: args.Float("min_score"), NoCache: !args.Bool("cache"),
		IncludeSuperseded: args.Bool("include_superseded"), Since: args.String("since"), Until: args.String("until"),
		DateField: args.String("date_field"), Hybrid: args.Bool("hybrid"), Detail: args.String("detail")}
	if hv, ok := args.Value("hops"); ok {
		switch h := hv.(type) {
		case bool:
			if h {
				p.Hops = DefaultHops
			}
		case int64:
			p.Hops = int(max(min(h, MaxHops), -1))
		}
	}
	if args.Has("terms") && len(p.Terms) == 0 {
		p.Terms = nil
	}
	if o, ok := ctx.Value(observersKey{}).(Observers); ok {
		p.OnRetrieval, p.OnHop = o.OnRetrieval, o.OnHop
	}
	return a.Answer(ctx, v, question, p)
}

// Observers watch an answer served through the signature table as it
// runs (J.10.12): a transport maps them to its own events (an SSE stream
// of retrieval, hop and done; MCP progress notifications, one per hop).
// They are called on the answering goroutine and must not block: drop an
// event rather than wait for a slow consumer.
type Observers struct {
	OnRetrieval func(*harvest.Result)
	OnHop       func(Hop)
}

type observersKey struct{}

// WithObservers returns ctx carrying o for the answer composite a
// transport calls through the signature table; library callers set
// Params.OnRetrieval and Params.OnHop instead.
func WithObservers(ctx context.Context, o Observers) context.Context {
	return context.WithValue(ctx, observersKey{}, o)
}
