// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
)

// newDoc is a new source file on its way to a passport.
type newDoc struct {
	f     *sourceFile
	conv  *Conversion
	draft *Draft
	mode  string    // content policy
	arch  *archived // stage-0 copy, or nil
}

// plantNew converts, curates and plants a file the forest has no passport
// for (G.8 "new").
func (r *run) plantNew(ctx context.Context, f *sourceFile) error {
	if err := f.hashFile(); err != nil {
		r.fail(f.rel, err)
		return nil
	}
	conv, err := r.convert(ctx, f, f.rel)
	if conv == nil {
		return err
	}
	doc, err := r.newDraft(f, conv)
	if err != nil {
		r.fail(f.rel, err)
		return nil
	}
	r.stage(f.rel, StageCurate)
	curation{r: r, d: doc.draft, dataset: conv.Kind != KindMarkdown}.run(ctx)
	if err := ctx.Err(); err != nil {
		return err // the document is absent: nothing of it was written
	}
	doc.mode = r.contentMode(f, conv.Kind != KindMarkdown)
	doc.arch = r.archiveFor(f, conv.Kind, doc.draft.ID)
	if !r.dry {
		r.stage(f.rel, StagePlant)
	}
	// A started plant finishes: cancellation is honoured between
	// documents, so a document is whole or absent.
	wctx := context.WithoutCancel(ctx)
	if err := r.ensureBranches(wctx, r.destDir, f.rel); err != nil {
		r.fail(f.rel, err)
		return nil
	}
	if err := r.plantDoc(wctx, doc); err != nil {
		r.fail(f.rel, err)
		return nil
	}
	r.planned[doc.draft.ID] = true
	r.report.Planted = append(r.report.Planted, doc.draft.ID)
	if r.dry {
		r.report.Drafts = append(r.report.Drafts, doc.draft.clone())
	}
	r.landed(f)
	return nil
}

// claimants are the converters of ext in the order this run tries
// them: an explicit list, else discovery.
func (r *run) claimants(ext string) []claimant {
	if r.c.opt.ExplicitConverters != nil {
		return listClaimants(r.c.opt.ExplicitConverters, ext)
	}
	return claimants(r.cfg.Converters, r.c.opt.Converters, ext, r.c.opt.Limits)
}

// convert runs the convert stage: claimants in discovery order with
// fallthrough (G.2). who names the file in report lines (the source path,
// or the id on refreshes that lost their converter). A nil conversion
// means the step is settled (unsupported or an error line) unless the
// returned error is the context's.
func (r *run) convert(ctx context.Context, f *sourceFile, who string) (*Conversion, error) {
	cl := r.claimants(f.ext)
	if len(cl) == 0 {
		r.report.Unsupported = append(r.report.Unsupported, who)
		return nil, nil
	}
	r.stage(f.rel, StageConvert)
	conv, _, fallbacks, err := convertWith(ctx, cl, f.abs, f.rel)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	r.report.Errors = append(r.report.Errors, fallbacks...)
	switch {
	case errors.Is(err, ErrUnsupported):
		r.report.Unsupported = append(r.report.Unsupported, who)
		return nil, nil
	case err != nil:
		r.fail(f.rel, err)
		return nil, nil
	case conv == nil:
		r.fail(f.rel, errors.New("the converter returned nothing"))
		return nil, nil
	}
	return conv, nil
}

// newDraft builds the passport of a new file (G.9 §9): deterministic id
// and parent, type from the source, the body, the model-free summary,
// derived aliases.
func (r *run) newDraft(f *sourceFile, conv *Conversion) (*newDoc, error) {
	title := strings.Join(strings.Fields(conv.Title), " ")
	if title == "" {
		title = stemTitle(f.rel)
	}
	id, err := nodeIDFor(r.destDir, f.rel, r.taken)
	if err != nil {
		return nil, err
	}
	d := &Draft{ID: id, Parent: forest.ParentIndex(id), Title: title, SourcePath: f.rel, Links: []DraftLink{}}
	switch conv.Kind {
	case KindMarkdown:
		d.Type, d.Body = nodeType(f.ext), conv.Markdown
		d.Summary = DeriveSummary(title, d.Body)
		d.Body = withProvenance(d.Body, r.urls[f.rel]) // after the summary: a URL is not scent
	case KindDataset, KindPayload:
		if len(conv.Tables) == 0 {
			return nil, errors.New("the converter returned a dataset without tables")
		}
		d.Type, d.Body = "dataset", mapBody(title, conv)
		d.Summary = DatasetSummary(title, conv.Tables, rowCounts(conv))
	default:
		return nil, fmt.Errorf("the converter returned unknown kind %q", conv.Kind)
	}
	d.Aliases = DeriveAliases(f.rel, title, d.Body, r.cfg.Aliases)
	return &newDoc{f: f, conv: conv, draft: d}, nil
}

