// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"context"
	"fmt"
	"strings"

	"github.com/monkeyllm/vine/model"
)

// partsMessage is a chat message whose content is a list of parts, the
// shape OpenAI-compatible servers take an image in.
type partsMessage struct {
	Role    string        `json:"role"`
	Content []contentPart `json:"content"`
}

// contentPart is one text or image_url part.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// Describe implements model.Describer over the same chat completion as
// Complete: one user message whose content is the prompt and the image
// as a data URL (an image_url part), which any OpenAI-compatible
// multimodal server reads (llama.cpp's with a vision projector loaded).
// The reply follows Complete's rules: whole or an error, a cut flagged
// Truncated.
func (c *Client) Describe(ctx context.Context, prompt string, img model.Image, maxTokens int) (*Reply, error) {
	if !strings.HasPrefix(img.MIME, "image/") || len(img.Data) == 0 {
		return nil, fmt.Errorf("llamacpp: describe needs image bytes and an image/* MIME type, got %d bytes of %q",
			len(img.Data), img.MIME)
	}
	msgs := []partsMessage{{Role: "user", Content: []contentPart{
		{Type: "text", Text: prompt},
		{Type: "image_url", ImageURL: &imageURL{URL: img.DataURL()}},
	}}}
	return c.complete(ctx, msgs, maxTokens)
}

var _ model.Describer = (*Client)(nil)
