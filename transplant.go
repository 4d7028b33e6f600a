// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// TransplantResult answers a transplant: the node's new id, the id it left
// (now a waymark answering E_MOVED), how many links elsewhere were
// retargeted, and AliasClipped when the aliases were full so the old id
// could not join them.
type TransplantResult struct {
	ID                 string   `json:"id"`
	MovedFrom          string   `json:"moved_from"`
	BacklinksRewritten int      `json:"backlinks_rewritten"`
	Commit             string   `json:"commit"`
	Trail              []string `json:"trail"`
	AliasClipped       bool     `json:"alias_clipped,omitempty"`
}

func (r *TransplantResult) nodeIDs() []string { return []string{r.ID} }

// HeatRekeyer is the optional re-keying side of a HeatSource: when the
// configured HeatSource implements it, a transplant moves the node's heat
// from the old id to the new one (a collision keeps the hotter value).
type HeatRekeyer interface {
	Rekey(ctx context.Context, oldID, newID string) error
}

// Transplant moves one leaf to a new id in one commit (C.15): the passport
// is rewritten at the new address with moved_from and the old id as an
// alias, the old file is removed in the same commit (so history follows the
// move), links elsewhere are retargeted, both parent indexes are
// re-rendered and a local payload moves along. The old id becomes a
// waymark: reading it answers E_MOVED with moved_to. A refusal leaves the
// forest byte-identical.
func (v *Vine) Transplant(ctx context.Context, id, newID string) (*TransplantResult, error) {
	t, release, err := v.beginWrite("transplant")
	if err != nil {
		return nil, err
	}
	defer release()
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	dst := strings.Trim(strings.TrimSpace(newID), "/")
	if err := checkTransplantIDs(rec.ID, rec.Kind, dst); err != nil {
		return nil, err
	}
	if sc := scopeOf(ctx); !sc.in(dst) {
		return nil, sc.outOfGrant("transplant", "new_id", dst)
	}
	if err := v.checkDestination(ctx, dst); err != nil {
		return nil, err
	}
	n, err := v.files.node(rec)
	if err != nil {
		return nil, err
	}
	tp := &transplanting{v: v, old: n, dst: dst, touched: newTouchSet(v)}
	if err := tp.checkPayload(ctx); err != nil {
		return nil, err
	}
	if err := tp.plan(ctx); err != nil {
		return nil, err
	}
	return tp.commit(ctx, t)
}

// checkTransplantIDs runs checks 2-3: the new id's shape and what may move.
func checkTransplantIDs(old, kind, dst string) error {
	hint := "new_id is the full destination id, e.g. crm/leads-2026; its folder's branch must exist"
	switch {
	case dst == "":
		return envelope.New(envelope.Schema, "transplant: new_id is empty", hint)
	case dst == old:
		return envelope.New(envelope.Schema, "transplant: new_id equals id ("+old+"); nothing would move", hint)
	case kind == "branch" || forest.IsIndex(old):
		return envelope.New(envelope.Schema, "transplant: "+old+" is a branch; transplant moves one leaf",
			"move the branch's leaves one by one into a branch planted at the new place, then prune the emptied branch")
	case forest.IsSystem(old) || forest.IsSystem(dst):
		return envelope.New(envelope.Schema, "transplant: _meta nodes never move (from "+old+" to "+dst+")",
			"_meta holds the forest's dialect and config at fixed ids")
	case forest.IsIndex(dst):
		return envelope.New(envelope.Schema, "transplant: new_id "+dst+" is a branch index id; a leaf cannot become a branch",
			"pick a leaf id inside the destination branch's folder")
	case strings.HasSuffix(dst, forest.NodeExt) || strings.Contains(dst, "//"):
		return envelope.New(envelope.Schema, fmt.Sprintf("transplant: new_id %q is not a canonical id", dst), hint)
	}
	return nil
}

// checkDestination runs check 4: the new id is contained, free, and its
// parent index is a branch.
func (v *Vine) checkDestination(ctx context.Context, dst string) error {
	p, err := v.root.Path(dst)
	if err != nil {
		return err
	}
	_, inCatalog, err := v.cat.Get(ctx, dst)
	if err != nil {
		return err
	}
	if _, statErr := os.Lstat(p); statErr == nil || inCatalog {
		return envelope.New(envelope.Schema, "transplant: new_id already exists: "+dst,
			"choose a free id; transplant never overwrites a node")
	}
	parent := forest.ParentIndex(dst)
	prec, ok, err := v.cat.Get(ctx, parent)
	if err != nil {
		return err
	}
	if !ok || prec.Kind != "branch" {
		return envelope.New(envelope.NotFound, "transplant: destination branch not found: "+parent,
			"plant the branch first (type branch, id <folder>/_index), then transplant into it").
			With("expected_parent", parent)
	}
	return nil
}

// transplanting is one transplant in progress.
type transplanting struct {
	v       *Vine
	old     *forest.Node
	dst     string
	n       *forest.Node // the new passport
	touched *touchSet
	moves   fileMoves
	payload [2]string // absolute from, to of a local payload; empty when none
	res     *TransplantResult
}

