// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarkdownConverter(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, content, title, body string
	}{
		{"title from first h1", "notes/meeting-notes.md", "intro\n## Sub\n# Weekly Sync \nbody\n# Later\n",
			"Weekly Sync", "intro\n## Sub\n# Weekly Sync \nbody\n# Later\n"},
		{"stem title without h1", "team_onboarding-guide.txt", "no heading here\n#hashtag is not one\n",
			"team onboarding guide", "no heading here\n#hashtag is not one\n"},
		{"crlf", "crlf.markdown", "# Windows Title\r\nline\r\n", "Windows Title", "# Windows Title\r\nline\r\n"},
		{"invalid utf-8 replaced byte by byte", "latin.md", "# Caf\xe9\n\xff\xfe ok\n",
			"Caf\uFFFD", "# Caf\uFFFD\n\uFFFD\uFFFD ok\n"},
		{"empty", "empty.md", "", "empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSource(t, dir, tt.file, []byte(tt.content))
			conv, err := convertFile(t, markdownConverter{}, p)
			require.NoError(t, err)
			assert.Equal(t, KindMarkdown, conv.Kind)
			assert.Equal(t, tt.title, conv.Title)
			assert.Equal(t, tt.body, conv.Markdown, "the body is the content verbatim")
		})
	}
}

func TestMarkdownConverterMissingFile(t *testing.T) {
	_, err := convertFile(t, markdownConverter{}, t.TempDir()+"/absent.md")
	assert.Error(t, err)
}

func TestMediaStub(t *testing.T) {
	dir := t.TempDir()
	p := writeSource(t, dir, "slides/Q1_board-deck.PNG", make([]byte, 1234))
	conv, err := convertFile(t, mediaStub{}, p)
	require.NoError(t, err)
	assert.Equal(t, KindMarkdown, conv.Kind)
	assert.Equal(t, "Q1 board deck", conv.Title)
	assert.Equal(t, "# Q1 board deck\n\nMedia file `Q1_board-deck.PNG` (PNG format, 1234 bytes).\n\n"+
		"No description has been generated for this media yet.\n", conv.Markdown)

	p = writeSource(t, dir, "voice memo.flac", []byte("abc"))
	conv, err = convertFile(t, mediaStub{}, p)
	require.NoError(t, err)
	assert.Contains(t, conv.Markdown, "Media file `voice memo.flac` (FLAC format, 3 bytes).")
	assert.Contains(t, conv.Markdown, MediaStubSentinel)
}
