// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// MaxViewBytes is the largest image view serves (6 MiB, the describer's
// bound).
const MaxViewBytes = 6 << 20

// ViewResult is what view answers (C.6d): where the image is and what it
// is, never its bytes. Path is forest-relative with "/" separators (join
// it to Dir to read the file); a transport sends the bytes as image
// content and MUST NOT put Path on the wire.
type ViewResult struct {
	ID          string `json:"id"`
	Path        string `json:"path"`
	MediaType   string `json:"media_type"`
	Size        int64  `json:"size"`
	PayloadHash string `json:"payload_hash"`
}

func (r *ViewResult) nodeIDs() []string { return []string{r.ID} }

// viewMediaTypes is view's fixed extension table. The operating system's MIME
// database differs from host to host, and a refusal must not depend on
// where the engine runs.
var viewMediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml", ".tif": "image/tiff",
	".tiff": "image/tiff", ".ico": "image/vnd.microsoft.icon", ".avif": "image/avif",
	".heic": "image/heic", ".heif": "image/heif",
	".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv",
	".json": "application/json", ".html": "text/html", ".xml": "application/xml",
	".db": "application/vnd.sqlite3", ".sqlite": "application/vnd.sqlite3", ".zip": "application/zip",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".mp4": "video/mp4", ".webm": "video/webm",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

// MediaTypeOf is the media type view assigns a file name by its extension
// (case-insensitive); unknown extensions are application/octet-stream.
func MediaTypeOf(name string) string {
	if t, ok := viewMediaTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}

// View locates a node's image payload (C.6d). The checks run in the
// specification's order: the id resolves like any read (E_NOT_FOUND,
// E_MOVED); a node without a payload, and a payload file that is missing,
// answer the very envelope of an absent node; a remote URI, a path leaving
// the forest, a non-image type and a file over 6 MiB are E_SCHEMA.
func (v *Vine) View(ctx context.Context, id string) (*ViewResult, error) {
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	f := v.place.Stat(payloadScope(ctx), rec.ID, rec.Payload)
	switch {
	case !f.Declared:
		return nil, notFound(id)
	case f.Remote:
		scheme, _, _ := strings.Cut(rec.Payload, "://")
		return nil, envelope.Errorf(envelope.Schema,
			"view: payload of %s is a remote %s:// URI; view reads local files only", rec.ID, scheme).
			WithHint("fetch it into the forest first with prefetch, then view it")
	case f.Escapes:
		return nil, envelope.Errorf(envelope.Schema, "view: payload escapes its node's folder: %s", rec.ID).
			WithHint(forest.PayloadRule)
	case !f.Present:
		return nil, notFound(id)
	}
	mt := MediaTypeOf(f.Rel)
	if !strings.HasPrefix(mt, "image/") {
		return nil, envelope.Errorf(envelope.Schema,
			"view: payload of %s is %s, not an image; view serves image/* only", rec.ID, mt).
			WithHint("read a dataset with query, a document with pick")
	}
	if f.Size > MaxViewBytes {
		return nil, envelope.Errorf(envelope.Schema,
			"view: payload of %s is %d bytes, over the %d-byte (6 MiB) limit", rec.ID, f.Size, MaxViewBytes).
			WithHint("store a smaller rendition of the image and view that")
	}
	// The resolved file: a symlink inside the forest may lead elsewhere in it.
	rel := f.Rel
	if r, err := filepath.Rel(v.Dir(), f.Path); err == nil {
		rel = filepath.ToSlash(r)
	}
	return &ViewResult{ID: rec.ID, Path: rel, MediaType: mt, Size: f.Size, PayloadHash: rec.PayloadHash}, nil
}

// viewSignature is view's row in the signature table.
var viewSignature = Signature{
	Name: "view",
	Doc: "Image payload of a media node, for transports that carry images (MCP). Returns the image with its " +
		"media type and size; look first to see payload_type and payload_bytes.",
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "media node id (exact path without .md)"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: viewSignature, run: runView}) }

func runView(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.View(ctx, a.String("id"))
}
