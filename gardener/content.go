// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/forest"
)

// provenanceLine ends a markdown body whose upload declared a source URL
// (J.8): prose for readers, not a field, and never scent.
func provenanceLine(url string) string { return "Source: " + url }

// withProvenance appends the provenance block unless the body already
// has that exact line (refreshes must not stack copies).
func withProvenance(body, url string) string {
	if url == "" {
		return body
	}
	line := provenanceLine(url)
	for l := range strings.Lines(body) {
		if strings.TrimRight(l, "\r\n") == line {
			return body
		}
	}
	return strings.TrimRight(body, "\n") + "\n\n---\n\n" + line + "\n"
}

// contentMode is the content policy a new passport of f gets (G.7):
// datasets always keep their map inline (the payload is the flesh);
// reference is only for text files outside the upload staging (a staged
// courier file vanishes once consumed), else it degrades to cached.
func (r *run) contentMode(f *sourceFile, dataset bool) string {
	if dataset {
		return ContentInline
	}
	mode := r.cfg.ContentPolicy()
	if mode == ContentReference && (!isText(f.ext) || r.src.staged) {
		return ContentCached
	}
	return mode
}

// nodeBody is the body plant stores: the whole text inline, else only
// the title heading (the flesh lives in the cache or the source).
func nodeBody(mode, title, full string) string {
	if mode == ContentInline {
		return full
	}
	return "# " + title
}

// plantBody applies plant's body rule (C.7 §2.3) to a refreshed inline
// body, so a refresh stores what a plant of the same text would.
func plantBody(title, body string) string {
	b := strings.TrimSpace(body)
	switch {
	case b == "":
		return "# " + title
	case !strings.HasPrefix(b, "#"):
		return "# " + title + "\n\n" + b
	}
	return b
}

// bodyCachePath is where a content: cached body lives.
func (r *run) bodyCachePath(id string) string {
	return filepath.Join(r.forest.Dir(), forest.DerivedDir, "bodies", filepath.FromSlash(id)+forest.NodeExt)
}

// archived is an original copied into its branch's _assets/ (G.7 stage 0).
type archived struct {
	ref  string // "_assets/<name>", relative to the node's folder
	path string // where the copy lives
	typ  string // the A.3 payload_type when the passport references it, else ""
}

// archiveFor decides stage 0 for a new or refreshed source (G.1, §9):
// text is never archived and a SQLite payload is the copy already;
// otherwise an original is archived under archive: always, and staged
// media always (the staging copy is the only one). The copy is named by
// content, so a refresh with new bytes gets a new name. It is referenced
// from the passport only for markdown kinds whose extension has an A.3
// payload type; a tabular original is kept but not referenced.
func (r *run) archiveFor(f *sourceFile, kind Kind, id string) *archived {
	if isText(f.ext) || kind == KindPayload {
		return nil
	}
	media := mediaExts[f.ext] != ""
	if r.cfg.ArchivePolicy() != ArchiveAlways && !(r.src.staged && media) {
		return nil
	}
	name := f.hash[:8] + "-" + Slugify(stem(f.rel)) + f.ext
	a := &archived{ref: forest.AssetsDir + "/" + name,
		path: filepath.Join(r.forest.Dir(), filepath.FromSlash(path.Dir(id)), forest.AssetsDir, name)}
	if kind == KindMarkdown {
		a.typ = payloadType(f.ext)
	}
	return a
}