// ensureBranches plants the branches rel needs under destDir, outermost
// first, each as its own commit (a preview only notes them).
func (r *run) ensureBranches(ctx context.Context, destDir, rel string) error {
	for _, b := range branchChain(destDir, rel) {
		if r.taken(b.id) {
			continue
		}
		if err := r.sink.plant(ctx, b.node()); err != nil {
			return fmt.Errorf("branch %s: %w", b.id, err)
		}
		r.planned[b.id] = true
		r.report.Branches = append(r.report.Branches, b.id)
	}
	return nil
}

// plantDoc writes a curated draft: the body cache, the archived original
// and the SQLite payload first, then the passport. If the plant fails,
// every file written for it is removed again (C.7 atomicity).
func (r *run) plantDoc(ctx context.Context, doc *newDoc) error {
	spec := r.spec(doc)
	var undo []string
	fail := func(err error) error {
		for _, p := range undo {
			r.sink.remove(p)
		}
		return err
	}
	if doc.mode == ContentCached {
		p := r.bodyCachePath(doc.draft.ID)
		if err := r.sink.writeFile(p, []byte(doc.draft.Body)); err != nil {
			return err
		}
		undo = append(undo, p)
	}
	if a := doc.arch; a != nil && !fileExists(a.path) { // same bytes, same name: already archived
		if err := r.sink.install(doc.f.abs, a.path); err != nil {
			return fail(err)
		}
		undo = append(undo, a.path)
	}
	if doc.conv.Kind == KindPayload {
		p := filepath.Join(filepath.Dir(r.nodePath(doc.draft.ID)), spec.Payload)
		if err := r.sink.install(doc.f.abs, p); err != nil {
			return fail(err)
		}
		undo = append(undo, p)
	}
	if err := r.sink.plant(ctx, spec); err != nil {
		return fail(err)
	}
	return nil
}

// spec renders the plant of a curated draft (G.1, §9).
func (r *run) spec(doc *newDoc) vine.NodeSpec {
	d, f := doc.draft, doc.f
	conf := ingestConfidence
	spec := vine.NodeSpec{ID: d.ID, Type: d.Type, Title: d.Title, Summary: d.Summary, Parent: d.Parent,
		Body: nodeBody(doc.mode, d.Title, d.Body), Tags: d.Tags, Confidence: &conf, Source: ingestSource,
		Aliases: d.Aliases, Origin: r.origin(f), Lang: d.Lang}
	for _, l := range d.Links {
		link := vine.Link{Rel: l.Rel, Target: l.Target}
		if l.Confidence > 0 {
			link.Confidence = &l.Confidence
		}
		if l.Note != "" {
			link.Extra = []forest.Field{{Key: "note", Value: l.Note}}
		}
		spec.Links = append(spec.Links, link)
	}
	switch {
	case doc.conv.Kind == KindDataset:
		spec.Schema, spec.Rows = tableSpecs(doc.conv), doc.conv.Rows
	case doc.conv.Kind == KindPayload:
		spec.Payload, spec.PayloadType, spec.PayloadHash = path.Base(d.ID)+".db", "sqlite", f.hash
	case doc.arch != nil && doc.arch.typ != "":
		spec.Payload, spec.PayloadType, spec.PayloadHash = doc.arch.ref, doc.arch.typ, f.hash
	}
	spec.Extra = []forest.Field{
		{Key: "source_path", Value: f.rel},
		{Key: "source_hash", Value: f.hash},
		{Key: "source_size", Value: f.size},
		{Key: "source_mtime", Value: f.mtime()},
	}
	if doc.mode != ContentInline {
		spec.Extra = append(spec.Extra, forest.Field{Key: "content", Value: doc.mode})
	}
	return spec
}
