// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"strings"

	"github.com/monkeyllm/vine/model"
)

// Message is one chat message (model.Message).
type Message = model.Message

// Reply is one whole completion as a Model returns it (model.Reply).
type Reply = model.Reply

// Model is the chat model the answer composite consumes: one call, one
// whole reply (model.Model). A *llamacpp.Client is one.
type Model = model.Model

// ModelFunc adapts a function to Model, as http.HandlerFunc adapts one to
// http.Handler (model.Func).
type ModelFunc = model.Func

// LlamaCpp returns c, which is a Model itself.
//
// Deprecated: pass the *llamacpp.Client (or any model.Model) directly.
// LlamaCpp took the concrete client, which made this package depend on
// an adapter.
func LlamaCpp(c Model) Model { return c }

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
	text, stripped, unclosed := model.StripThinking(r.Content)
	t := turn{text: text, finish: r.FinishReason, stripped: stripped || r.ReasoningStripped,
		model: r.Model, prompt: r.PromptTokens, complete: r.CompletionTokens}
	t.truncated = r.FinishReason == "length" || r.Truncated || (unclosed && strings.TrimSpace(text) == "")
	return t
}
