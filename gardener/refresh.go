// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/dataset"
)

// reconcile decides a file that has a passport (G.8 §10.4): the fast
// path trusts an unchanged size and modification time without reading a
// byte; otherwise the hash decides between settle and refresh.
func (r *run) reconcile(ctx context.Context, f *sourceFile, p passport) error {
	same := p.hasStat && p.size == f.size && p.mtimeMS == f.mtimeMS
	if !same {
		if err := f.hashFile(); err != nil {
			r.fail(f.rel, err)
			return nil
		}
		same = f.hash == p.hash
	}
	if same {
		return r.settle(ctx, f, p)
	}
	return r.refresh(ctx, f, p)
}

// backfill is the part of every visit that reaches old passports without
// re-conversion (G.2.6, G.2.7): derived aliases unioned after the
// existing ones, origin set when absent. It edits n and names what it
// changed ("aliases", "origin").
func (r *run) backfill(n *forest.Node, f *sourceFile) (changed []string, clipped int) {
	have := n.Aliases()
	merged, clipped := unionAliases(have, DeriveAliases(f.rel, n.Title(), n.Body, r.cfg.Aliases))
	if len(merged) > len(have) {
		n.Front.Set("aliases", anyList(merged))
		changed = append(changed, "aliases")
	}
	if n.Origin() == "" {
		if o := r.origin(f); o != "" {
			n.Front.Set("origin", o)
			changed = append(changed, "origin")
		}
	}
	return changed, clipped
}

// settle is the unchanged source: a backfill commit when it changed the
// passport (updated), else nothing (unchanged).
func (r *run) settle(ctx context.Context, f *sourceFile, p passport) error {
	n, err := r.readNode(p.id)
	if err != nil {
		r.fail(p.id, err)
		return nil
	}
	if r.stubbed(n, f) {
		return r.describeStub(ctx, f, p, n)
	}
	return r.settleNode(ctx, f, p, n)
}

// settleNode is settle once the passport n is read.
func (r *run) settleNode(ctx context.Context, f *sourceFile, p passport, n *forest.Node) error {
	changed, clipped := r.backfill(n, f)
	r.report.AliasesClipped += clipped
	if len(changed) == 0 {
		r.report.Unchanged = append(r.report.Unchanged, p.id)
		r.landed(f)
		return nil
	}
	subject := gitops.GardenerBackfillSubject(changed[0], p.id)
	err := r.sink.rewrite(context.WithoutCancel(ctx), p.id, subject, func(n *forest.Node) error {
		r.backfill(n, f)
		return nil
	})
	if err != nil {
		r.fail(p.id, err)
		return nil
	}
	r.report.Updated = append(r.report.Updated, p.id)
	r.landed(f)
	return nil
}

// refresh re-converts a changed source (G.8 §10.5) without curating it:
// summary, tags, links, confidence, title and every section the Gardener
// did not generate stay as approved; the source fields, the generated
// body and the payload follow the new bytes.
func (r *run) refresh(ctx context.Context, f *sourceFile, p passport) error {
	n, err := r.readNode(p.id)
	if err != nil {
		r.fail(p.id, err)
		return nil
	}
	conv, err := r.convert(ctx, f, p.id)
	if conv == nil {
		return err
	}
	return r.refreshWith(ctx, f, p, n, conv)
}

// refreshWith is refresh once the passport n is read and its source
// converted to conv.
func (r *run) refreshWith(ctx context.Context, f *sourceFile, p passport, n *forest.Node, conv *Conversion) error {
	rf, err := r.prepareRefresh(ctx, f, n, conv)
	if cerr := ctx.Err(); cerr != nil {
		if rf != nil && rf.fresh != "" {
			r.sink.remove(rf.fresh)
		}
		return cerr // the document stays as it was: nothing was committed
	}
	if err != nil {
		r.fail(f.rel, err)
		return nil
	}
	if !r.dry {
		r.stage(f.rel, StagePlant)
	}
	if err := rf.apply(context.WithoutCancel(ctx)); err != nil {
		r.fail(p.id, err)
		return nil
	}
	r.report.Updated = append(r.report.Updated, p.id)
	r.landed(f)
	return nil
}

// refreshing is a prepared refresh: the edit of the passport and the
// files to move in with it.
type refreshing struct {
	r        *run
	f        *sourceFile
	id       string
	body     string // the new node body
	cached   bool   // the node is content: cached
	cache    string // its new cached body
	payload  string // the payload file, when it is replaced
	fresh    string // the prepared replacement (beside it)
	freshSum string // its sha256
	arch     *archived
	oldArch  string // the archived copy the refresh replaces
}

// prepareRefresh computes the new body and builds any replacement payload
// beside the old one, without touching the passport yet.
func (r *run) prepareRefresh(ctx context.Context, f *sourceFile, n *forest.Node, conv *Conversion) (*refreshing, error) {
	rf := &refreshing{r: r, f: f, id: n.ID, body: n.Body}
	isDataset := n.Type() == "dataset"
	switch {
	case isDataset != (conv.Kind != KindMarkdown):
		return nil, fmt.Errorf("the source now converts to %s but its passport is a %s; prune it and sync to plant it anew",
			conv.Kind, n.Type())
	case conv.Kind == KindMarkdown:
		switch n.Content() {
		case ContentCached:
			rf.cached, rf.cache = true, withProvenance(conv.Markdown, r.urls[f.rel])
		case ContentReference:
		default:
			rf.body = plantBody(n.Title(), withProvenance(conv.Markdown, r.urls[f.rel]))
		}
	default:
		if err := rf.preparePayload(ctx, n, conv); err != nil {
			return nil, err
		}
		rf.body = replaceMap(n.Body, conv)
	}
	if a := r.archiveFor(f, conv.Kind, n.ID); a != nil {
		rf.arch = a
		if old := n.Payload(); a.typ != "" && old != a.ref && path.Dir(old) == forest.AssetsDir {
			rf.oldArch = filepath.Join(filepath.Dir(r.nodePath(n.ID)), filepath.FromSlash(old))
		}
	}
	return rf, nil
}

