// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/bodyindex"
)

// The body index (package bodyindex) is the cold scan's way to read
// candidates instead of every body: a term not yet memoized is looked up
// in the index, and only the nodes that may hold it are read and scanned,
// so the answer is the literal scan's. It is built from the fold cache
// (every time the cache is written, and at first need) into its own file
// under _derived/bodyindex, and trusted per node by body hash: a scan first
// compares the catalog's hashes with the index's (once per catalog
// generation, which every write moves on, in this process or another),
// and reads directly every node the index does not hold as the catalog
// has it. A stale index costs reads, never a match.

// GramsPath is the body index file of the forest rooted at dir, in a
// directory of its own (its temporary files stay beside it).
func GramsPath(dir string) string {
	return filepath.Join(dir, forest.DerivedDir, "bodyindex", "bodies.grams")
}

// indexMinScope is the smallest scope a scan looks up in the index:
// below it, reading every body through the fold cache costs less than
// comparing the catalog with the index. A variable so tests can lower it.
var indexMinScope = 256

// gramHolder is the engine's loaded index and what it last learnt of
// the catalog's agreement with it.
type gramHolder struct {
	mu     sync.Mutex
	cur    *bodyindex.Index
	loaded bool
	build  soloJob // the background build of the file
	off    bool    // tests: scan as if there were no index
	agree  *agreement
	used   atomic.Int64 // scans that looked terms up, for tests
	pruned atomic.Int64 // scans that left bounded candidates unread, for tests
}

// agreement is the comparison of the catalog at one generation with one
// loaded index: the documents the catalog holds with the indexed hash,
// and the catalog's other nodes, which are read directly.
type agreement struct {
	gen   int64
	idx   *bodyindex.Index
	fresh bodyindex.Set
	stale map[string]string // id -> the catalog's body hash ('' when unhashed)
	nodes int
}

// usable reports whether looking terms up pays: when the index misses
// most nodes, the scan reads them all anyway.
func (a *agreement) usable() bool { return len(a.stale)*2 < a.nodes || a.nodes == 0 }

// indexAgreement is the index and its agreement with the catalog at
// generation gen, or nil when a scan of scope should not use it (no
// index, too small a scope, too stale an index). A missing index is built
// in the background.
func (e *Engine) indexAgreement(ctx context.Context, gen int64, inScope int) (*agreement, error) {
	h := &e.grams
	h.mu.Lock()
	if h.off || inScope < indexMinScope {
		h.mu.Unlock()
		return nil, nil
	}
	if !h.loaded {
		h.cur, h.loaded = e.loadGrams(), true
	}
	idx, a := h.cur, h.agree
	h.mu.Unlock()
	if idx == nil {
		e.scheduleGrams()
		return nil, nil
	}
	if a == nil || a.gen != gen || a.idx != idx {
		var err error
		if a, err = e.compareCatalog(ctx, gen, idx); err != nil {
			return nil, err
		}
		h.mu.Lock()
		if h.cur == idx {
			h.agree = a
		}
		h.mu.Unlock()
		if n := len(a.stale); n >= foldRefreshMin && n*4 >= a.nodes {
			e.scheduleFoldRefresh() // rewrites the fold cache, then the index
		}
	}
	if !a.usable() {
		return nil, nil
	}
	return a, nil
}

