// SPDX-License-Identifier: Apache-2.0

package model

import (
	"context"
	"encoding/base64"
)

// Image is one image put to a vision model: its bytes and their MIME
// type ("image/png"). The caller bounds its size; the engine's describer
// sends nothing over 6 MiB (G.5.1).
type Image struct {
	MIME string
	Data []byte
}

// DataURL is the image as an RFC 2397 data URL
// ("data:image/png;base64,…"), the form an OpenAI-compatible multimodal
// chat endpoint takes in an image_url content part.
func (img Image) DataURL() string {
	return "data:" + img.MIME + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// Describer is a vision model (the vision role, J.10): one prompt about
// one image, one whole reply. It follows Model's rules: maxTokens ≤ 0
// leaves the provider's default, and a reply cut at maxTokens comes back
// with Truncated set, never as a whole answer.
type Describer interface {
	Describe(ctx context.Context, prompt string, img Image, maxTokens int) (*Reply, error)
}

// DescriberFunc adapts a function to Describer, as Func adapts one to
// Model.
type DescriberFunc func(ctx context.Context, prompt string, img Image, maxTokens int) (*Reply, error)

// Describe calls f.
func (f DescriberFunc) Describe(ctx context.Context, prompt string, img Image, maxTokens int) (*Reply, error) {
	return f(ctx, prompt, img, maxTokens)
}
