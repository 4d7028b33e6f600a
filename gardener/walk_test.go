// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func TestWalk(t *testing.T) {
	src := writeTree(t, map[string]string{
		"b.md":                       "b",
		"a/z.txt":                    "z",
		"a.md":                       "a",
		"other-forest/_index.md":     "---\nid: _index\n---\n",
		"other-forest/notes/x.md":    "x",
		"drafts/keep.md":             "k",
		"drafts/scratch.bak":         "s",
		".git/config":                "g",
		"__pycache__/m.pyc":          "p",
		"deep/_derived/catalog.db":   "d",
		"deep/_assets/blob.bin":      "x",
		"Thumbs.db":                  "t",
		"docs/~$report.docx":         "lock",
		"docs/report.lock":           "lock",
		"docs/.DS_Store":             "ds",
		"docs/build.tmp":             "tmp",
		"docs/real report.docx":      "r",
		"skipdir.bak/inside.md":      "i",
		"nested/deeper/_index.md.md": "odd but not an index",
	})
	outside := filepath.Join(t.TempDir(), "outside.md")
	require.NoError(t, os.WriteFile(outside, []byte("o"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(src, "escape.md")))
	require.NoError(t, os.Symlink(filepath.Join(src, "b.md"), filepath.Join(src, "alias.md")))
	require.NoError(t, os.Symlink(filepath.Join(src, "a"), filepath.Join(src, "dirlink")))

	files, err := newWalker(src, []string{"*.bak"}).files()
	require.NoError(t, err)
	assert.Equal(t, []string{"a.md", "a/z.txt", "alias.md", "b.md", "docs/real report.docx", "drafts/keep.md",
		"nested/deeper/_index.md.md"}, files,
		"sorted; ignored names, other forests, escaping links and linked folders left out")
}

func TestResolveSource(t *testing.T) {
	base := t.TempDir()
	forestDir := filepath.Join(base, "forest")
	require.NoError(t, os.MkdirAll(filepath.Join(forestDir, "_derived", "uploads"), 0o755))
	src, err := resolveSource("adopt", forestDir, filepath.Join(forestDir, "_derived", "uploads"))
	require.NoError(t, err)
	assert.True(t, src.staged, "the forest's own staging folder is the one inside allowed")
	_, err = resolveSource("adopt", forestDir, filepath.Join(forestDir, "_derived"))
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	require.NoError(t, os.Symlink(forestDir, filepath.Join(base, "link")))
	_, err = resolveSource("adopt", forestDir, filepath.Join(base, "link"))
	assert.ErrorContains(t, err, "contains the forest", "symlinks are resolved before the test")
	_, err = resolveSource("sync", forestDir, filepath.Join(forestDir, "..", "forest", "..", "forest"))
	assert.ErrorContains(t, err, "contains the forest", "'..' is resolved before the test")
}

func TestTargetPath(t *testing.T) {
	root := writeTree(t, map[string]string{"a/b.md": "b"})
	for _, p := range []string{"a/b.md", "./a/b.md", "a/../a/b.md", "a/missing.md", `a/b.md`} {
		got, err := targetPath(root, p)
		require.NoError(t, err, p)
		assert.True(t, strings.HasPrefix(got, "a/"), got)
	}
	for _, p := range []string{"", "..", "../x", "a/../../x", "/abs", `\abs`, "a", "."} {
		_, err := targetPath(root, p)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err), p)
	}
}

func TestConfigKeepsUnknownKeys(t *testing.T) {
	text := "# operator notes\nwebhook: https://example.org/hook\nsource_root: /old\ncuration:\n  default_tags: [a, b]\n  directives: Be brief.\nconverters:\n  .pdf: 'pdf2md \"{input}\" -o \"{output}\"'\naliases: {back-end: BE}\ncontent: cached\narchive: always\nignore: ['*.bak']\n"
	c, err := ParseConfig([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, "/old", c.SourceRoot)
	assert.Equal(t, []string{"a", "b"}, c.DefaultTags)
	assert.Equal(t, "Be brief.", c.Directives)
	assert.Equal(t, `pdf2md "{input}" -o "{output}"`, c.Converters[".pdf"])
	assert.Equal(t, map[string]string{"back-end": "BE"}, c.Aliases)
	assert.Equal(t, ContentCached, c.ContentPolicy())
	assert.Equal(t, ArchiveAlways, c.ArchivePolicy())
	assert.Equal(t, []string{"*.bak"}, c.Ignore)

	c.SourceRoot, c.Dest = "/new", "inbox"
	out, err := c.Marshal()
	require.NoError(t, err)
	back, err := ParseConfig(out)
	require.NoError(t, err)
	assert.Equal(t, "/new", back.SourceRoot)
	assert.Equal(t, "inbox", back.Dest)
	assert.Equal(t, c.Converters, back.Converters)
	assert.Contains(t, string(out), "webhook: https://example.org/hook", "unknown keys survive a save")
	assert.Less(t, strings.Index(string(out), "webhook"), strings.Index(string(out), "source_root"), "key order kept")

	empty, err := ParseConfig(nil)
	require.NoError(t, err)
	assert.Equal(t, ContentInline, empty.ContentPolicy())
	assert.Equal(t, ArchiveNever, empty.ArchivePolicy())

	for _, bad := range []string{"- a list", "ignore: 3", "aliases: [x]", "curation: [x]", "archive: sometimes", "dest: [a]"} {
		_, err := ParseConfig([]byte(bad))
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err), bad)
	}
}