// compareCatalog reads every node's body hash and sorts the nodes into
// those the index holds as they are and the others.
func (e *Engine) compareCatalog(ctx context.Context, gen int64, idx *bodyindex.Index) (*agreement, error) {
	a := &agreement{gen: gen, idx: idx, fresh: bodyindex.NewSet(idx.Len()), stale: map[string]string{}}
	var raw [32]byte
	err := e.eachRow(ctx, "SELECT id, body_hash FROM nodes", nil, func(rows *sql.Rows) error {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return err
		}
		a.nodes++
		if d, ok := idx.Lookup(id); ok && len(hash) == 64 {
			if _, err := hex.Decode(raw[:], []byte(hash)); err == nil {
				if _, h := idx.Doc(d); h == raw {
					a.fresh.Add(d)
					return nil
				}
			}
		}
		a.stale[id] = hash
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// lookUp looks each indexed term up in the index, once for both ways of
// answering it (scanBounded, lookUpIndexed).
func lookUp(a *agreement, terms [][]rune, indexed []int) ([]bodyindex.Bounds, error) {
	looked := make([]bodyindex.Bounds, len(indexed))
	for i, ti := range indexed {
		b, err := a.idx.LineBounds([]byte(string(terms[ti])))
		if err != nil {
			return nil, err
		}
		looked[i] = b
	}
	return looked, nil
}

// indexedTerms finds each looked-up term's candidates in scope: the nodes that may
// hold it (all the index offers for it, and every node the index does not
// hold as the catalog has it), with their body hashes. They are kept per
// term because a node the index rules out for a term holds it nowhere:
// one common term must not make every node a candidate of the rare ones,
// whose memo rows would then all be read.
func (e *Engine) indexedTerms(ctx context.Context, scope Scope, a *agreement, looked []bodyindex.Bounds) ([]map[string]string, error) {
	sets := make([]bodyindex.Set, len(looked))
	union := bodyindex.NewSet(a.idx.Len())
	for i, b := range looked {
		sets[i] = bodyindex.NewSet(a.idx.Len())
		for _, d := range b.Docs {
			sets[i].Add(d)
		}
		union.AddAll(sets[i])
	}
	inScope, err := e.inScope(ctx, scope, a, union)
	if err != nil {
		return nil, err
	}
	cands := make([]map[string]string, len(looked))
	for i, set := range sets {
		m := map[string]string{}
		set.Each(func(d int32) {
			id, _ := a.idx.Doc(d)
			if hash, ok := inScope[id]; ok {
				m[id] = hash
			}
		})
		for id := range a.stale {
			if hash, ok := inScope[id]; ok {
				m[id] = hash
			}
		}
		cands[i] = m
	}
	return cands, nil
}

// inScope is the nodes of set the catalog holds as the index does, and
// the nodes it does not, that lie in scope, with their body hashes.
func (e *Engine) inScope(ctx context.Context, scope Scope, a *agreement, set bodyindex.Set) (map[string]string, error) {
	out := map[string]string{}
	if scope.Whole {
		set.Each(func(d int32) {
			if a.fresh.Has(d) {
				id, h := a.idx.Doc(d)
				out[id] = hex.EncodeToString(h[:])
			}
		})
		maps.Copy(out, a.stale)
		return out, nil
	}
	var ids []string
	set.Each(func(d int32) {
		if a.fresh.Has(d) {
			id, _ := a.idx.Doc(d)
			ids = append(ids, id)
		}
	})
	for id := range a.stale {
		ids = append(ids, id)
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	q := "SELECT nodes.id, nodes.body_hash FROM nodes WHERE nodes.id IN (SELECT value FROM json_each(?)) AND " + scope.Where
	return out, e.eachRow(ctx, q, append([]any{string(list)}, scope.Args...), func(rows *sql.Rows) error {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return err
		}
		out[id] = hash
		return nil
	})
}

// keepIndexedHot keeps in the hot memo what a whole-forest scan found for
// the terms it looked up in the index: complete at generation gen, like a
// covered term's memo rows. Nodes without a hash, and nodes that could
// not be read, are read again by every scan, as they would be from the
// memo.
func (e *Engine) keepIndexedHot(res *scanResult, terms [][]rune, indexed []int, read map[string]string, skipped []string) {
	var again []string
	for id, hash := range read {
		if hash == "" {
			again = append(again, id)
		}
	}
	again = append(again, skipped...)
	for _, ti := range indexed {
		b := &hotBuilder{}
		for id, lists := range res.found {
			if hash := read[id]; hash != "" && len(lists[ti]) > 0 {
				b.add(id, hash, lists[ti])
			}
		}
		b.t.unhashed = again
		e.hot.put(string(terms[ti]), res.generation, &b.t)
	}
}

func (e *Engine) loadGrams() *bodyindex.Index {
	x, err := bodyindex.Load(GramsPath(e.root.Dir()))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			e.log.Warn("body index unreadable; cold sniff reads every body until it is rebuilt", "err", err)
		}
		return nil
	}
	return x
}

// forgetGrams drops the loaded index, so the next scan loads the file
// again.
func (e *Engine) forgetGrams() {
	h := &e.grams
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur, h.loaded, h.agree = nil, false, nil
}

// installGrams makes x the current index.
func (e *Engine) installGrams(x *bodyindex.Index) {
	h := &e.grams
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur, h.loaded, h.agree = x, true, nil
}

// BuildBodyIndex writes the body index from the fold cache (every body
// the cache holds, under the hash it was folded from) and makes it
// current. Without a fold cache there is nothing to build from:
// RefreshFolds writes both.
func (e *Engine) BuildBodyIndex(ctx context.Context) error {
	w, err := bodyindex.Create(GramsPath(e.root.Dir()))
	if err != nil {
		return err
	}
	err = eachFoldEntry(FoldCachePath(e.root.Dir()), func(id string, hash [32]byte, folded []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		w.Add(id, hash, folded)
		return nil
	})
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Commit(); err != nil {
		return err
	}
	x, err := bodyindex.Load(w.Path())
	if err != nil {
		return err
	}
	e.installGrams(x)
	return nil
}

// BodyIndexEntries is the number of bodies the current index holds,
// loading it if no scan has yet; 0 without an index.
func (e *Engine) BodyIndexEntries() int {
	h := &e.grams
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded {
		h.cur, h.loaded = e.loadGrams(), true
	}
	if h.cur == nil {
		return 0
	}
	return h.cur.Len()
}

// scheduleGrams builds the index in the background, once at a time,
// unless the catalog is read-only: from the fold cache when there is
// one, else by rewriting the fold cache first.
func (e *Engine) scheduleGrams() {
	if e.cat.ReadOnly() {
		return
	}
	e.grams.build.start(e.background, func() {
		ctx := context.Background()
		err := e.BuildBodyIndex(ctx)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, errFoldFormat) {
			err = e.RefreshFolds(ctx)
		}
		if err != nil {
			e.log.Warn("body index not built; cold sniff reads every body", "err", err)
		}
	})
}

var errFoldFormat = errors.New("fold cache: damaged")

// eachFoldEntry streams the entries of the fold cache file at path.
func eachFoldEntry(path string, fn func(id string, hash [32]byte, folded []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(foldCacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != foldCacheMagic {
		return errFoldFormat
	}
	var folded []byte
	for {
		idLen, k, err := readUvarint(r)
		if errors.Is(err, io.EOF) && k == 0 {
			return nil
		}
		if err != nil || idLen > maxFoldID {
			return errFoldFormat
		}
		rec := make([]byte, idLen+32)
		if _, err := io.ReadFull(r, rec); err != nil {
			return errFoldFormat
		}
		n, _, err := readUvarint(r)
		if err != nil || n > maxFoldBody {
			return errFoldFormat
		}
		if uint64(cap(folded)) < n {
			folded = make([]byte, n)
		}
		folded = folded[:n]
		if _, err := io.ReadFull(r, folded); err != nil {
			return errFoldFormat
		}
		if err := fn(string(rec[:idLen]), [32]byte(rec[idLen:]), folded); err != nil {
			return err
		}
	}
}
