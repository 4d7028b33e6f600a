// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// MaxAnchorsListed caps the anchors an E_ANCHORED refusal names; the
// exact number is in anchor_count.
const MaxAnchorsListed = 20

// PruneOptions are the wire options of prune.
type PruneOptions struct {
	// Force drops every link pointing at the node from its holders, in the
	// same commit, instead of refusing with E_ANCHORED. It never overrides
	// a branch's children.
	Force bool
}

// PruneResult answers a prune. PayloadMoved is the forest-relative path
// the local payload was moved to in the graveyard, or nil.
type PruneResult struct {
	ID               string  `json:"id"`
	Pruned           bool    `json:"pruned"`
	BacklinksRemoved int     `json:"backlinks_removed"`
	PayloadMoved     *string `json:"payload_moved"`
	Commit           string  `json:"commit"`
}

// nodeIDs is empty: the node is gone, and heat for a dead id would greet
// whoever plants at the address next.
func (r *PruneResult) nodeIDs() []string { return nil }

// Anchor is one link that holds a node in place: its source and the rel
// as declared there.
type Anchor struct {
	Source string `json:"source"`
	Rel    string `json:"rel"`
}

// Prune removes one node reversibly (C.14): the passport is deleted through
// git (history keeps it), the parent index loses its entry, and a local
// payload moves to _derived/graveyard/<id>/, all in one commit. A branch
// with children, the root and _meta nodes are refused; so is a node other
// nodes link to, unless Force drops those links. A refusal leaves the forest
// byte-identical.
func (v *Vine) Prune(ctx context.Context, id string, opt PruneOptions) (*PruneResult, error) {
	t, release, err := v.beginWrite("prune")
	if err != nil {
		return nil, err
	}
	defer release()
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := checkPrunable(ctx, &v.stmts, rec); err != nil {
		return nil, err
	}
	anchors, err := anchorsOf(ctx, v.cat, rec.ID)
	if err != nil {
		return nil, err
	}
	visible, hidden := scopeOf(ctx).visibleAnchors(anchors)
	if len(anchors) > 0 && !opt.Force {
		return nil, anchoredError(rec.ID, visible, len(anchors))
	}
	if hidden > 0 {
		return nil, hiddenAnchorsError("prune", rec.ID, hidden)
	}
	n, err := v.files.node(rec)
	if err != nil {
		return nil, err
	}
	p := &pruning{v: v, n: n, touched: newTouchSet(v), res: &PruneResult{ID: n.ID, Pruned: true}}
	if err := p.plan(ctx, anchors); err != nil {
		return nil, err
	}
	return p.commit(ctx, t)
}

// checkPrunable refuses the root, _meta and branches with children.
func checkPrunable(ctx context.Context, stmts *stmtCache, rec catalog.Record) error {
	switch {
	case rec.ID == forest.RootIndexID:
		return envelope.New(envelope.Schema, "prune: the root index _index cannot be pruned",
			"the master branch holds the forest together; prune the nodes under it one by one")
	case forest.IsSystem(rec.ID):
		return envelope.New(envelope.Schema, "prune: "+rec.ID+" is a _meta node (the forest's dialect and config)",
			"_meta nodes are edited with graft, never pruned")
	case rec.Kind != "branch":
		return nil
	}
	children, err := childCount(ctx, stmts, rec.ID)
	if err != nil {
		return err
	}
	if children > 0 {
		return envelope.New(envelope.Anchored,
			fmt.Sprintf("prune: branch %s still has %d children", rec.ID, children),
			"prune or transplant its children first, one audited decision per node; force does not delete recursively").
			With("children", children)
	}
	return nil
}

// childCount counts the catalog children of a branch index.
func childCount(ctx context.Context, stmts *stmtCache, indexID string) (int, error) {
	return stmts.count(ctx, "SELECT COUNT(*) FROM nodes WHERE parent = ? AND id <> ?", indexID, indexID)
}

