// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gardener"
)

// Compose bounds (J.8).
const (
	maxSlug     = 63
	maxLinkNote = 120
)

// composeParams are the arguments of mode compose alone.
var composeParams = []string{"title", "text", "stage", "draft"}

// composeOnly refuses compose's arguments on the batch modes.
func composeOnly(a vine.Args, mode string) error {
	if mode == ModeCompose {
		return nil
	}
	for _, p := range composeParams {
		if a.Has(p) {
			return envelope.New(envelope.Schema, "ingest: parameter '"+p+"' combines with mode compose only",
				"compose plants one authored document; the batch modes send files or read a path")
		}
	}
	return nil
}

// decodeCompose reads compose's arguments (J.8): a title, a non-blank
// text, at most one of stage and draft, no files or path; the document
// is staged as <slug>.md.
func decodeCompose(a vine.Args, req *Request) error {
	for _, p := range []string{"files", "path"} {
		if a.Has(p) {
			return envelope.New(envelope.Schema, "ingest: parameter '"+p+"' does not combine with mode compose",
				"compose sends one document as title and text")
		}
	}
	title, text := strings.TrimSpace(a.String("title")), a.String("text")
	if title == "" {
		return envelope.New(envelope.Schema, "ingest: mode compose needs parameter 'title'", "name the document")
	}
	if strings.TrimSpace(text) == "" {
		return envelope.New(envelope.Schema, "ingest: mode compose needs a non-blank 'text'", "send the document's markdown")
	}
	if a.Has("stage") && a.Has("draft") {
		return envelope.New(envelope.Schema, "ingest: parameters 'stage' and 'draft' do not combine",
			"stage previews the draft; send the reviewed draft alone to accept it")
	}
	slug := Slug(title)
	if slug == "" {
		return envelope.New(envelope.Schema, "ingest: title "+clip(title)+" has no letter or digit to name the file by",
			"give the document a title with letters a-z or digits")
	}
	doc := text
	if !strings.HasPrefix(text, "# ") {
		doc = "# " + title + "\n\n" + text
	}
	req.Files = []gardener.UploadFile{{Name: slug + ".md", Data: []byte(doc)}}
	req.Stage = a.Bool("stage")
	if a.Has("draft") {
		var d Approved
		if json.Unmarshal(a.Raw("draft"), &d) != nil {
			return envelope.New(envelope.Schema, "ingest: parameter 'draft' is not a draft",
				"send back a draft as stage answered it: {title, summary, tags, links: [{target, rel, note}]}")
		}
		req.Draft = &d
	}
	return nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug is compose's file name for a title (J.8): lowercase, every run of
// characters other than a-z and 0-9 one "-", trimmed, at most 63
// characters; "" when nothing is left.
func Slug(title string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	return s
}

func clip(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return "'" + s + "'"
}

// Approved is a reviewed draft sent back to accept it: a client payload,
// re-validated before it is planted. Other fields a staged draft
// carries (id, parent, type, a link's target_title) are ignored.
type Approved struct {
	Title   string         `json:"title"`
	Summary string         `json:"summary"`
	Tags    []string       `json:"tags"`
	Links   []ApprovedLink `json:"links"`
}

// ApprovedLink is one link of a reviewed draft.
type ApprovedLink struct {
	Target string `json:"target"`
	Rel    string `json:"rel"`
	Note   string `json:"note"`
}

// passport is the approval as the passport the Gardener pins last: the
// model is not asked again. A summary that does not fit is dropped (the
// derived one stands), links other than related-to are dropped, notes
// clipped; the Gardener re-checks every link's target and scope.
func (d *Approved) passport() *gardener.UploadPassport {
	p := &gardener.UploadPassport{Title: strings.TrimSpace(d.Title), Summary: gardener.FitSummary(d.Summary), Tags: d.Tags}
	for _, l := range d.Links {
		if l.Rel != "" && l.Rel != "related-to" {
			continue
		}
		note := strings.TrimSpace(l.Note)
		if utf8.RuneCountInString(note) > maxLinkNote {
			note = string([]rune(note)[:maxLinkNote])
		}
		p.Links = append(p.Links, gardener.PassportLink{Target: l.Target, Rel: "related-to", Note: note})
	}
	return p
}

// ComposeResult is compose's answer, in place (J.8): the report with the
// adapter's fields; a stage answers preview and the drafts, its commit
// null.
type ComposeResult struct {
	Mode string `json:"mode"`
	*gardener.IngestReport
	Drafts       []StagedDraft          `json:"drafts,omitempty"`
	CommitBefore string                 `json:"commit_before"`
	Commit       *string                `json:"commit"`
	Rollup       *gardener.RollupReport `json:"rollup"` // one document rolls up no branch: null
	Curated      bool                   `json:"curated"`
	Bound        bool                   `json:"bound"`
	Preview      bool                   `json:"preview,omitempty"`
}

// StagedDraft is a draft a stage answers for review.
type StagedDraft struct {
	ID      string       `json:"id"`
	Parent  string       `json:"parent"`
	Type    string       `json:"type"`
	Title   string       `json:"title"`
	Summary string       `json:"summary"`
	Tags    []string     `json:"tags"`
	Links   []StagedLink `json:"links"`
}

// StagedLink is a staged draft's link with its target's title, null when
// the target is outside the caller's scope (or gone).
type StagedLink struct {
	Rel         string  `json:"rel"`
	Target      string  `json:"target"`
	Confidence  float64 `json:"confidence,omitempty"`
	Note        string  `json:"note,omitempty"`
	TargetTitle *string `json:"target_title"`
}

// Compose runs an accepted compose call on v as sc sees it: stage is a
// dry run that writes nothing; draft plants the reviewed draft without
// asking the model again; neither plants as an upload does. opt are the
// host's Gardener options.
func Compose(ctx context.Context, v *vine.Vine, sc *vine.Scoped, opt gardener.Options, req Request) (*ComposeResult, error) {
	if v.ReadOnly() {
		return nil, envelope.New(envelope.ReadOnly, "ingest: this deployment is read-only", "ask the operator for a writable one")
	}
	opt.OnStage, opt.Progress = nil, nil
	if host := opt.CandidateFilter; !sc.Unrestricted() {
		opt.CandidateFilter = func(id string) bool { return sc.InScope(id) && (host == nil || host(id)) }
	}
	out := &ComposeResult{Mode: ModeCompose, CommitBefore: Head(v.Dir()), Bound: opt.Curator != nil}
	if req.Stage {
		rep, err := gardener.NewPreview(v, &opt).Upload(ctx, req.Files, req.Dest)
		if err != nil {
			return nil, err
		}
		out.report(rep)
		out.Preview = true
		out.Drafts = staged(v.Dir(), sc, rep.Drafts)
		return out, nil
	}
	files := req.Files
	if req.Draft != nil {
		files = []gardener.UploadFile{{Name: files[0].Name, Data: files[0].Data, Passport: req.Draft.passport()}}
		opt.Curator = nil // the approved scent is planted; the model is not asked again
	}
	rep, err := gardener.New(v, &opt).Upload(ctx, files, req.Dest)
	if err != nil {
		return nil, err
	}
	head := Head(v.Dir())
	out.report(rep)
	out.Commit = &head
	return out, nil
}

// report sets the Gardener's report and what it says of curation.
func (c *ComposeResult) report(rep *gardener.IngestReport) {
	c.IngestReport, c.Curated = rep, rep.Curation.LLMSummaries > 0
}

// staged are the drafts as a reviewer sees them.
func staged(dir string, sc *vine.Scoped, drafts []gardener.Draft) []StagedDraft {
	out := make([]StagedDraft, 0, len(drafts))
	for _, d := range drafts {
		sd := StagedDraft{ID: d.ID, Parent: d.Parent, Type: d.Type, Title: d.Title, Summary: d.Summary,
			Tags: d.Tags, Links: []StagedLink{}}
		if sd.Tags == nil {
			sd.Tags = []string{}
		}
		for _, l := range d.Links {
			sd.Links = append(sd.Links, StagedLink{Rel: l.Rel, Target: l.Target, Confidence: l.Confidence, Note: l.Note,
				TargetTitle: titleOf(dir, sc, l.Target)})
		}
		out = append(out, sd)
	}
	return out
}

// titleOf is a link target's title when the caller may see it.
func titleOf(dir string, sc *vine.Scoped, id string) *string {
	if !sc.InScope(id) {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt))
	if err != nil {
		return nil
	}
	n, err := forest.Parse(id, data)
	if err != nil {
		return nil
	}
	t := n.Title()
	return &t
}
