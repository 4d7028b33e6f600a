// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkeyllm/vine/model"
)

// The describer's bounds (G.5.1).
const (
	// MaxDescribedImage is the largest image the describer sends, the
	// same 6 MiB bound as view (C.6d); a larger one falls through to the
	// stub.
	MaxDescribedImage = 6 << 20
	// MaxDescribeTimeout bounds one description: the step holds the
	// forest's writer lane while it waits, so no option may lift it.
	MaxDescribeTimeout = 60 * time.Second
	// DefaultDescribeTokens is the reply length of the vision binding
	// when none is given (J.10).
	DefaultDescribeTokens = 600
)

// DescribePrompt is what the describer asks of the vision model: what
// the image shows AND its legible text, which is what makes a slide or a
// diagram findable by sniff.
const DescribePrompt = "Describe this image for a knowledge base that is searched by its words. " +
	"First say in a few sentences what it shows. Then, under the line \"Text in the image:\", " +
	"transcribe every legible word, number and label exactly as written, and for a diagram or chart " +
	"its boxes, arrows and axes as a short list; write \"none\" when no text is legible. " +
	"Answer in plain markdown without a title."

// describedMIME is the MIME type sent for each image extension the
// describer claims; audio keeps the stub.
var describedMIME = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

// DescriberOptions tune a MediaDescriber. The zero value asks for
// DefaultDescribeTokens and waits MaxDescribeTimeout.
type DescriberOptions struct {
	// MaxTokens caps the reply; 0 or less means DefaultDescribeTokens.
	MaxTokens int
	// Timeout bounds one description; 0, less, or more than
	// MaxDescribeTimeout means MaxDescribeTimeout.
	Timeout time.Duration
}

// MediaDescriber is the converter a host injects when a vision model is
// bound (G.5.1): it sends each image to the model and makes its body
// "# <title>\n\n<description>", the description carrying a
// transcription of the image's legible text. Put it in
// Options.Converters: SupportedFormats then reports its extensions as
// "describer", it is tried before the media stub, and a sync re-converts
// the passports that still hold the stub body.
//
// An image over MaxDescribedImage, a model error, a timeout, an empty or
// truncated reply is a failure: the file falls through to the stub and
// the reason is an errors line of the report. It is safe for concurrent
// use when its model is.
type MediaDescriber struct {
	m         model.Describer
	maxTokens int
	timeout   time.Duration
}

// NewMediaDescriber returns the describer over the vision model m. opts
// may be nil.
func NewMediaDescriber(m model.Describer, opts *DescriberOptions) *MediaDescriber {
	d := &MediaDescriber{m: m, maxTokens: DefaultDescribeTokens, timeout: MaxDescribeTimeout}
	if opts != nil {
		if opts.MaxTokens > 0 {
			d.maxTokens = opts.MaxTokens
		}
		if opts.Timeout > 0 && opts.Timeout < MaxDescribeTimeout {
			d.timeout = opts.Timeout
		}
	}
	return d
}

// String names the describer in fallback lines.
func (d *MediaDescriber) String() string { return OriginDescriber }

// Extensions are the image formats the describer reads.
func (d *MediaDescriber) Extensions() []string {
	return []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}
}

// Convert describes the image at path, or fails so the stub takes it.
func (d *MediaDescriber) Convert(ctx context.Context, path string) (*Conversion, error) {
	img, err := readImage(path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	reply, err := d.m.Describe(ctx, DescribePrompt, img, d.maxTokens)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("the vision model gave no description within %v", d.timeout)
		}
		return nil, fmt.Errorf("the vision model failed: %w", err)
	}
	text, err := description(reply)
	if err != nil {
		return nil, err
	}
	title := stemTitle(path)
	return &Conversion{Kind: KindMarkdown, Title: title, Markdown: "# " + title + "\n\n" + text + "\n"}, nil
}

// readImage reads an image the describer may send: a claimed extension,
// not empty, not over MaxDescribedImage (checked before reading, and
// again while reading, as the file may grow in between).
func readImage(path string) (model.Image, error) {
	mime := describedMIME[strings.ToLower(filepath.Ext(path))]
	if mime == "" {
		return model.Image{}, fmt.Errorf("%s is not an image format the describer reads", filepath.Ext(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return model.Image{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return model.Image{}, err
	} else if fi.Size() > MaxDescribedImage {
		return model.Image{}, tooLarge(fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxDescribedImage+1))
	switch {
	case err != nil:
		return model.Image{}, err
	case len(data) > MaxDescribedImage:
		return model.Image{}, tooLarge(int64(len(data)))
	case len(data) == 0:
		return model.Image{}, errors.New("the image is empty")
	}
	return model.Image{MIME: mime, Data: data}, nil
}

func tooLarge(size int64) error {
	return fmt.Errorf("the image is %d bytes, over the describer's limit of %d bytes (6 MiB)", size, MaxDescribedImage)
}

// description is the body text of a reply: reasoning removed, and
// nothing at all for an empty or cut reply, which a node must never
// store as a description.
func description(r *model.Reply) (string, error) {
	if r == nil {
		return "", errors.New("the vision model returned no reply")
	}
	if r.Truncated {
		return "", fmt.Errorf("the vision model's description was cut at its token limit (finish_reason %q)", r.FinishReason)
	}
	text := r.Content
	if !r.ReasoningStripped {
		text, _, _ = model.StripThinking(text)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", errors.New("the vision model's reply was empty")
	}
	return text, nil
}
