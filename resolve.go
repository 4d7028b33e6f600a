// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// notFound is the one absent-node envelope: the same bytes whatever the
// reason (absent, escaping the forest, out of scope), so a refusal is
// never an existence oracle.
func notFound(id string) *envelope.Error {
	return envelope.New(envelope.NotFound, "node not found: "+id,
		"ids are exact paths without .md; find one with locate, or list a branch with scan")
}

// moved is the waymark envelope of C.15: the id was transplanted.
func moved(id, to string) *envelope.Error {
	return envelope.New(envelope.Moved, "node moved: "+id+" is now "+to,
		"read it at moved_to").With("moved_to", to)
}

// idTooLong is the not-found of an id no file system could hold. Naming
// the limit reveals nothing of the forest: no forest has such a node.
func idTooLong(raw, reason string) *envelope.Error {
	return envelope.New(envelope.NotFound, "node not found: "+raw,
		"no node can have this id: it "+reason+"; ids are exact paths without .md, "+
			"and a file name is at most 255 bytes").With("limit", "id_length")
}

// resolver turns caller-supplied ids into catalog rows: it contains the
// id, indexes a node file the catalog does not know yet (self-heal) and
// answers a transplanted id with its waymark.
type resolver struct {
	files nodeFiles
	cat   *catalog.Catalog
	log   *slog.Logger
}

// resolve finds the catalog row of a caller-supplied id. The id is
// contained with symlink resolution first; a file without a row is
// indexed on the spot (self-heal), or its read refusal returned (the id
// is in scope, so saying it is unreadable reveals nothing the caller may
// not see); a waymark answers E_MOVED.
func (r resolver) resolve(ctx context.Context, raw string) (catalog.Record, error) {
	if reason := forest.IDTooLong(strings.Trim(strings.TrimSpace(raw), "/")); reason != "" {
		return catalog.Record{}, idTooLong(raw, reason)
	}
	id, path, ok := r.files.reachable(ctx, raw)
	if !ok {
		return catalog.Record{}, notFound(raw)
	}
	sc := scopeOf(ctx)
	rec, ok, err := r.cat.Get(ctx, id)
	if err != nil {
		return catalog.Record{}, err
	}
	if ok {
		return rec, nil
	}
	if _, statErr := os.Stat(path); statErr == nil {
		rec, ok, err := r.heal(ctx, id, path)
		if ok || err != nil {
			return rec, err
		}
	}
	to, isMoved, err := r.cat.MovedTo(ctx, id)
	if err != nil {
		return catalog.Record{}, err
	}
	if isMoved && sc.in(to) {
		// A redirect to a hidden node collapses to not-found (C.15): the
		// waymark must not reveal where it went.
		return catalog.Record{}, moved(id, to)
	}
	return catalog.Record{}, notFound(raw)
}

// lexicalID returns the canonical form of a caller-supplied id that a
// string-only check admits: an id's shape, lexically inside the forest
// ("..", absolute paths refused), and visible to the call's scope. It does
// not touch the file system. It serves a read that then finds the id's
// catalog row and reads nothing but the catalog: the row proves the id
// was indexed from a file inside the forest, and a file swapped for a
// symlink since is never opened. A read of the file itself goes through
// resolve. Whatever it does not admit, resolve refuses with the exact
// answer.
func (r resolver) lexicalID(ctx context.Context, raw string) (string, bool) {
	id := strings.Trim(strings.TrimSpace(raw), "/")
	if id == "" || !scopeOf(ctx).in(id) {
		return "", false
	}
	if _, err := r.files.root.TrustedPath(id); err != nil {
		return "", false
	}
	return id, true
}

// reachable trims a caller-supplied id to its canonical form and reports
// whether it names a file inside the forest (symlinks resolved) that the
// call's scope can see, with the file's path.
func (f nodeFiles) reachable(ctx context.Context, raw string) (id, path string, ok bool) {
	id = strings.Trim(strings.TrimSpace(raw), "/")
	path, err := f.root.Path(id)
	return id, path, err == nil && id != "" && scopeOf(ctx).in(id)
}

