// SPDX-License-Identifier: Apache-2.0

// Package reindex keeps the derived catalog in step with the node files:
// it rebuilds the whole catalog from a walk of the forest, indexes again
// the files a write changed behind its back (a repaired write, a commit of
// another process), and catches up, after a rebuild that read without the
// writer lock, with every commit that landed meanwhile.
//
// An Indexer is safe for concurrent use as far as its catalog is; the
// writes it makes go through catalog.Catalog's writer.
package reindex

import (
	"context"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// Config is what an Indexer reads from and writes to.
type Config struct {
	Root    forest.Root
	Catalog *catalog.Catalog
	Limits  forest.ReadLimits // bound on reading one node file
	// Record is the catalog row of a parsed node.
	Record func(n *forest.Node) catalog.Record
	// Repo opens the forest's repository; an error means there is none,
	// and no catch-up.
	Repo func() (*gitops.Repo, error)
	// Lock takes the forest's writer lock (repairing a dead writer's
	// write first); unlock releases it.
	Lock func(ctx context.Context) (unlock func(), err error)
}

// Indexer keeps one forest's catalog in step with its files.
type Indexer struct{ cfg Config }

// New returns the Indexer of cfg.
func New(cfg Config) *Indexer { return &Indexer{cfg: cfg} }

// Again brings the catalog in step with node files (forest-relative
// paths) that were written or removed behind its back: the written ones
// are read and upserted, the removed ones deleted. Paths that are not
// node files are passed over, and so are written files that no longer
// read. It answers how many rows it wrote and deleted.
func (ix *Indexer) Again(ctx context.Context, written, removed []string) (put, del int, err error) {
	var recs []catalog.Record
	for _, p := range written {
		if id, ok := nodePath(p); ok {
			if n, err := ix.read(id); err == nil {
				recs = append(recs, ix.cfg.Record(n))
			}
		}
	}
	var ids []string
	for _, p := range removed {
		if id, ok := nodePath(p); ok {
			ids = append(ids, id)
		}
	}
	if len(recs) > 0 {
		if err := ix.cfg.Catalog.Upsert(ctx, recs...); err != nil {
			return 0, 0, err
		}
	}
	if len(ids) > 0 {
		if err := ix.cfg.Catalog.Delete(ctx, ids...); err != nil {
			return len(recs), 0, err
		}
	}
	return len(recs), len(ids), nil
}

// read parses the node file of a catalog-trusted id.
func (ix *Indexer) read(id string) (*forest.Node, error) {
	path, err := ix.cfg.Root.TrustedPath(id)
	if err != nil {
		return nil, err
	}
	return parseFile(id, path, ix.cfg.Limits)
}

// nodePath is the id of a versioned node file path.
func nodePath(p string) (string, bool) {
	id, ok := cutNodeExt(p)
	return id, ok && gitops.Versioned(p)
}

// HeadFiles lists HEAD's files with their blob hashes, nil when there is
// no repository to ask.
func (ix *Indexer) HeadFiles() map[string]string {
	if ix.cfg.Repo == nil {
		return nil
	}
	repo, err := ix.cfg.Repo()
	if err != nil {
		return nil
	}
	files, err := repo.HeadFiles()
	if err != nil {
		return nil
	}
	return files
}

// CatchUp indexes again, under the writer lock, the node files whose
// committed content changed since before (a HeadFiles listing) was taken.
func (ix *Indexer) CatchUp(ctx context.Context, before map[string]string) error {
	unlock, err := ix.cfg.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	after := ix.HeadFiles()
	var written, removed []string
	for p, h := range after {
		if before[p] != h {
			written = append(written, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			removed = append(removed, p)
		}
	}
	_, _, err = ix.Again(ctx, written, removed)
	return err
}
