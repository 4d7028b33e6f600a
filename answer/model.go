package answer

import (
	"context"
	"strings"

	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/gardener"
)

// Message is one chat message, the type the gardener's curator speaks.
type Message = gardener.Message

// Reply is one whole completion as a Model returns it.
type Reply struct {
	// Content is the reply text. Reasoning blocks (<think>…</think>) may
	// still be in it: the composite strips them at the one place it reads
	// content.
	Content string
	// FinishReason is the provider's: "stop", "length", or another value;
	// "" when it sent none.
	FinishReason string
	// Truncated reports that the provider knows the reply is not whole
	// even though FinishReason may not say "length" (an unclosed reasoning
	// block, for one).
	Truncated bool
	// ReasoningStripped reports that the provider already removed
	// reasoning from Content or sent it apart.
	ReasoningStripped bool
	// Model is the model the provider says answered; "" when unknown.
	Model string
	// PromptTokens and CompletionTokens are the provider's metered usage,
	// zero when it sent none. They are never estimated locally.
	PromptTokens, CompletionTokens int
}

// Model is the chat model the answer composite consumes: one call, one
// whole reply. maxTokens caps the completion.
type Model interface {
	Complete(ctx context.Context, msgs []Message, maxTokens int) (*Reply, error)
}

// ModelFunc adapts a function to Model, as http.HandlerFunc adapts one to
// http.Handler.
type ModelFunc func(ctx context.Context, msgs []Message, maxTokens int) (*Reply, error)

// Complete calls f.
func (f ModelFunc) Complete(ctx context.Context, msgs []Message, maxTokens int) (*Reply, error) {
	return f(ctx, msgs, maxTokens)
}

// LlamaCpp adapts a llama.cpp (or any OpenAI-compatible) streaming client
// to Model. The adapter reports the client's model name, so a binding
// that names none takes it.
func LlamaCpp(c *llamacpp.Client) Model { return llamaModel{c} }

type llamaModel struct{ c *llamacpp.Client }

func (m llamaModel) Complete(ctx context.Context, msgs []Message, maxTokens int) (*Reply, error) {
	r, err := m.c.Complete(ctx, msgs, maxTokens)
	if err != nil {
		return nil, err
	}
	return &Reply{Content: r.Content, FinishReason: r.FinishReason, Truncated: r.Truncated,
		ReasoningStripped: r.ReasoningStripped, Model: r.Model,
		PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens}, nil
}

func (m llamaModel) Model() string { return m.c.Model() }

// turn is one model call as the composite read it: reasoning stripped,
// the cut decided, usage and clock kept.
type turn struct {
	text      string
	finish    string
	truncated bool
	stripped  bool
	model     string
	prompt    int
	complete  int
	ms        float64
}

// read is the single place a reply's content is read (J.10.8): reasoning
// is stripped before anything parses, stores or returns it. A cut is a
// finish reason of "length", a provider's own truncation flag, or an
// unclosed reasoning block that left nothing (§8 open point 11: reported
// as truncated whatever the finish reason).
func read(r *Reply) turn {
	text, stripped, unclosed := llamacpp.StripThinking(r.Content)
	t := turn{text: text, finish: r.FinishReason, stripped: stripped || r.ReasoningStripped,
		model: r.Model, prompt: r.PromptTokens, complete: r.CompletionTokens}
	t.truncated = r.FinishReason == "length" || r.Truncated || (unclosed && strings.TrimSpace(text) == "")
	return t
}
