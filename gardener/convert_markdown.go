// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"strings"
	"unicode/utf8"
)

// markdownConverter passes .md, .markdown and .txt through: the body is
// the content, verbatim, within the line and document limits.
type markdownConverter struct{ lim Limits }

func (markdownConverter) Extensions() []string { return []string{".md", ".markdown", ".txt"} }

func (c markdownConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := readBounded(f, c.lim.orDefault())
	if err != nil {
		return nil, limitRefusal("text", path, err)
	}
	text := validUTF8(raw)
	return &Conversion{Kind: KindMarkdown, Title: markdownTitle(text, path), Markdown: text}, nil
}

// markdownTitle is the text of the first "# " heading line, else the
// stem title.
func markdownTitle(text, path string) string {
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, "#")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		if t := strings.TrimSpace(rest); t != "" {
			return t
		}
	}
	return stemTitle(path)
}

// validUTF8 decodes b as UTF-8, replacing each invalid byte with U+FFFD:
// a stray Latin-1 byte costs one character, never the document.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	return sb.String()
}

// stripBOM drops a leading UTF-8 byte order mark.
func stripBOM(s string) string { return strings.TrimPrefix(s, "\uFEFF") }
