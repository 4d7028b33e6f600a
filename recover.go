// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/recovery"
	"github.com/monkeyllm/vine/internal/reindex"
)

// Recovery is what a writable Open repaired after a writer died in the
// middle of a write (kill -9, a crash). Every write notes each file it is
// about to touch in an intent log first (internal/journal); the next
// writer reads that log and settles the write one way, decided by git:
// if its commit had reached the branch the write is completed (the index,
// the catalog), otherwise every file it touched is put back as HEAD has
// it, and the catalog rows of its nodes with them (a write updates the
// catalog while git commits). Either way the forest is again what a
// commit describes, and every write that was acknowledged is in HEAD.
type Recovery struct {
	// Op is the interrupted write: plant, graft, prune, transplant, ...
	Op string `json:"op"`
	// Completed is true when the write's commit had landed and the write
	// was finished, false when it was undone.
	Completed bool `json:"completed"`
	// Head is HEAD after the repair.
	Head string `json:"head"`
	// Actions lists each repair, one line each.
	Actions []string `json:"actions"`
}

// Recovered is the last repair v made of a write another writer left
// half-done (when it opened, or before one of its writes), nil when the
// forest never needed one.
func (v *Vine) Recovered() *Recovery { return v.recovery.Load() }

// recoveryOf is the public form of a repair's result.
func recoveryOf(r *recovery.Result) *Recovery {
	if r == nil {
		return nil
	}
	return &Recovery{Op: r.Op, Completed: r.Completed, Head: r.Head, Actions: r.Actions}
}

// newUpkeep builds the engines that keep v's files, catalog and intent log
// in step: the indexer (reindex, catch-up) and the recoverer of a dead
// writer's write, which completes a landed write through the indexer and
// then rereads the dialect the write may have changed.
func newUpkeep(v *Vine) (*reindex.Indexer, *recovery.Recoverer) {
	ix := reindex.New(reindex.Config{
		Root: v.root, Catalog: v.cat, Limits: v.readLimits, Record: recordOf, Repo: v.gitRepo,
		Lock: func(ctx context.Context) (func(), error) {
			lock, err := v.lockForest(ctx)
			if err != nil {
				return nil, err
			}
			return func() { lock.Release() }, nil
		},
	})
	complete := func(ctx context.Context, written, removed []string) (int, int, error) {
		put, del, err := ix.Again(ctx, written, removed)
		if err == nil {
			v.loadDialect()
		}
		return put, del, err
	}
	return ix, recovery.New(v.journal, v.repo, v.root, complete, v.log)
}

// parseFile reads and parses one node file within lim.
func parseFile(id, path string, lim forest.ReadLimits) (*forest.Node, error) {
	data, err := forest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return forest.ParseWithin(id, data, lim)
}
