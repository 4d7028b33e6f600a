// SPDX-License-Identifier: Apache-2.0

// Package model is the contract between the engine and the chat models it
// calls: the messages sent, the reply received, and how a reply cut at its
// token limit is told apart from a whole one. It imports only the
// standard library, so a provider (adapters/llamacpp, or a host's own
// client) implements it without linking the engine, and the engine's
// consumers (gardener's curator, the answer composite) depend on it alone,
// as database/sql depends on database/sql/driver.
//
// A provider implements [Model] for chat and [Describer] for a vision
// model shown an [Image]; a function can stand in through [Func] or
// [DescriberFunc]:
//
//	var echo model.Func = func(ctx context.Context, msgs []model.Message, max int) (*model.Reply, error) {
//		return &model.Reply{Content: msgs[len(msgs)-1].Content, FinishReason: "stop"}, nil
//	}
package model

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// Reply is one whole completion as a Model returns it.
type Reply struct {
	// Content is the reply text. Reasoning blocks (<think>…</think>) may
	// still be in it unless ReasoningStripped says otherwise.
	Content string
	// FinishReason is the provider's: "stop", "length", or another value;
	// "" when it sent none.
	FinishReason string
	// Truncated reports that the reply is not whole even though
	// FinishReason may not say "length" (an unclosed reasoning block, for
	// one). A truncated reply must never be stored as an answer.
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

// Model is a chat model: one call, one whole reply. maxTokens caps the
// completion; 0 or less leaves the provider's default. An implementation
// returns a Reply only when the provider's answer arrived complete; a
// reply cut at maxTokens comes back with Truncated set.
type Model interface {
	Complete(ctx context.Context, msgs []Message, maxTokens int) (*Reply, error)
}

// Named is implemented by a Model that knows the name of the model it
// calls, for records that say which model answered.
type Named interface {
	Model() string
}

// Func adapts a function to Model, as http.HandlerFunc adapts one to
// http.Handler.
type Func func(ctx context.Context, msgs []Message, maxTokens int) (*Reply, error)

// Complete calls f.
func (f Func) Complete(ctx context.Context, msgs []Message, maxTokens int) (*Reply, error) {
	return f(ctx, msgs, maxTokens)
}

// ErrTruncated is matched by every *TruncatedError.
var ErrTruncated = errors.New("model reply cut at its token limit")

// TruncatedError reports a reply the model stopped at its token limit
// (finish_reason "length"). Partial is what arrived; a caller may salvage
// something from it, nobody may take it for a whole answer.
type TruncatedError struct {
	Partial string
}

// Error says how much arrived before the cut.
func (e *TruncatedError) Error() string {
	return fmt.Sprintf("%v after %d characters", ErrTruncated, utf8.RuneCountInString(e.Partial))
}

// Is makes errors.Is(err, ErrTruncated) true.
func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }
