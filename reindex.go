package vine

import (
	"context"
	"iter"
	"os"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
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
func (v *Vine) Reindex(ctx context.Context) (*ReindexResult, error) {
	type file struct{ id, path string }
	var files []file
	skipped, err := v.root.Walk(func(id, path string) error {
		files = append(files, file{id, path})
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	v.loadDialect()
	res := &ReindexResult{Skipped: skipped}
	total := len(files)
	report := func(done int) {
		if v.progress != nil && (done%256 == 0 || done == total) {
			v.progress(Progress{Op: "reindex", Done: done, Total: total})
		}
	}
	folds := v.newFoldWriter()
	records := iter.Seq[catalog.Record](func(yield func(catalog.Record) bool) {
		for i, f := range files {
			report(i)
			if ctx.Err() != nil {
				return
			}
			n, err := parseFile(f.id, f.path)
			if err != nil {
				res.Skipped = append(res.Skipped, forest.SkippedFile{Path: f.id + ".md", Reason: err.Error()})
				continue
			}
			if folds != nil && (n.Content() == "" || n.Content() == "inline") {
				folds.add(n.ID, n.Body)
			}
			if !yield(recordOf(n)) {
				return
			}
		}
		report(total)
	})
	stats, err := v.cat.Rebuild(ctx, records, nil)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if folds != nil {
			folds.abort()
		}
		return nil, err
	}
	v.installFolds(folds)
	res.Nodes, res.Branches, res.Edges = stats.Nodes, stats.Branches, stats.Edges
	return res, nil
}

func parseFile(id, path string) (*forest.Node, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return forest.Parse(id, data)
}
