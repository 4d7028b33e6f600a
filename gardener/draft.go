// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
)

// Draft is a new passport before it is planted: what curation hooks and
// the Curator see and may change. Placement is not theirs to change: ID,
// Parent, Type and SourcePath are restored after every hook, and a
// dataset's Body (its generated sample map) too.
type Draft struct {
	ID         string      `json:"id"`
	Parent     string      `json:"parent"`
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Summary    string      `json:"summary"`
	Tags       []string    `json:"tags"`
	Aliases    []string    `json:"aliases,omitempty"`
	Links      []DraftLink `json:"links"`
	Lang       string      `json:"lang,omitempty"`
	SourcePath string      `json:"source_path"`
	// Body is the full converted text, before the content policy slims
	// the node body.
	Body string `json:"-"`
}

// DraftLink is one link of a draft. Curator proposals are related-to
// with Confidence 0.3 and an optional Note.
type DraftLink struct {
	Rel        string  `json:"rel"`
	Target     string  `json:"target"`
	Confidence float64 `json:"confidence,omitempty"`
	Note       string  `json:"note,omitempty"`
}

func (d Draft) clone() Draft {
	d.Tags, d.Aliases, d.Links = slices.Clone(d.Tags), slices.Clone(d.Aliases), slices.Clone(d.Links)
	return d
}

// Passport fields every file passport carries (G.1).
const (
	ingestSource     = "ingest"
	ingestConfidence = 0.7
)

// sourceFile is one file of the source in hand.
type sourceFile struct {
	rel     string // source-relative, "/"
	abs     string
	ext     string // lowercase, with the dot
	size    int64
	mtimeMS int64  // modification time in milliseconds (source_mtime has 3 decimals)
	hash    string // sha256 hex, once computed
}

// mtime is source_mtime: epoch seconds with three decimals.
func (f *sourceFile) mtime() float64 { return float64(f.mtimeMS) / 1000 }

// isText reports whether the source is a markdown or text file: stored
// verbatim as a note, never archived, the only kind content: reference
// may point at.
func isText(ext string) bool { return ext == ".md" || ext == ".markdown" || ext == ".txt" }

var mediaExts = map[string]string{
	".png": "image", ".jpg": "image", ".jpeg": "image", ".gif": "image", ".webp": "image",
	".mp3": "audio", ".wav": "audio", ".m4a": "audio", ".ogg": "audio", ".flac": "audio",
}

// nodeType types a markdown conversion from the source extension (G.5.1):
// the converter never decides it.
func nodeType(ext string) string {
	switch {
	case isText(ext):
		return "note"
	case mediaExts[ext] != "":
		return "media"
	}
	return "document"
}

// payloadType is the A.3 payload_type of an archived original, or "" when
// the extension maps to none (the copy is then kept but not referenced).
func payloadType(ext string) string {
	switch ext {
	case ".pdf":
		return "pdf"
	case ".docx":
		return "docx"
	}
	return mediaExts[ext]
}

// nodeIDFor is the id of a new source file: [dest/] + slugged folders +
// slugged stem (G.9 §9). taken decides collisions, which get "-" and the
// first six hex digits of sha256(rel) appended.
func nodeIDFor(destDir, rel string, taken func(id string) bool) (string, error) {
	segs := slugDirs(destDir, rel)
	leaf := Slugify(stem(rel))
	id := path.Join(append(segs, leaf)...)
	if !reserved(id) && !taken(id) {
		return id, nil
	}
	sum := sha256.Sum256([]byte(rel))
	alt := id + "-" + hex.EncodeToString(sum[:])[:6]
	if taken(alt) {
		return "", fmt.Errorf("id %s and its alternative %s are both taken", id, alt)
	}
	return alt, nil
}

// slugDirs are the id segments of rel's folders under destDir.
func slugDirs(destDir, rel string) []string {
	var segs []string
	if destDir != "" {
		segs = append(segs, destDir)
	}
	dir := path.Dir(rel)
	if dir == "." {
		return segs
	}
	for i, name := range strings.Split(dir, "/") {
		s := Slugify(name)
		if i == 0 && destDir == "" && forest.IsSystem(s) {
			sum := sha256.Sum256([]byte(name))
			s += "-" + hex.EncodeToString(sum[:])[:6]
		}
		segs = append(segs, s)
	}
	return segs
}

// reserved ids are never a file passport: a leaf named like a branch
// index, or anything under _meta.
func reserved(id string) bool { return forest.IsIndex(id) || forest.IsSystem(id) }

// branchChain lists the branches a new node under rel needs, outermost
// first: the dest branch (when destDir is set) and one per source folder,
// each with the folder name its title comes from.
func branchChain(destDir, rel string) []branchSpec {
	var chain []branchSpec
	if destDir != "" {
		chain = append(chain, branchSpec{id: destDir + "/" + forest.RootIndexID, name: path.Base(destDir), dest: true})
	}
	if path.Dir(rel) == "." {
		return chain
	}
	segs := slugDirs(destDir, rel)
	names := strings.Split(path.Dir(rel), "/")
	start := len(segs) - len(names)
	for i, name := range names {
		chain = append(chain, branchSpec{id: path.Join(segs[:start+i+1]...) + "/" + forest.RootIndexID, name: name})
	}
	return chain
}

// branchSpec is a branch a node needs.
type branchSpec struct {
	id   string
	name string // the source folder (or dest) name
	dest bool
}

// node renders the branch as planted (G.9 §9): title from the folder
// name, a fixed summary, source ingest and the four empty engine
// sections.
func (b branchSpec) node() vine.NodeSpec {
	title := strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(b.name)), " ")
	if title == "" {
		title = Slugify(b.name)
	}
	format := "Documents adopted from source folder '%s'."
	if b.dest {
		format = "Documents adopted into branch '%s'."
	}
	summary := fallbackSummary(format, b.name)
	body := "# " + title + "\n\n> " + summary + "\n\n## " + forest.SectionSubBranches + "\n\n## " +
		forest.SectionDirect + "\n\n## " + forest.SectionCrossTrails + "\n"
	return vine.NodeSpec{ID: b.id, Type: "branch", Title: title, Summary: summary,
		Parent: forest.ParentIndex(b.id), Body: body, Source: ingestSource}
}

// fileExists reports whether a regular file or directory is at p.
func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
