// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MediaStubSentinel is the last sentence of the media stub body (G.5.1).
// The Ranger's needs_description check (H.3) looks for exactly this
// sentence, so it must never be reworded on one side only.
const MediaStubSentinel = "No description has been generated for this media yet."

// mediaStub is the model-free floor for images and audio: it names the
// file, its format and size, and admits that nothing described it. It is
// discovered last, so a hook or a describer always wins over it.
type mediaStub struct{}

func (mediaStub) Extensions() []string {
	return []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".mp3", ".wav", ".m4a", ".ogg", ".flac"}
}

func (mediaStub) Convert(ctx context.Context, path string) (*Conversion, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	title := stemTitle(path)
	name := filepath.Base(path)
	format := strings.ToUpper(strings.TrimPrefix(filepath.Ext(name), "."))
	body := fmt.Sprintf("# %s\n\nMedia file `%s` (%s format, %d bytes).\n\n%s\n",
		title, name, format, fi.Size(), MediaStubSentinel)
	return &Conversion{Kind: KindMarkdown, Title: title, Markdown: body}, nil
}
