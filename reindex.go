// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/reindex"
	"github.com/monkeyllm/vine/internal/sniff"
)

// ReindexResult counts what a rebuild of the catalog indexed.
type ReindexResult struct {
	Nodes    int                  `json:"nodes"`
	Branches int                  `json:"branches"`
	Edges    int                  `json:"edges"`
	Skipped  []forest.SkippedFile `json:"skipped,omitempty"`
}

// Reindex rebuilds the derived catalog from the markdown files: every node
// file is parsed and indexed in one transaction; unreadable files and
// symlinks escaping the forest are skipped and reported (Validate explains
// them). Progress, when configured, counts files read.
//
// Files are read and parsed on every processor ahead of the catalog
// writer, which takes them in walk order: the catalog comes out the same
// as a one-goroutine rebuild would write it, rowids included.
//
// Reindex does not hold the writer lock while it reads: other processes
// keep writing. Once the catalog is rebuilt it takes the lock briefly and
// indexes again every node file a commit changed meanwhile, so a write
// that landed during the rebuild is never lost from the catalog.
func (v *Vine) Reindex(ctx context.Context) (*ReindexResult, error) {
	before := v.index.HeadFiles()
	v.loadDialect()
	folds := v.sniffer.NewFoldWriter()
	h := reindex.Rebuild{Progress: progressOf(v.progress, "reindex")}
	if folds != nil {
		h.Fold, h.AddFold = foldEntryOf, folds.AddEntry
	}
	stats, skipped, err := v.index.Rebuild(ctx, h)
	if err != nil {
		if folds != nil {
			folds.Abort()
		}
		return nil, err
	}
	v.sniffer.InstallFolds(folds)
	res := &ReindexResult{Nodes: stats.Nodes, Branches: stats.Branches, Edges: stats.Edges, Skipped: skipped}
	if before == nil || v.readOnly {
		return res, nil
	}
	return res, v.index.CatchUp(ctx, before)
}

// progressOf reports an operation's progress to fn; nil when fn is nil.
func progressOf(fn func(Progress), op string) func(done, total int) {
	if fn == nil {
		return nil
	}
	return func(done, total int) { fn(Progress{Op: op, Done: done, Total: total}) }
}

// foldEntryOf is the fold cache entry of a node with an inline body, nil
// for any other.
func foldEntryOf(n *forest.Node, rec catalog.Record) []byte {
	if rec.BodyHash == "" || n.Content() != "" && n.Content() != "inline" {
		return nil
	}
	return sniff.AppendFoldEntry(nil, n.ID, rec.BodyHash, n.Body)
}
