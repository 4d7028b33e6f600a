// SPDX-License-Identifier: Apache-2.0

package reindex

import (
	"context"
	"iter"
	"runtime"
	"strings"
	"sync"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
)

// Rebuild is one rebuild's hooks; every field may be nil.
type Rebuild struct {
	// Progress counts files read; it is called every 256 files and at the
	// end.
	Progress func(done, total int)
	// Fold encodes a parsed node's fold cache entry, on the parsing
	// goroutines; nil when no entry is wanted.
	Fold func(n *forest.Node, rec catalog.Record) []byte
	// AddFold takes each entry Fold made, in walk order.
	AddFold func(entry []byte)
}

// Rebuild replaces the catalog with a record of every node file a walk of
// the forest finds, in one transaction; unreadable files and symlinks
// escaping the forest are skipped and reported.
//
// Files are read and parsed on every processor ahead of the catalog
// writer, which takes them in walk order: the catalog comes out the same
// as a one-goroutine rebuild would write it, rowids included.
func (ix *Indexer) Rebuild(ctx context.Context, h Rebuild) (catalog.Stats, []forest.SkippedFile, error) {
	var files []walkedFile
	skipped, err := ix.cfg.Root.Walk(func(id, path string) error {
		files = append(files, walkedFile{id, path})
		return ctx.Err()
	})
	if err != nil {
		return catalog.Stats{}, nil, err
	}
	total := len(files)
	report := func(done int) {
		if h.Progress != nil && (done%256 == 0 || done == total) {
			h.Progress(done, total)
		}
	}
	w := parser{limits: ix.cfg.Limits, record: ix.cfg.Record, fold: h.Fold}
	records := iter.Seq[catalog.Record](func(yield func(catalog.Record) bool) {
		for i, p := range parseAhead(ctx, files, w) {
			report(i)
			if p.err != nil {
				skipped = append(skipped, forest.SkippedFile{Path: files[i].id + forest.NodeExt, Reason: p.err.Error()})
				continue
			}
			if p.fold != nil && h.AddFold != nil {
				h.AddFold(p.fold)
			}
			if !yield(p.rec) {
				return
			}
		}
		if ctx.Err() == nil {
			report(total)
		}
	})
	stats, err := ix.cfg.Catalog.Rebuild(ctx, records, nil)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return catalog.Stats{}, nil, err
	}
	return stats, skipped, nil
}

// walkedFile is one node file found by the walk.
type walkedFile struct{ id, path string }

// parsedFile is a node file made ready for the catalog: its record and,
// when wanted, its encoded fold cache entry; or why it was skipped.
type parsedFile struct {
	rec  catalog.Record
	fold []byte
	err  error
}

// parser turns node files into parsedFiles.
type parser struct {
	limits forest.ReadLimits
	record func(*forest.Node) catalog.Record
	fold   func(*forest.Node, catalog.Record) []byte
}

func cutNodeExt(p string) (string, bool) { return strings.CutSuffix(p, forest.NodeExt) }

// parseChunk is how many files one worker takes at a time: enough to
// amortise the hand-off, few enough that the writer starts at once.
const parseChunk = 64

// parseAhead reads and parses files on every processor and yields them in
// walk order with their index. At most a few chunks per worker wait
// parsed ahead of the consumer, so memory stays flat however large the
// forest. Reading and YAML decoding cost about as much as the catalog
// inserts, so on two cores the rebuild takes about half the time. It stops
// early when ctx is done; the caller checks ctx.
func parseAhead(ctx context.Context, files []walkedFile, w parser) iter.Seq2[int, *parsedFile] {
	return func(yield func(int, *parsedFile) bool) {
		n := (len(files) + parseChunk - 1) / parseChunk
		if n == 0 {
			return
		}
		workers := min(runtime.GOMAXPROCS(0), n)
		chunks := make([]parsedChunk, n)
		for i := range chunks {
			chunks[i].done = make(chan struct{})
		}
		stop := make(chan struct{})
		next := make(chan int)
		slots := make(chan struct{}, 4*workers) // chunks parsed but not yet consumed
		var wg sync.WaitGroup
		defer func() {
			close(stop)
			wg.Wait()
		}()
		wg.Go(func() {
			defer close(next)
			for c := range n {
				select {
				case slots <- struct{}{}:
				case <-stop:
					return
				}
				select {
				case next <- c:
				case <-stop:
					return
				}
			}
		})
		for range workers {
			wg.Go(func() {
				for c := range next {
					chunks[c].out = w.parseFiles(files[c*parseChunk : min((c+1)*parseChunk, len(files))])
					close(chunks[c].done)
				}
			})
		}
		for c := range chunks {
			select {
			case <-chunks[c].done:
			case <-ctx.Done():
				return
			}
			for i := range chunks[c].out {
				if !yield(c*parseChunk+i, &chunks[c].out[i]) {
					return
				}
			}
			chunks[c].out = nil
			<-slots
		}
	}
}

// parsedChunk is one worker's output, ready once done is closed.
type parsedChunk struct {
	out  []parsedFile
	done chan struct{}
}

// parseFiles parses one chunk of files.
func (w parser) parseFiles(files []walkedFile) []parsedFile {
	out := make([]parsedFile, len(files))
	for i, f := range files {
		n, err := parseFile(f.id, f.path, w.limits)
		if err != nil {
			out[i].err = err
			continue
		}
		out[i].rec = w.record(n)
		if w.fold != nil {
			out[i].fold = w.fold(n, out[i].rec)
		}
	}
	return out
}

// parseFile reads and parses one node file within lim.
func parseFile(id, path string, lim forest.ReadLimits) (*forest.Node, error) {
	data, err := forest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return forest.ParseWithin(id, data, lim)
}
