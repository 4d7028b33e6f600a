// SPDX-License-Identifier: Apache-2.0

package lint

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// The forest's truth is its files as the last commit has them; the branch
// indexes and the catalog are kept in step with them by every write. A
// write killed half-way, a hand edit or a stray tool can leave the three
// apart, and these lints name each disagreement as an error, so a clean
// validate means the forest is one consistent state.

// lintListings checks the branch indexes against the nodes: an entry
// naming no node, a node listed by two indexes, and a transplanted node
// whose old file still exists (the same node present twice).
func lintListings(rep *Report, nodes []*forest.Node, ids map[string]bool) {
	listedBy := map[string]string{}
	for _, n := range nodes {
		if !forest.IsIndex(n.ID) {
			continue
		}
		for _, sec := range []string{forest.SectionDirect, forest.SectionSubBranches} {
			for _, e := range forest.EntryIDs(n.Body, sec) {
				if !ids[e] {
					rep.add(n.ID, "error", fmt.Sprintf("lists %s, which does not exist", e))
				}
				if other, ok := listedBy[e]; ok && other != n.ID {
					rep.add(e, "error", fmt.Sprintf("listed by both %s and %s", other, n.ID))
				}
				listedBy[e] = n.ID
			}
		}
	}
	for _, n := range nodes {
		for _, old := range movedFrom(n) {
			if ids[old] && old != n.ID {
				rep.add(n.ID, "error", fmt.Sprintf("present twice: moved here from %s, which still exists", old))
			}
		}
	}
}

// movedFrom lists the former ids a transplanted node records.
func movedFrom(n *forest.Node) []string {
	raw, _ := n.Front.Get("moved_from")
	switch v := raw.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// lintHead compares the node files with HEAD: a file no commit holds, a
// file changed since HEAD, and a file HEAD holds that is gone.
func (l *Linter) lintHead(rep *Report, blobs map[string]string) error {
	if l.cfg.Repo == nil {
		rep.add(forest.RootIndexID, "warning", "no git repository of its own: the files were not compared with HEAD")
		return nil
	}
	repo, err := l.cfg.Repo()
	if err != nil {
		rep.add(forest.RootIndexID, "warning", "no git repository of its own: the files were not compared with HEAD")
		return nil
	}
	head, err := repo.HeadFiles()
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(blobs)) {
		id := strings.TrimSuffix(p, forest.NodeExt)
		switch want, ok := head[p]; {
		case blobs[p] == "":
		case !ok:
			rep.add(id, "error", "no commit holds this node file: plant it through the engine, or remove it")
		case want != blobs[p]:
			rep.add(id, "error", "changed since the last commit: commit the edit through the engine (graft), or restore it")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(head)) {
		if _, ok := blobs[p]; !ok && gitops.Versioned(p) {
			rep.add(strings.TrimSuffix(p, forest.NodeExt), "error", "the last commit holds this node, but its file is missing")
		}
	}
	return nil
}

// lintCatalog compares the derived catalog with the node files; reindex
// repairs any difference.
func (l *Linter) lintCatalog(ctx context.Context, rep *Report, blobs map[string]string) error {
	if l.cfg.Catalog == nil {
		return nil
	}
	ids, err := l.cfg.Catalog.IDs(ctx)
	if err != nil {
		return err
	}
	inCatalog := make(map[string]bool, len(ids))
	for _, id := range ids {
		inCatalog[id] = true
		if _, ok := blobs[id+forest.NodeExt]; !ok {
			rep.add(id, "error", "the catalog lists this node, but its file is missing: run reindex")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(blobs)) {
		if id := strings.TrimSuffix(p, forest.NodeExt); !inCatalog[id] && blobs[p] != "" {
			rep.add(id, "error", "this node file is not in the catalog: run reindex")
		}
	}
	return nil
}
