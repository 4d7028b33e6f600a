package vine

import (
	"context"
	"iter"
	"runtime"
	"sync"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
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
	before := v.headFiles()
	res, err := v.rebuild(ctx)
	if err != nil || before == nil || v.readOnly {
		return res, err
	}
	return res, v.catchUp(ctx, before)
}

// headFiles lists HEAD's files, nil when there is no repository to ask.
func (v *Vine) headFiles() map[string]string {
	repo, err := v.gitRepo()
	if err != nil {
		return nil
	}
	files, err := repo.HeadFiles()
	if err != nil {
		return nil
	}
	return files
}

// catchUp indexes again, under the writer lock, the node files whose
// committed content changed since before was listed.
func (v *Vine) catchUp(ctx context.Context, before map[string]string) error {
	lock, err := v.lockForest(ctx)
	if err != nil {
		return err
	}
	defer lock.Release()
	after := v.headFiles()
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
	_, _, err = v.indexAgain(ctx, written, removed)
	return err
}

// rebuild is the rebuild of the catalog from the files.
func (v *Vine) rebuild(ctx context.Context) (*ReindexResult, error) {
	var files []walkedFile
	skipped, err := v.root.Walk(func(id, path string) error {
		files = append(files, walkedFile{id, path})
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
	folds := v.sniffer.NewFoldWriter()
	records := iter.Seq[catalog.Record](func(yield func(catalog.Record) bool) {
		for i, p := range parseAhead(ctx, files, folds != nil, v.readLimits) {
			report(i)
			if p.err != nil {
				res.Skipped = append(res.Skipped, forest.SkippedFile{Path: files[i].id + forest.NodeExt, Reason: p.err.Error()})
				continue
			}
			if p.fold != nil {
				folds.AddEntry(p.fold)
			}
			if !yield(p.rec) {
				return
			}
		}
		if ctx.Err() == nil {
			report(total)
		}
	})
	stats, err := v.cat.Rebuild(ctx, records, nil)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if folds != nil {
			folds.Abort()
		}
		return nil, err
	}
	v.sniffer.InstallFolds(folds)
	res.Nodes, res.Branches, res.Edges = stats.Nodes, stats.Branches, stats.Edges
	return res, nil
}

// walkedFile is one node file found by the walk.
type walkedFile struct{ id, path string }

// parsedFile is a node file made ready for the catalog: its record and,
// for an inline body, its encoded fold cache entry; or why it was skipped.
type parsedFile struct {
	rec  catalog.Record
	fold []byte
	err  error
}

// parseChunk is how many files one worker takes at a time: enough to
// amortise the hand-off, few enough that the writer starts at once.
const parseChunk = 64

// parseAhead reads and parses files on every processor and yields them in
// walk order with their index. At most a few chunks per worker wait
// parsed ahead of the consumer, so memory stays flat however large the
// forest. Reading and YAML decoding cost about as much as the catalog
// inserts, so on two cores the rebuild takes about half the time. It stops
// early when ctx is done; the caller checks ctx.
func parseAhead(ctx context.Context, files []walkedFile, fold bool, lim forest.ReadLimits) iter.Seq2[int, *parsedFile] {
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
					chunks[c].out = parseFiles(files[c*parseChunk:min((c+1)*parseChunk, len(files))], fold, lim)
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

func parseFiles(files []walkedFile, fold bool, lim forest.ReadLimits) []parsedFile {
	out := make([]parsedFile, len(files))
	for i, f := range files {
		n, err := parseFile(f.id, f.path, lim)
		if err != nil {
			out[i].err = err
			continue
		}
		out[i].rec = recordOf(n)
		if fold && out[i].rec.BodyHash != "" && (n.Content() == "" || n.Content() == "inline") {
			out[i].fold = sniff.AppendFoldEntry(nil, n.ID, out[i].rec.BodyHash, n.Body)
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