// anchorsOf lists the catalog's in-edges of id from other nodes:
// frontmatter links, not index listings.
func anchorsOf(ctx context.Context, cat *catalog.Catalog, id string) ([]Anchor, error) {
	in, err := cat.InEdges(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []Anchor
	for _, e := range in {
		if e.Src != id {
			out = append(out, Anchor{Source: e.Src, Rel: e.Rel})
		}
	}
	return out, nil
}

// anchorSources lists the distinct nodes holding anchors, in order.
func anchorSources(anchors []Anchor) []string {
	var srcs []string
	for _, a := range anchors {
		if !slices.Contains(srcs, a.Source) {
			srcs = append(srcs, a.Source)
		}
	}
	return srcs
}

func anchoredError(id string, anchors []Anchor, count int) error {
	return envelope.New(envelope.Anchored,
		fmt.Sprintf("prune: %d links from other nodes point at %s; pruning it would leave them dangling", count, id),
		"pass force: true to drop those links in the same commit, or remove them first with graft remove_links").
		With("anchors", anchors[:min(len(anchors), MaxAnchorsListed)]).
		With("anchor_count", count)
}

// pruning is one prune in progress.
type pruning struct {
	v       *Vine
	n       *forest.Node
	touched *touchSet
	moves   fileMoves
	buried  []burial
	res     *PruneResult
}

// burial is a file outside git on its way to the graveyard.
type burial struct {
	from, to string // absolute paths
	rel      string // forest-relative destination, for the result
	payload  bool
}

// plan stages the holders' link removals and the parent index, and finds
// the files to bury; nothing is written yet.
func (p *pruning) plan(ctx context.Context, anchors []Anchor) error {
	for _, src := range anchorSources(anchors) {
		h, ok, err := p.touched.get(src)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if removed := retargetLinks(h, p.n.ID, ""); removed > 0 {
			p.res.BacklinksRemoved += removed
			h.Front.Set("updated", p.touched.today)
		} else {
			p.touched.forget(src)
		}
	}
	if err := p.touched.dropEntry(p.n.ID); err != nil {
		return err
	}
	p.findBurials(ctx)
	return nil
}

// findBurials names the graveyard place of the local payload and of a
// staged upload source (v0.61).
func (p *pruning) findBurials(ctx context.Context) {
	grave := graveyardDir(p.n.ID)
	graveAbs := filepath.Join(p.v.root.Dir(), filepath.FromSlash(grave))
	if src, rel, ok := p.v.place.OnDisk(payloadScope(ctx), p.n.ID, p.n.Payload()); ok {
		name := freeName(graveAbs, path.Base(rel))
		p.buried = append(p.buried, burial{from: src, to: filepath.Join(graveAbs, name),
			rel: grave + "/" + name, payload: true})
	}
	if src := p.v.files.stagedSource(p.n); src != "" {
		dir := filepath.Join(graveAbs, "source")
		name := freeName(dir, filepath.Base(src))
		p.buried = append(p.buried, burial{from: src, to: filepath.Join(dir, name), rel: grave + "/source/" + name})
	}
}

// stagedSource is the node's upload source when it still sits in the
// forest's own _derived staging (source_root inside _derived), or "".
func (f nodeFiles) stagedSource(n *forest.Node) string {
	sp := n.Front.String("source_path")
	root := f.sourceRoot()
	if sp == "" || root == "" || remoteURI.MatchString(sp) {
		return ""
	}
	derived, err := filepath.EvalSymlinks(filepath.Join(f.root.Dir(), forest.DerivedDir))
	if err != nil {
		return ""
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil || !within(derived, realRoot) {
		return ""
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(sp)))
	if err != nil || !within(realRoot, real) || within(filepath.Join(derived, "graveyard"), real) {
		return ""
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return real
}

// within reports whether p lies strictly inside dir.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) &&
		!filepath.IsAbs(rel)
}

// commit buries the files, deletes the passport and writes the holders and
// the parent in one commit; any failure puts everything back.
func (p *pruning) commit(ctx context.Context, t *txn) (*PruneResult, error) {
	if err := p.touched.stage(t); err != nil {
		return nil, err
	}
	t.remove(p.n.ID)
	p.moves.t = t
	for _, b := range p.buried {
		move := p.moves.move
		if b.payload {
			move = p.moves.moveWithSidecars
		}
		if err := move(b.from, b.to); err != nil {
			return nil, errors.Join(err, p.moves.undo())
		}
		if b.payload {
			rel := b.rel
			p.res.PayloadMoved = &rel
		}
	}
	sha, err := commitMoving(ctx, t, &p.moves, gitops.PruneSubject(p.n.ID))
	if err != nil {
		return nil, err
	}
	p.res.Commit = sha
	if t.listening() {
		t.emit(ctx, EventNodePruned, map[string]any{"node": p.n.ID, "backlinks_removed": p.res.BacklinksRemoved, "commit": sha}, nil)
	}
	p.v.markStale(ctx, p.touched.ids()...)
	if forest.IsIndex(p.n.ID) {
		p.removeEmptyFolder()
	}
	return p.res, nil
}

// removeEmptyFolder removes a pruned branch's folder when nothing is left
// in it, best effort: a leftover file is the operator's, not ours.
func (p *pruning) removeEmptyFolder() {
	file, err := p.v.root.TrustedPath(p.n.ID)
	if err != nil {
		return
	}
	dir := filepath.Dir(file)
	if dir != p.v.root.Dir() {
		os.Remove(filepath.Join(dir, forest.AssetsDir)) // only when empty
		os.Remove(dir)
	}
}

// ---- wire ----

var pruneSignature = Signature{
	Name: "prune",
	Doc: "Remove one node reversibly in one commit: its passport leaves git's tip (history keeps it), its " +
		"parent index entry goes, a local payload moves to _derived/graveyard/<id>/. Refused with E_ANCHORED " +
		"while other nodes link to it (listed in anchors) unless force drops those links; branches must be " +
		"emptied first.",
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "the node to prune"},
		{Name: "force", Type: TBoolean, Default: false, Doc: "drop every link pointing at the node instead of refusing"},
	},
	Destructive: true,
}

func init() { register(primitive{sig: pruneSignature, run: runPrune}) }

func runPrune(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Prune(ctx, a.String("id"), PruneOptions{Force: a.Bool("force")})
}
