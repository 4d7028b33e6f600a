// SPDX-License-Identifier: Apache-2.0

package model_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/monkeyllm/vine/model"
)

// Func turns a function into a Model: the natural test double, and the
// whole contract a provider adapter implements. A reply cut at its token
// limit is marked Truncated and must never be stored as an answer.
func ExampleFunc() {
	var m model.Model = model.Func(func(ctx context.Context, msgs []model.Message, maxTokens int) (*model.Reply, error) {
		last := msgs[len(msgs)-1].Content
		if maxTokens > 0 && maxTokens < 5 {
			return &model.Reply{Content: last[:maxTokens], FinishReason: "length", Truncated: true}, nil
		}
		return &model.Reply{Content: "<think>easy</think>Channel 16.", FinishReason: "stop"}, nil
	})
	ctx := context.Background()
	msgs := []model.Message{{Role: "user", Content: "Which channel for distress?"}}

	r, _ := m.Complete(ctx, msgs, 0)
	text, stripped, _ := model.StripThinking(r.Content)
	fmt.Println(text, stripped)

	r, _ = m.Complete(ctx, msgs, 3)
	fmt.Println(r.Truncated, r.FinishReason)
	err := error(&model.TruncatedError{Partial: r.Content})
	fmt.Println(errors.Is(err, model.ErrTruncated))
	// Output:
	// Channel 16. true
	// true length
	// true
}

// DescriberFunc turns a function into a vision model: the test double of
// the describer that turns an image into a node body (G.5.1). A provider
// sends the image as its data URL.
func ExampleDescriberFunc() {
	var d model.Describer = model.DescriberFunc(func(ctx context.Context, prompt string, img model.Image, maxTokens int) (*model.Reply, error) {
		return &model.Reply{Content: "A slide titled Tide tables (" + img.MIME + ").", FinishReason: "stop"}, nil
	})
	img := model.Image{MIME: "image/png", Data: []byte("\x89PNG")}
	r, _ := d.Describe(context.Background(), "What does this image show?", img, 600)
	fmt.Println(r.Content)
	fmt.Println(img.DataURL())
	// Output:
	// A slide titled Tide tables (image/png).
	// data:image/png;base64,iVBORw==
}
