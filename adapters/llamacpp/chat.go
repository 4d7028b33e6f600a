// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/monkeyllm/vine/model"
)

// Reply is one whole chat completion (model.Reply). Content has every
// reasoning block removed; Truncated is set when the reply was cut at
// max_tokens, or when an unclosed <think> block left no answer: either
// way Content is not a whole answer and must not be stored as one.
type Reply = model.Reply

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      any           `json:"messages"` // []model.Message, or []partsMessage for vision
	MaxTokens     int           `json:"max_tokens,omitempty"`
	Temperature   float64       `json:"temperature"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatChunk is one streamed frame (chat.completion.chunk).
type chatChunk struct {
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// chunkChoice is one choice of a frame.
type chunkChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content          *string `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
	} `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// Complete sends one chat completion with stream: true and reads the
// stream to its end. It returns a Reply only for a complete stream: the
// terminal data: [DONE] after a finish reason. A server or proxy that
// ignores stream and answers one application/json chat completion is
// accepted when that carries a finish reason. Anything less is a
// *StreamError and no Reply. A reply cut at maxTokens is a complete
// stream and comes back with Truncated set. maxTokens ≤ 0 leaves the
// server's default.
func (c *Client) Complete(ctx context.Context, msgs []model.Message, maxTokens int) (*Reply, error) {
	return c.complete(ctx, msgs, maxTokens)
}

// complete sends messages of either shape and reads the reply, as
// Complete describes.
func (c *Client) complete(ctx context.Context, msgs any, maxTokens int) (*Reply, error) {
	x, err := c.post(ctx, "chat", "/chat/completions", chatRequest{
		Model: c.model, Messages: msgs, MaxTokens: max(0, maxTokens), Temperature: c.temperature,
		Stream: true, StreamOptions: streamOptions{IncludeUsage: true},
	}, "text/event-stream")
	if err != nil {
		return nil, err
	}
	defer x.close()
	ct := x.resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		return x.readChat()
	case strings.HasPrefix(ct, "application/json"):
		// A proxy (or server) that ignores stream: true answers the
		// whole completion at once; it is as complete as a stream that
		// reached [DONE] once it parses with a finish reason.
		return x.readWhole()
	}
	head, _ := io.ReadAll(io.LimitReader(x, 300))
	return nil, x.fail(ErrMalformed, fmt.Sprintf("expected text/event-stream or application/json, got %q: %s", ct, clipText(string(head), 200)), nil)
}

// chatCompletion is a non-streamed reply (chat.completion).
type chatCompletion struct {
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// readWhole reads a non-streamed completion, held to the same rules as
// a stream: a finish reason, reasoning stripped, a cut flagged.
func (x *exchange) readWhole() (*Reply, error) {
	body, err := io.ReadAll(x)
	if err != nil {
		return nil, x.readErr(err)
	}
	var cc chatCompletion
	if err := json.Unmarshal(body, &cc); err != nil {
		return nil, x.fail(ErrMalformed, "body is not a JSON chat completion: "+clipText(string(body), 200), err)
	}
	if len(cc.Error) > 0 && string(cc.Error) != "null" {
		return nil, x.fail(ErrServer, clipText(string(cc.Error), 300), nil)
	}
	// Fold it as the one chunk a stream of it would have been.
	var ch chatChunk
	ch.Model, ch.Usage = cc.Model, cc.Usage
	for _, c := range cc.Choices {
		var d chunkChoice
		d.Index, d.FinishReason = c.Index, c.FinishReason
		d.Delta.Content, d.Delta.ReasoningContent = c.Message.Content, c.Message.ReasoningContent
		ch.Choices = append(ch.Choices, d)
	}
	var reply Reply
	var content, reasoning strings.Builder
	absorb(&reply, &ch, &content, &reasoning)
	if reply.FinishReason == "" {
		return nil, x.fail(ErrMalformed, "a chat completion without a finish_reason", nil)
	}
	return finishReply(&reply, content.String(), reasoning.Len() > 0), nil
}

// finishReply strips reasoning from content and flags a cut.
func finishReply(reply *Reply, content string, reasoned bool) *Reply {
	text, stripped, unclosed := StripThinking(content)
	reply.Content = text
	reply.ReasoningStripped = stripped || reasoned
	reply.Truncated = reply.FinishReason == "length" || (unclosed && strings.TrimSpace(text) == "")
	return reply
}

// Chat implements gardener.Chat: the content of a complete reply, or a
// *model.TruncatedError (errors.Is ErrTruncated) carrying the cut
// content when the reply was truncated.
func (c *Client) Chat(ctx context.Context, msgs []model.Message, maxTokens int) (string, error) {
	r, err := c.Complete(ctx, msgs, maxTokens)
	if err != nil {
		return "", err
	}
	if r.Truncated {
		return "", &model.TruncatedError{Partial: r.Content}
	}
	return r.Content, nil
}

// readChat consumes the event stream until data: [DONE].
func (x *exchange) readChat() (*Reply, error) {
	var (
		content, reasoning strings.Builder
		reply              Reply
	)
	sse := newSSEReader(x)
	for {
		ev, err := sse.next()
		if err != nil {
			return nil, x.readErr(err)
		}
		if ev.errText != "" || ev.name == "error" {
			return nil, x.fail(ErrServer, clipText(ev.errText+ev.data, 300), nil)
		}
		if ev.data == "[DONE]" {
			break
		}
		var ch chatChunk
		if err := json.Unmarshal([]byte(ev.data), &ch); err != nil {
			return nil, x.fail(ErrMalformed, "frame is not a JSON chunk: "+clipText(ev.data, 200), err)
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return nil, x.fail(ErrServer, clipText(string(ch.Error), 300), nil)
		}
		absorb(&reply, &ch, &content, &reasoning)
	}
	if reply.FinishReason == "" {
		return nil, x.fail(ErrIncomplete, "data: [DONE] arrived without a finish_reason", nil)
	}
	return finishReply(&reply, content.String(), reasoning.Len() > 0), nil
}

// absorb folds one chunk of the first choice into the reply.
func absorb(r *Reply, ch *chatChunk, content, reasoning *strings.Builder) {
	if ch.Model != "" {
		r.Model = ch.Model
	}
	if ch.Usage != nil {
		r.PromptTokens, r.CompletionTokens = ch.Usage.PromptTokens, ch.Usage.CompletionTokens
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // one completion is asked for; others are not this reply
		}
		if d := choice.Delta.Content; d != nil {
			content.WriteString(*d)
		}
		if d := choice.Delta.ReasoningContent; d != nil {
			reasoning.WriteString(*d)
		}
		if f := choice.FinishReason; f != nil && *f != "" {
			r.FinishReason = *f
		}
	}
}

var _ model.Model = (*Client)(nil)