// checkPayload (check 6): a local payload moves to the same relative place
// under the new folder, which must be free (§9.12).
func (tp *transplanting) checkPayload(ctx context.Context) error {
	src, _, ok := tp.v.place.OnDisk(payloadScope(ctx), tp.old.ID, tp.old.Payload())
	if !ok {
		return nil
	}
	rel := path.Join(path.Dir(tp.dst), tp.old.Payload())
	to, err := tp.v.root.File(rel)
	if err != nil {
		return envelope.New(envelope.Schema, "transplant: the payload would leave the forest at "+rel,
			"a payload lives beside its passport; choose a destination folder inside the forest")
	}
	for _, side := range payloadFiles(src) {
		if _, err := os.Lstat(to + strings.TrimPrefix(side, src)); err == nil {
			return envelope.New(envelope.Schema, "transplant: a payload file already exists at the destination: "+rel,
				"transplant never overwrites a payload; move or rename that file first, or choose another folder")
		}
	}
	tp.payload = [2]string{src, to}
	return nil
}

// plan builds the new passport, retargets the holders' links and moves the
// index entries; nothing is written yet.
func (tp *transplanting) plan(ctx context.Context) error {
	old, dst, today := tp.old.ID, tp.dst, tp.touched.today
	tp.res = &TransplantResult{ID: dst, MovedFrom: old, Trail: forest.Trail(dst)}
	n := &forest.Node{ID: dst, Front: tp.old.Front.Clone(), Body: tp.old.Body}
	n.Front.Set("id", dst)
	n.Front.Set("updated", today)
	tp.res.AliasClipped = !addAlias(n, old)
	n.Front.Set("moved_from", anyList(appendNew(n.MovedFrom(), old)))
	tp.res.BacklinksRewritten += retargetLinks(n, old, dst)
	tp.n = n

	anchors, err := anchorsOf(ctx, tp.v.cat, old)
	if err != nil {
		return err
	}
	if _, hidden := scopeOf(ctx).visibleAnchors(anchors); hidden > 0 {
		return hiddenAnchorsError("transplant", old, hidden)
	}
	for _, src := range anchorSources(anchors) {
		h, ok, err := tp.touched.get(src)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if changed := retargetLinks(h, old, dst); changed > 0 {
			tp.res.BacklinksRewritten += changed
			h.Front.Set("updated", today)
		} else {
			tp.touched.forget(src)
		}
	}
	if err := tp.touched.dropEntry(old); err != nil {
		return err
	}
	return tp.touched.addEntry(dst, n.Summary())
}

// appendNew appends s unless the list holds it already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// addAlias unions id into n's aliases. It reports false when the id could
// not join: the aliases are full (cap 16), or the id is longer than an
// alias may be. Hand-written aliases are never displaced.
func addAlias(n *forest.Node, id string) bool {
	aliases := n.Aliases()
	if slices.Contains(aliases, id) {
		return true
	}
	if len(aliases) >= forest.MaxAliases || utf8.RuneCountInString(id) > forest.MaxAliasChars {
		return false
	}
	n.Front.Set("aliases", anyList(append(aliases, id)))
	return true
}

// commit moves the payload, writes the new passport, removes the old one
// and writes holders and parents, all in one commit; any failure puts
// everything back.
func (tp *transplanting) commit(ctx context.Context, t *txn) (*TransplantResult, error) {
	if err := t.put(tp.n); err != nil {
		return nil, err
	}
	if err := tp.touched.stage(t); err != nil {
		return nil, err
	}
	t.remove(tp.old.ID)
	tp.moves.t = t
	if tp.payload[0] != "" {
		if err := tp.moves.moveWithSidecars(tp.payload[0], tp.payload[1]); err != nil {
			return nil, errors.Join(err, tp.moves.undo())
		}
	}
	sha, err := commitMoving(ctx, t, &tp.moves, gitops.TransplantSubject(tp.old.ID, tp.dst))
	if err != nil {
		return nil, err
	}
	tp.res.Commit = sha
	if t.listening() {
		t.emit(ctx, EventNodeTransplanted, map[string]any{"node": tp.dst, "moved_from": tp.old.ID,
			"backlinks_rewritten": tp.res.BacklinksRewritten, "commit": sha}, nil)
	}
	tp.v.markStale(ctx, append([]string{tp.dst}, tp.touched.ids()...)...) // §9.18: vectors are keyed by id
	if r, ok := tp.v.heat.source.(HeatRekeyer); ok {
		if err := r.Rekey(ctx, tp.old.ID, tp.dst); err != nil {
			tp.v.log.Warn("heat not re-keyed after transplant", "from", tp.old.ID, "to", tp.dst, "err", err)
		}
	}
	return tp.res, nil
}

// ---- wire ----

var transplantSignature = Signature{
	Name: "transplant",
	Doc: "Move one leaf to a new id in one commit: links pointing at it are retargeted, both parent indexes " +
		"updated, a local payload moves along, and the old id stays a waymark (reads answer E_MOVED with " +
		"moved_to; locate finds the old name as an alias). Branches are not moved: move their leaves.",
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "the leaf to move"},
		{Name: "new_id", Type: TString, Required: true, Doc: "its new id; the destination branch must exist"},
	},
	Destructive: true,
}

func init() { register(primitive{sig: transplantSignature, run: runTransplant}) }

func runTransplant(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Transplant(ctx, a.String("id"), a.String("new_id"))
}