// heal upserts the row of a node file the catalog does not know yet. A
// canonical id only: the path must map back to exactly this id, so a
// non-canonical spelling never creates a row. A file the reader refuses
// (E_FRONTMATTER: malformed, or past a read limit) returns that refusal.
func (r resolver) heal(ctx context.Context, id, path string) (catalog.Record, bool, error) {
	if canon, err := r.files.root.IDOf(path); err != nil || canon != id {
		return catalog.Record{}, false, nil
	}
	n, err := parseFile(id, path, r.files.limits)
	if envelope.CodeOf(err) == envelope.Frontmatter {
		return catalog.Record{}, false, err
	}
	if err != nil {
		return catalog.Record{}, false, nil
	}
	rec := recordOf(n)
	if err := r.cat.Upsert(ctx, rec); err != nil {
		r.log.Warn("self-heal upsert failed", "id", id, "err", err)
	}
	return rec, true, nil
}

// nodeFiles reads the forest's node files within its read limits, and
// the bodies content: cached and content: reference point to (pick.go).
type nodeFiles struct {
	root   forest.Root
	limits forest.ReadLimits
}

// read reads and parses the node file of a canonical id.
func (f nodeFiles) read(id string) (*forest.Node, error) {
	path, err := f.root.TrustedPath(id)
	if err != nil {
		return nil, err
	}
	data, err := forest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return forest.ParseWithin(id, data, f.limits)
}

// node reads and parses the file of a resolved record (a catalog id, so
// the cheap lexical containment applies).
func (f nodeFiles) node(rec catalog.Record) (*forest.Node, error) {
	n, err := f.read(rec.ID)
	if errors.Is(err, os.ErrNotExist) {
		return nil, notFound(rec.ID)
	}
	return n, err
}

// scopePrefix resolves a scope parameter the way sniff, calendar and
// coverage take it: "" or "_index" is the whole forest; a branch named as
// x, x/ or x/_index covers ids under "x/"; a leaf id covers that node
// alone. It returns the branch prefix ("" for the whole forest) or the leaf
// id, and whether it is a leaf. Unknown scopes answer E_NOT_FOUND naming
// exactly what was sent.
func scopePrefix(ctx context.Context, cat *catalog.Catalog, scope string) (prefix string, leaf bool, err error) {
	s := strings.TrimSpace(scope)
	if s == "" || s == forest.RootIndexID || s == "/" {
		return "", false, nil
	}
	index, nerr := forest.NormalizeBranch(s)
	if nerr != nil {
		return "", false, nerr
	}
	sc := scopeOf(ctx)
	if _, ok, err := cat.Get(ctx, index); err != nil {
		return "", false, err
	} else if ok && sc.in(index) {
		return forest.BranchDir(index) + "/", false, nil
	}
	id := strings.Trim(s, "/")
	if _, ok, err := cat.Get(ctx, id); err != nil {
		return "", false, err
	} else if ok && !forest.IsIndex(id) && sc.in(id) {
		return id, true, nil
	}
	return "", false, envelope.New(envelope.NotFound, "scope not found: "+scope,
		"name a branch (x, x/ or x/_index) or a node id; list branches with scan(\"_index\")")
}

// Record is the catalog row of a node addressed from outside (wire, host
// or a reader such as a harvest sweep): the id is contained, a file without a
// row is indexed on the spot, and a moved id answers E_MOVED.
func (v *Vine) Record(ctx context.Context, id string) (catalog.Record, error) {
	return v.resolver.resolve(ctx, id)
}

// Records returns the catalog rows of many ids at once, keyed by id, for
// composites that sort or filter many nodes: node columns only (no edges
// or waymarks), no self-heal, and ids absent or hidden by the call's
// policy are simply missing from the map.
func (v *Vine) Records(ctx context.Context, ids []string) (map[string]catalog.Record, error) {
	sc := scopeOf(ctx)
	visible := make([]string, 0, len(ids))
	for _, id := range ids {
		if sc.in(id) {
			visible = append(visible, id)
		}
	}
	return v.cat.GetMany(ctx, visible)
}

// InEdges are the declared links pointing at id, from nodes the call's
// policy can see: a hidden node's link is no evidence a scoped reader may
// act on (its supersession, for one, must not hide a visible node).
func (v *Vine) InEdges(ctx context.Context, id string) ([]catalog.InEdge, error) {
	return visibleInEdges(ctx, v.cat, id)
}

// visibleInEdges is InEdges over cat.
func visibleInEdges(ctx context.Context, cat *catalog.Catalog, id string) ([]catalog.InEdge, error) {
	in, err := cat.InEdges(ctx, id)
	if err != nil {
		return nil, err
	}
	sc := scopeOf(ctx)
	if !sc.restricted() {
		return in, nil
	}
	out := in[:0:0]
	for _, e := range in {
		if sc.in(e.Src) {
			out = append(out, e)
		}
	}
	return out, nil
}
