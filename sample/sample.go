// SPDX-License-Identifier: Apache-2.0

// Package sample writes the sample forest, "Maré Alta": the forest of an
// invented fishing cooperative that the tour walks through and the
// engine's own tests stand on. A host can use it for demos and for its own
// tests without writing a forest by hand.
//
// [Build] writes about a hundred nodes in thirteen branches, with every
// node type, typed links of every default rel, a SQLite dataset, a media
// node with its payload, accented text and bodies long enough to page,
// and commits them in the forest's own git repository. The result is
// deterministic (the content and its dates never change) and is what the
// engine itself would have written; it has no catalog until it is opened
// and reindexed:
//
//	f, err := sample.Build(ctx, dir)
//	...
//	v, err := vine.Open(ctx, f.Dir, nil)
//	...
//	_, err = v.Reindex(ctx)
//
// [Forest] names the nodes worth aiming at (the dataset, a media node, a
// node long enough to page, an accented title), so a demo or a test need
// not hard-code ids.
package sample

import (
	"context"

	"github.com/monkeyllm/vine/internal/fixture"
)

// Title is the master branch title of the sample forest.
const Title = fixture.Title

// Forest describes the sample forest Build wrote. The slices are the
// caller's to keep; a later Build returns new ones.
type Forest struct {
	Dir      string   // the forest root Build wrote
	Nodes    []string // every node id, sorted
	Branches []string // the branch ids, sorted
	Links    int      // declared links across all nodes
	Dataset  string   // id of the SQLite dataset node (table ledger)
	Media    string   // id of a media node whose payload is present
	Large    string   // id of a node whose body spans more than one pick page
	Accented string   // id of a node whose title carries diacritics
}

// Build writes the sample forest into dir, which must be empty or absent,
// commits it in the forest's own git repository and describes what it
// wrote. It does not open the forest: open it with vine.Open and reindex
// to build its catalog.
func Build(ctx context.Context, dir string) (*Forest, error) {
	m, err := fixture.Build(ctx, dir)
	if err != nil {
		return nil, err
	}
	return &Forest{
		Dir:      dir,
		Nodes:    m.Nodes,
		Branches: m.Branches,
		Links:    m.Edges,
		Dataset:  m.Dataset,
		Media:    m.Media,
		Large:    m.Large,
		Accented: m.Accented,
	}, nil
}
