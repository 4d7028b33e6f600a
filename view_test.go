// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestViewServesAnImage(t *testing.T) {
	f := newEntryForest(t, nil)
	out, err := f.call("view", map[string]any{"id": f.man.Media})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "path", "media_type", "size", "payload_hash"}, entryKeys(t, out))
	r, err := f.v.View(context.Background(), f.man.Media)
	require.NoError(t, err)
	assert.Equal(t, "media/_assets/harbour-map.png", r.Path)
	assert.Equal(t, "image/png", r.MediaType)
	assert.Equal(t, int64(67), r.Size)
	assert.Len(t, r.PayloadHash, 64)
	data, err := os.ReadFile(filepath.Join(f.v.Dir(), filepath.FromSlash(r.Path)))
	require.NoError(t, err)
	assert.Len(t, data, 67)
}

func TestViewRefusals(t *testing.T) {
	f := newEntryForest(t, nil)
	ctx := context.Background()
	assets := filepath.Join(f.dir, "media", "_assets")
	require.NoError(t, os.WriteFile(filepath.Join(assets, "scan.pdf"), []byte("%PDF"), 0o644))
	big, err := os.Create(filepath.Join(assets, "huge.PNG"))
	require.NoError(t, err)
	require.NoError(t, big.Truncate(MaxViewBytes+1))
	require.NoError(t, big.Close())
	media := func(id, payload string) {
		front := "type: media\ntitle: M\nsummary: A media node.\n"
		if payload != "" {
			front += "payload: " + payload + "\npayload_type: image\n"
		}
		f.write(id, front, "# M\n")
	}
	media("media/no-payload", "")
	media("media/remote", "s3://bucket/pic.png")
	media("media/escape", "../../outside.png")
	media("media/absolute", "/etc/passwd.png")
	media("media/gone", "_assets/gone.png")
	media("media/pdf", "_assets/scan.pdf")
	media("media/huge", "_assets/huge.PNG")
	f.reindex()

	tests := []struct {
		id   string
		code Code
		want []string
	}{
		{"media/remote", ESchema, []string{"s3://"}},
		{"media/escape", ESchema, []string{"escapes its node's folder"}},
		{"media/absolute", ESchema, []string{"escapes its node's folder"}},
		{"media/pdf", ESchema, []string{"application/pdf", "not an image"}},
		{"media/huge", ESchema, []string{"6291457 bytes"}},
	}
	for _, tt := range tests {
		_, err := f.v.View(ctx, tt.id)
		var e *Error
		require.ErrorAs(t, err, &e, tt.id)
		assert.Equal(t, tt.code, e.Code, tt.id)
		for _, w := range tt.want {
			assert.Contains(t, e.Message, w, tt.id)
		}
	}

	// No payload and a missing file answer the bytes of an absent node.
	for _, id := range []string{"media/no-payload", "media/gone"} {
		_, err := f.v.View(ctx, id)
		var e *Error
		require.ErrorAs(t, err, &e, id)
		require.NoError(t, os.Remove(filepath.Join(f.dir, filepath.FromSlash(id)+".md")))
		f.reindex()
		_, absent := f.v.View(ctx, id)
		var a *Error
		require.ErrorAs(t, absent, &a, id)
		assert.Equal(t, string(a.Body()), string(e.Body()), "%s: a refusal must not tell payload-less from absent", id)
	}

	_, err = f.v.View(ctx, "concepts/tide")
	assert.Equal(t, ENotFound, CodeOf(err), "a node without payload, whatever its type")
}

func TestViewFollowsPayloadTypeNotNodeType(t *testing.T) {
	f := newEntryForest(t, nil)
	png, err := os.ReadFile(filepath.Join(f.dir, "media", "_assets", "harbour-map.png"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(f.dir, "notes", "_assets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "notes", "_assets", "harbour-map.png"), png, 0o644))
	f.write("notes/with-image", "type: note\ntitle: N\nsummary: A note with an image payload.\npayload: _assets/harbour-map.png\n", "# N\n")
	f.write("notes/borrowed", "type: note\ntitle: B\nsummary: A note naming another branch's image.\npayload: ../media/_assets/harbour-map.png\n", "# B\n")
	f.reindex()
	r, err := f.v.View(context.Background(), "notes/with-image")
	require.NoError(t, err)
	assert.Equal(t, "notes/_assets/harbour-map.png", r.Path)
	assert.Equal(t, "", r.PayloadHash, "no payload_hash in the passport")
	_, err = f.v.View(context.Background(), "notes/borrowed")
	assert.Equal(t, ESchema, CodeOf(err), "a payload lives in its node's folder, never another branch's")
}

func TestMediaTypeOf(t *testing.T) {
	tests := map[string]string{
		"a.png": "image/png", "b.JPG": "image/jpeg", "c.jpeg": "image/jpeg", "d.webp": "image/webp",
		"e.gif": "image/gif", "f.svg": "image/svg+xml", "g.pdf": "application/pdf", "h.db": "application/vnd.sqlite3",
		"noext": "application/octet-stream", "x.weird": "application/octet-stream", "dir.png/file": "application/octet-stream",
	}
	for name, want := range tests {
		assert.Equal(t, want, MediaTypeOf(name), name)
	}
}

// TestViewSymlinkOutOfTheForestIsAbsent: a payload that leaves through a
// symlink answers as an absent node; only the file system knows where a
// link leads, so telling it apart would be an oracle.
func TestViewSymlinkOutOfTheForestIsAbsent(t *testing.T) {
	f := newEntryForest(t, nil)
	outside := filepath.Join(t.TempDir(), "secret.png")
	require.NoError(t, os.WriteFile(outside, []byte("png"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(f.dir, "media", "_assets", "link.png")))
	f.write("media/link", "type: media\ntitle: L\nsummary: Linked out.\npayload: _assets/link.png\npayload_type: image\n", "# L\n")
	f.reindex()
	_, err := f.v.View(context.Background(), "media/link")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ENotFound, e.Code)
	assert.Equal(t, "node not found: media/link", e.Message)
	d, err := f.v.Look(context.Background(), "media/link", LookOptions{})
	require.NoError(t, err)
	assert.True(t, d.PayloadMissing, "a payload outside the forest is not there for look either")
}
