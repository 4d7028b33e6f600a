// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"os"
	"sync"

	"github.com/monkeyllm/vine/forest"
)

// recentIndexes remembers the branch indexes this handle wrote last,
// parsed and as bytes. A run of plants into one folder rewrites that
// folder's index every time, and reading and parsing again the file it
// had just written cost as much as writing it: an adopt into a folder of
// 1,800 documents read back a 450 KB index per document.
//
// A remembered index stands in for the file only while nothing else can
// have changed it: the catalog generation is still the one this handle's
// last write left (every write through this package, from any process,
// advances it), and the file still has the inode, size and modification
// time that write left (an editor's change moves at least one of them).
// Every file a txn writes or deletes is forgotten first and, for an index
// whose commit and catalog update landed, remembered again.
type recentIndexes struct {
	mu   sync.Mutex
	gen  int64 // the catalog generation the entries hold for; -1: none
	byID map[string]recentIndex
}

// recentIndex is one remembered index file.
type recentIndex struct {
	node *forest.Node // as parsed back when it was written; never edited
	data []byte       // the file's bytes, owned by the entry (renderBufs)
	fi   os.FileInfo  // the file as the write left it
}

// maxRecentIndexes bounds what is remembered: a plant touches one index,
// a batch or a transplant a few.
const maxRecentIndexes = 8

// generation is the catalog generation the handle's caches compare with;
// an error reads as "unknown", which nothing matches.
func (v *Vine) generation(ctx context.Context) int64 {
	g, err := v.cat.Generation(ctx)
	if err != nil {
		return -1
	}
	return g
}

// lookup returns the remembered index id when it still describes its
// file at path, gen being the catalog generation now. Callers hold r.mu.
func (r *recentIndexes) lookup(gen int64, id, path string) (recentIndex, bool) {
	e, ok := r.byID[id]
	if !ok {
		return recentIndex{}, false
	}
	if gen < 0 || gen != r.gen {
		r.clear()
		return recentIndex{}, false
	}
	fi, err := os.Lstat(path)
	if err != nil || !os.SameFile(fi, e.fi) || fi.Size() != e.fi.Size() || !fi.ModTime().Equal(e.fi.ModTime()) {
		r.drop(id)
		return recentIndex{}, false
	}
	return e, true
}

// node returns a copy of the remembered index id that the caller may
// edit.
func (r *recentIndexes) node(gen int64, id, path string) (*forest.Node, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.lookup(gen, id, path)
	if !ok {
		return nil, false
	}
	return &forest.Node{ID: e.node.ID, Front: e.node.Front.Clone(), Body: e.node.Body}, true
}

// take forgets id, whose file is about to be written, and returns the
// file's bytes when the remembered index still describes it: the caller
// owns them from then on (renderBufs).
func (r *recentIndexes) take(gen int64, id, path string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.lookup(gen, id, path)
	delete(r.byID, id)
	return e.data, ok
}

// forget drops id, whose file is about to be deleted.
func (r *recentIndexes) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drop(id)
}

// advance moves the entries to the generation a write left: they still
// hold when the catalog was at their generation just before the write
// (the write was the only change since), and are dropped otherwise.
func (r *recentIndexes) advance(before, after int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if before < 0 || after < 0 || before != r.gen {
		r.clear()
	}
	r.gen = after
}

// keep remembers the index n, just written to path as data by a write
// whose generation advance has recorded; it owns data from then on.
func (r *recentIndexes) keep(path string, n *forest.Node, data []byte) {
	fi, err := os.Lstat(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drop(n.ID)
	if err != nil || r.gen < 0 {
		putRender(data)
		return
	}
	if r.byID == nil {
		r.byID = make(map[string]recentIndex, maxRecentIndexes)
	}
	if len(r.byID) >= maxRecentIndexes {
		for id := range r.byID { // any one: the set is small and refills as it is used
			r.drop(id)
			break
		}
	}
	r.byID[n.ID] = recentIndex{node: n, data: data, fi: fi}
}

// drop forgets id and gives its bytes back. Callers hold r.mu.
func (r *recentIndexes) drop(id string) {
	if e, ok := r.byID[id]; ok {
		putRender(e.data)
		delete(r.byID, id)
	}
}

// clear forgets every index. Callers hold r.mu.
func (r *recentIndexes) clear() {
	for id := range r.byID {
		r.drop(id)
	}
}