// preparePayload builds the dataset's new payload beside the old one: a
// conversion is born whole again (DDL + parameterised rows), an adopted
// SQLite file is copied. Nothing replaces the payload until apply.
func (rf *refreshing) preparePayload(ctx context.Context, n *forest.Node, conv *Conversion) error {
	r := rf.r
	name := n.Payload()
	if name == "" || path.Base(name) != name {
		return fmt.Errorf("dataset passport names no local payload to refresh (payload %q)", name)
	}
	rf.payload = filepath.Join(filepath.Dir(r.nodePath(n.ID)), name)
	rf.fresh = filepath.Join(filepath.Dir(rf.payload), "."+name+".refresh.db")
	if r.dry {
		return nil
	}
	r.sink.remove(rf.fresh) // a crashed refresh's leftover
	if conv.Kind == KindPayload {
		rf.freshSum = rf.f.hash
		return r.sink.install(rf.f.abs, rf.fresh)
	}
	// The birth path validates names and types before any DDL is built
	// from them; a rebuild must too (a plugin's table name is text).
	tables := tableSpecs(conv)
	if err := dataset.ValidateSchema(tables, true); err != nil {
		return err
	}
	if err := dataset.ValidateRows(tables, conv.Rows); err != nil {
		return err
	}
	if err := r.sink.createDataset(ctx, rf.fresh, tables, conv.Rows); err != nil {
		return err
	}
	sum, err := dataset.HashFile(rf.fresh)
	if err != nil {
		r.sink.remove(rf.fresh)
		return err
	}
	rf.freshSum = sum
	return nil
}

// edit applies the refresh to the passport under the writer's lock.
func (rf *refreshing) edit(n *forest.Node) error {
	f := rf.f
	n.Body = rf.body
	n.Front.Set("source_hash", f.hash)
	n.Front.Set("source_size", f.size)
	n.Front.Set("source_mtime", f.mtime())
	if rf.freshSum != "" {
		n.Front.Set("payload_hash", rf.freshSum)
	}
	if a := rf.arch; a != nil && a.typ != "" {
		n.Front.Set("payload", a.ref)
		n.Front.Set("payload_type", a.typ)
		n.Front.Set("payload_hash", f.hash)
	}
	rf.r.backfill(n, f)
	return nil
}

// apply moves the prepared files in and commits the passport; if the
// commit fails, the old payload, cache and archive are put back.
func (rf *refreshing) apply(ctx context.Context) error {
	r := rf.r
	if r.dry {
		return nil
	}
	var restore []func()
	undo := func(err error) error {
		for i := len(restore) - 1; i >= 0; i-- {
			restore[i]()
		}
		return err
	}
	for _, step := range []func() (func(), error){rf.swapPayload, rf.writeCache, rf.archive} {
		back, err := step()
		if err != nil {
			return undo(err)
		}
		if back != nil {
			restore = append(restore, back)
		}
	}
	if err := r.sink.rewrite(ctx, rf.id, gitops.GardenerSyncSubject(rf.id), rf.edit); err != nil {
		return undo(err)
	}
	if rf.fresh != "" {
		r.sink.remove(rf.payload + ".bak")
	}
	if rf.oldArch != "" {
		r.sink.remove(rf.oldArch) // best effort: the passport no longer names it
	}
	return nil
}

// swapPayload puts the prepared payload in place, keeping the old one
// beside it until the commit landed.
func (rf *refreshing) swapPayload() (func(), error) {
	if rf.fresh == "" {
		return nil, nil
	}
	s, backup := rf.r.sink, rf.payload+".bak"
	if err := s.rename(rf.payload, backup); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.remove(rf.fresh)
		return nil, err
	}
	if err := s.rename(rf.fresh, rf.payload); err != nil {
		s.rename(backup, rf.payload)
		s.remove(rf.fresh)
		return nil, err
	}
	return func() { s.rename(backup, rf.payload) }, nil
}

// writeCache rewrites a content: cached body.
func (rf *refreshing) writeCache() (func(), error) {
	if !rf.cached {
		return nil, nil
	}
	s, p := rf.r.sink, rf.r.bodyCachePath(rf.id)
	prev, perr := os.ReadFile(p)
	if err := s.writeFile(p, []byte(rf.cache)); err != nil {
		return nil, err
	}
	if perr != nil {
		return func() { s.remove(p) }, nil
	}
	return func() { s.writeFile(p, prev) }, nil
}

// archive copies the new original into _assets/ (a copy with the same
// digest is already there).
func (rf *refreshing) archive() (func(), error) {
	a := rf.arch
	if a == nil || fileExists(a.path) {
		return nil, nil
	}
	if err := rf.r.sink.install(rf.f.abs, a.path); err != nil {
		return nil, err
	}
	return func() { rf.r.sink.remove(a.path) }, nil
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
