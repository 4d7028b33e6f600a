// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/monkeyllm/vine/internal/bodyindex"
)

// The memoized scan (C.6b.1): per (folded term, node) the complete list of
// matching lines, valid while the node's body hash is unchanged. A
// non-match is recorded as '[]', so a covered node that holds nothing
// costs one COUNT, not a read. Ranking is never memoized, and dropping the
// memo changes latency only.

// memoEntry is a (term, node) scan to store once the answer is decided.
type memoEntry struct {
	term, node, hash string
	lines            []Line
}

// scanResult is what the scan found: per node, per term, the lines.
type scanResult struct {
	found map[string][][]Line
	// partial holds the nodes whose lists came from the memo's line
	// numbers alone (see rank.go), with the body hash they are valid
	// for; a node read from its file leaves it.
	partial map[string]string
	skipped int // unreadable or unreachable bodies, not counted as scanned
	fresh   []memoEntry
	// folded holds the nodes whose lists are line numbers taken from
	// their fold (see readAndScan): their records, once settle reads the
	// ones rendered, are stored as fresh as a whole read's.
	folded map[string]bool

	generation int64    // the catalog this scan read
	cover      []string // terms this whole-forest scan leaves fully memoized
}

// scanScope answers each term from the memo where it is valid and reads
// every uncovered body in scope once, scanning all terms in one pass.
// Rows fetched and catalog rows loaded grow with matches plus uncovered
// nodes; a covered node that holds nothing costs nothing (cost rule 1).
//
// gen is the catalog generation the caller read; inScope is how many
// nodes scope holds: once every one of them is to be
// read, the remaining terms' memo rows are not consulted (reading a body
// scans every term), which halves a cold scan's SQL. k is how many hits
// the caller returns: when the body index bounds many candidates, only
// those that can still reach the first k are read (see prune.go).
func (e *Engine) scanScope(ctx context.Context, scope Scope, terms [][]rune, gen int64, inScope, k int) (*scanResult, error) {
	res := &scanResult{found: map[string][][]Line{}, partial: map[string]string{}, generation: gen}
	uncovered := map[string]string{} // id -> body hash
	var indexed []int                // terms looked up in the body index
	var agree *agreement
	for ti, t := range terms {
		if hot, ok := e.wholeHot(scope, string(t), gen); ok {
			hot.each(res.foundFunc(ti, len(terms)))
			for _, id := range hot.unhashed {
				uncovered[id] = ""
			}
			continue
		}
		if len(uncovered) >= inScope {
			if scope.Whole {
				res.cover = append(res.cover, string(t)) // every body is read: stored whole
			}
			continue
		}
		ok, err := e.indexable(ctx, string(t), gen, inScope, &agree)
		if err != nil {
			return nil, err
		}
		if ok {
			indexed = append(indexed, ti)
			continue
		}
		if err := e.memoTerm(ctx, scope, string(t), gen, res, uncovered, res.foundFunc(ti, len(terms))); err != nil {
			return nil, err
		}
	}
	var looked []bodyindex.Bounds
	var lookErr error
	if len(indexed) > 0 {
		looked, lookErr = lookUp(agree, terms, indexed)
	}
	if lookErr == nil && scope.Whole && len(indexed) > 0 {
		if done, err := e.scanBounded(ctx, res, terms, looked, agree, uncovered, k); err != nil || done {
			return res, err
		}
	}
	indexed, cand, err := e.lookUpIndexed(ctx, scope, terms, indexed, looked, lookErr, agree, gen, res, uncovered)
	if err != nil {
		return nil, err
	}
	toRead := slices.Sorted(maps.Keys(uncovered))
	numbered := make([]bool, len(terms))
	skipped, err := e.readInto(ctx, res, toRead, uncovered, terms, numbered, false)
	if err != nil {
		return nil, err
	}
	res.uncover(terms, numbered)
	if scope.Whole && len(indexed) > 0 && ctx.Err() == nil {
		e.keepIndexedHot(res, terms, indexed, cand, skipped)
	}
	return res, nil
}

// readInto reads and scans the bodies of ids (hashes: their body hashes)
// into res. It returns the ids it could not read, and sets in numbered
// the terms with a hit known by line numbers only (no records to store:
// settle stores the ones it reads). A ranked read (see prune.go) takes
// line numbers from every fold that has them and stores no memo rows:
// the scans that read candidates by their bounds never consult them.
func (e *Engine) readInto(ctx context.Context, res *scanResult, ids []string, hashes map[string]string, terms [][]rune,
	numbered []bool, ranked bool) (skipped []string, err error) {
	fullReads := fullReadMax
	if ranked {
		fullReads = 0
	}
	scans, numbers, err := e.readAndScan(ctx, ids, hashes, terms, fullReads)
	if err != nil {
		return nil, err
	}
	for i, id := range ids { // id order: deterministic results
		delete(res.partial, id) // read whole: every term's lists are full
		if scans[i] == nil {
			res.skipped++
			skipped = append(skipped, id)
			delete(res.found, id)
			continue
		}
		if numbers[i] {
			res.partial[id] = hashes[id]
			if res.folded == nil {
				res.folded = map[string]bool{}
			}
			res.folded[id] = true
		}
		for ti, lines := range scans[i] {
			res.add(id, ti, len(terms), lines)
			if numbers[i] && len(lines) > 0 {
				numbered[ti] = true
				continue
			}
			if hash := hashes[id]; hash != "" && !ranked {
				res.fresh = append(res.fresh, memoEntry{term: string(terms[ti]), node: id, hash: hash, lines: lines})
			}
		}
	}
	return skipped, nil
}

// uncover takes out of the terms to mark covered those with a hit known
// by line numbers only: their records are not all stored.
func (r *scanResult) uncover(terms [][]rune, numbered []bool) {
	for ti, t := range terms {
		if numbered[ti] {
			r.cover = slices.DeleteFunc(r.cover, func(c string) bool { return c == string(t) })
		}
	}
}

// foundFunc records what the memo answers for term ti.
func (r *scanResult) foundFunc(ti, nTerms int) func(id, hash string, lines []Line, numbersOnly bool) {
	return func(id, hash string, lines []Line, numbersOnly bool) {
		r.add(id, ti, nTerms, lines)
		if numbersOnly {
			r.partial[id] = hash
		}
	}
}

// indexable reports whether term is to be looked up in the body index:
// not covered by the memo (a covered term reads its matching rows, which
// is cheaper still), and an index that agrees well enough with the
// catalog. The agreement is computed once per scan, into agree.
func (e *Engine) indexable(ctx context.Context, term string, gen int64, inScope int, agree **agreement) (bool, error) {
	if inScope < indexMinScope {
		return false, nil
	}
	if covered, err := e.termCovered(ctx, term, gen); err != nil || covered {
		return false, err
	}
	if *agree == nil {
		a, err := e.indexAgreement(ctx, gen, inScope)
		if err != nil || a == nil {
			return false, err
		}
		*agree = a
	}
	return true, nil
}

// lookUpIndexed finds the candidates of the indexed terms (cand: every
// node in scope that may hold one, with its body hash), answers from the
// memo those whose rows for every indexed term are valid, and adds the
// others to uncovered, to be read. When the index cannot answer (replaced
// or damaged since it was loaded), the terms are answered from the memo
// as before, and no term is returned as indexed.
func (e *Engine) lookUpIndexed(ctx context.Context, scope Scope, terms [][]rune, indexed []int, looked []bodyindex.Bounds,
	lookErr error, agree *agreement, gen int64, res *scanResult, uncovered map[string]string) ([]int, map[string]string, error) {
	if len(indexed) == 0 {
		return nil, nil, nil
	}
	err := lookErr
	var cands []map[string]string
	if err == nil {
		cands, err = e.indexedTerms(ctx, scope, agree, looked)
	}
	if err == nil {
		e.grams.used.Add(1)
		cand := map[string]string{}
		for _, m := range cands {
			maps.Copy(cand, m)
		}
		return indexed, cand, e.candidatesFromMemo(ctx, terms, indexed, cands, cand, res, uncovered)
	}
	if ctx.Err() != nil {
		return nil, nil, err
	}
	e.log.Debug("body index not used; the terms are scanned", "err", err)
	e.forgetGrams()
	for _, ti := range indexed {
		if err := e.memoTerm(ctx, scope, string(terms[ti]), gen, res, uncovered, res.foundFunc(ti, len(terms))); err != nil {
			return nil, nil, err
		}
	}
	return nil, nil, nil
}

// candidatesFromMemo answers a candidate (cand: every indexed term's,
// cands[i]: the i-th term's) from its memo rows when every indexed term it
// is a candidate of has a valid one (a scan before this one read it), and
// sends the others to be read. A row whose line numbers do not decode
// counts as missing.
func (e *Engine) candidatesFromMemo(ctx context.Context, terms [][]rune, indexed []int, cands []map[string]string,
	cand map[string]string, res *scanResult, uncovered map[string]string) error {
	rows := make([]map[string][]Line, len(indexed)) // per indexed term: node -> lines (nil: none)
	for i, ti := range indexed {
		ids := make([]string, 0, len(cands[i]))
		for id, hash := range cands[i] {
			if hash != "" {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		list, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		if rows[i], err = e.validRows(ctx, string(terms[ti]), string(list), len(ids), cands[i]); err != nil {
			return err
		}
	}
	numbersOnly := e.cat.HasColumn("sniff_memo", "line_nos")
	for id, hash := range cand {
		answered := hash != ""
		for i := range indexed {
			if _, candidate := cands[i][id]; !candidate {
				continue // the index rules the term out here
			}
			if _, ok := rows[i][id]; !ok {
				answered = false
				break
			}
		}
		if !answered {
			uncovered[id] = hash
			continue
		}
		for i, ti := range indexed {
			if lines := rows[i][id]; len(lines) > 0 {
				res.foundFunc(ti, len(terms))(id, hash, lines, numbersOnly)
			}
		}
	}
	return nil
}

// validRows reads term's valid memo rows of the candidates (ids, a JSON
// list of n): the lines of a match (line numbers only where the column is
// there), nil for a recorded non-match. The memo's bookkeeping says how
// many rows the term has: none is no read at all, fewer than twice the
// candidates are read whole, else the candidates are looked up by key.
// Reading the term's rows in key order costs about half of looking each
// candidate up (at 100,000 nodes, 1.3–2.5 s against 3.5–4.8 s for as many
// rows as candidates), so the whole read wins up to about twice as many.
func (e *Engine) validRows(ctx context.Context, term, ids string, n int, cand map[string]string) (map[string][]Line, error) {
	out := map[string][]Line{}
	stored, err := e.count(ctx, "SELECT coalesce((SELECT rows FROM sniff_terms WHERE term = ?), -1)", term)
	if err != nil || stored == 0 {
		return out, err
	}
	col, decode := "m.lines", decodeLines
	if e.cat.HasColumn("sniff_memo", "line_nos") {
		col, decode = "m.line_nos", decodeLineNumbers
	}
	q := "SELECT nodes.id, m.lines = '[]', " + col + " FROM json_each(?) AS j " +
		"CROSS JOIN sniff_memo AS m ON m.term = ? AND m.node_id = j.value " +
		"JOIN nodes ON nodes.id = m.node_id AND nodes.body_hash != '' AND m.body_hash = nodes.body_hash"
	args := []any{ids, term}
	if stored > 0 && stored < 2*n {
		q = "SELECT nodes.id, m.lines = '[]', " + col + " FROM sniff_memo m JOIN nodes ON " + validMemo
		args = []any{term}
	}
	err = e.eachRow(ctx, q, args, func(rows *sql.Rows) error {
		var id, raw string
		var none bool
		if err := rows.Scan(&id, &none, &raw); err != nil {
			return err
		}
		if _, ok := cand[id]; !ok {
			return nil
		}
		if none {
			out[id] = nil
			return nil
		}
		if lines, err := decode(raw); err == nil && len(lines) > 0 {
			out[id] = lines
		}
		return nil
	})
	return out, err
}

// wholeHot is the hot memo's entry for term; only a whole-forest scan
// may use one.
func (e *Engine) wholeHot(scope Scope, term string, gen int64) (*hotTerm, bool) {
	if !scope.Whole {
		return nil, false
	}
	return e.hot.get(term, gen)
}

// memoTerm answers one term from the memo rows (see scanScope), and
// keeps the answer in the hot memo when it is complete: a whole-forest
// scan of a covered term whose rows all decoded.
func (e *Engine) memoTerm(ctx context.Context, scope Scope, term string, gen int64, res *scanResult,
	uncovered map[string]string, found func(id, hash string, lines []Line, numbersOnly bool)) error {
	covered, err := e.termCovered(ctx, term, gen)
	if err != nil {
		return err
	}
	if scope.Whole && !covered {
		res.cover = append(res.cover, term)
	}
	// Uncovered nodes first: memo rows stored in the background between
	// the two statements then make a node both uncovered (it is read,
	// which is always right) and matched, never neither.
	var hot *hotBuilder
	if scope.Whole && covered {
		hot = &hotBuilder{}
	}
	err = e.uncovered(ctx, scope, term, covered, func(id, hash string) {
		uncovered[id] = hash
		if hot != nil {
			hot.t.unhashed = append(hot.t.unhashed, id)
		}
	})
	if err != nil {
		return err
	}
	damaged, err := e.memoMatches(ctx, scope, term, uncovered, func(id, hash string, lines []Line, numbersOnly bool) {
		found(id, hash, lines, numbersOnly)
		switch {
		case !numbersOnly:
			hot = nil // full records: an older file, nothing to keep
		case hot != nil:
			hot.add(id, hash, lines)
		}
	})
	if err != nil {
		return err
	}
	if hot != nil && damaged == 0 {
		e.hot.put(term, gen, &hot.t)
	}
	return nil
}

// scanWorkers read and scan bodies in parallel: a cold scan is mostly
// file-system calls, which overlap well even on two cores.
const scanWorkers = 4

// readAndScan scans every candidate's body once for all terms; out[i] is
// nil when the body was unreadable or unreachable. A body the fold cache
// holds under its current hash is rejected without opening its file; the
// cache is read in runs of neighbouring entries (foldRuns), a few hundred
// reads for a whole forest, through one buffer per worker.
//
// A body whose fold holds a term is read from its file and scanned for
// full records when the scan meets at most fullReads of them. Past
// that (a common term in a large forest), ranking needs line numbers
// only, which the fold gives (its lines are the body's, see scanFolded):
// numbers[i] marks those lists, and settle reads the files of the hits
// it renders. At 100,000 nodes a term in most bodies read every file,
// seconds of a cold sniff.
func (e *Engine) readAndScan(ctx context.Context, ids []string, hashes map[string]string, terms [][]rune,
	fullReads int) (out [][][]Line, numbers []bool, err error) {
	cache, release := e.folds.acquire(e.loadFolds)
	defer release()
	out, numbers = make([][][]Line, len(ids)), make([]bool, len(ids))
	var cached io.ReaderAt
	if cache != nil {
		r, done, err := cache.open()
		if err != nil {
			// Replaced or gone: this scan reads files, the next loads anew.
			e.folds.forget()
			cache = nil
		} else {
			defer done()
			cached = r
		}
	}
	runs, direct := foldRuns(cache, ids, hashes)
	var stale atomic.Int64
	stale.Store(int64(len(direct)))
	next := make(chan scanJob)
	var wg sync.WaitGroup
	for range min(scanWorkers, len(ids)) {
		wg.Go(func() {
			sc := newBodyScanner(terms)
			var buf []byte
			for job := range next {
				if job.run == nil {
					out[job.i] = e.scanFile(sc, ids[job.i])
					continue
				}
				buf = slices.Grow(buf[:0], job.run.size())[:job.run.size()]
				if _, err := cached.ReadAt(buf, job.run.start); err != nil {
					for _, en := range job.run.entries {
						out[en.i] = e.scanFile(sc, ids[en.i])
					}
					continue
				}
				for _, en := range job.run.entries {
					folded := buf[en.off-job.run.start:][:en.n]
					if sc.holdsAny(folded) {
						out[en.i], numbers[en.i] = sc.lineNumbers(folded), true
					} else {
						out[en.i] = make([][]Line, len(terms))
					}
				}
			}
		})
	}
	feedJobs(ctx, next, slices.Concat(runJobs(runs), directJobs(direct)))
	wg.Wait()
	if n := int(stale.Load()); n >= foldRefreshMin && n*4 >= len(ids) {
		e.scheduleFoldRefresh()
	}
	var holders []scanJob
	for i, n := range numbers {
		if n {
			holders = append(holders, scanJob{i: i})
		}
	}
	if len(holders) <= fullReads {
		e.scanFiles(ctx, ids, terms, holders, out, numbers)
	}
	return out, numbers, ctx.Err()
}

// fullReadMax is the most bodies holding a term that one scan reads from
// their files (see readAndScan). A variable so tests can lower it.
var fullReadMax = 256

// feedJobs sends the jobs to the workers until ctx is done, then closes
// the channel.
func feedJobs(ctx context.Context, next chan<- scanJob, jobs []scanJob) {
	defer close(next)
	for _, job := range jobs {
		select {
		case next <- job:
		case <-ctx.Done():
			return
		}
	}
}

// scanFiles reads and scans the files of the jobs' bodies in parallel,
// replacing their line numbers with full records.
func (e *Engine) scanFiles(ctx context.Context, ids []string, terms [][]rune, jobs []scanJob, out [][][]Line, numbers []bool) {
	next := make(chan scanJob)
	var wg sync.WaitGroup
	for range min(scanWorkers, len(jobs)) {
		wg.Go(func() {
			sc := newBodyScanner(terms)
			for job := range next {
				out[job.i], numbers[job.i] = e.scanFile(sc, ids[job.i]), false
			}
		})
	}
	feedJobs(ctx, next, jobs)
	wg.Wait()
}

// scanFile reads a body from its file and scans it; nil when unreadable.
func (e *Engine) scanFile(sc *bodyScanner, id string) [][]Line {
	body, ok := e.body(id)
	if !ok {
		return nil
	}
	return sc.scan(body)
}

// scanJob is one unit of a cold scan: a run of cached bodies, or the
// body of ids[i] read from its file when run is nil.
type scanJob struct {
	run *foldRun
	i   int
}

// foldRun is a stretch of the cache file read at once: the entries in it
// that the scan needs, in file order.
type foldRun struct {
	start   int64
	end     int64
	entries []runEntry
}

type runEntry struct {
	i   int // index into the scan's ids
	off int64
	n   int
}

func (r *foldRun) size() int { return int(r.end - r.start) }

// Bounds of a run: up to 256 KB, and a gap of unneeded entries up to 16 KB
// is read through rather than split at (a scoped scan needs neighbours,
// a whole-forest scan nearly every entry).
const (
	maxFoldRun = 256 << 10
	maxFoldGap = 16 << 10
)

// foldRuns groups the ids the cache holds fresh into runs of the file,
// and returns the indexes of the others, whose files must be read.
func foldRuns(cache *foldCache, ids []string, hashes map[string]string) (runs []*foldRun, direct []int) {
	var cached []runEntry
	for i, id := range ids {
		if e, ok := cache.lookup(id, hashes[id]); ok {
			cached = append(cached, runEntry{i: i, off: e.off, n: e.n})
		} else {
			direct = append(direct, i)
		}
	}
	slices.SortFunc(cached, func(a, b runEntry) int { return cmp.Compare(a.off, b.off) })
	var cur *foldRun
	for _, e := range cached {
		end := e.off + int64(e.n)
		if cur == nil || e.off-cur.end > maxFoldGap || end-cur.start > maxFoldRun {
			cur = &foldRun{start: e.off, end: end}
			runs = append(runs, cur)
		}
		cur.end = max(cur.end, end)
		cur.entries = append(cur.entries, e)
	}
	return runs, direct
}

func runJobs(runs []*foldRun) []scanJob {
	jobs := make([]scanJob, len(runs))
	for i, r := range runs {
		jobs[i] = scanJob{run: r}
	}
	return jobs
}

func directJobs(direct []int) []scanJob {
	jobs := make([]scanJob, len(direct))
	for k, i := range direct {
		jobs[k] = scanJob{i: i}
	}
	return jobs
}

// add records a term's lines for a node (a fresh read replaces the memo
// answer, which is identical by construction).
func (r *scanResult) add(id string, term, nTerms int, lines []Line) {
	lists, ok := r.found[id]
	if !ok {
		if len(lines) == 0 {
			return
		}
		lists = make([][]Line, nTerms)
		r.found[id] = lists
	}
	lists[term] = lines
}

const validMemo = "m.term = ? AND m.node_id = nodes.id AND nodes.body_hash != '' AND m.body_hash = nodes.body_hash"

// memoMatches calls match for every valid memo row of term in scope that
// holds lines. It reads the line numbers only (numbersOnly), from the
// covering index, unless the file predates that column (a read-only open
// of an older catalog), when it decodes the full records. A row without
// numbers (another implementation wrote it) or that does not decode is a
// miss, never an answer: its node joins damaged and is read again, and the
// fresh scan stores the row whole.
func (e *Engine) memoMatches(ctx context.Context, scope Scope, term string, damaged map[string]string,
	match func(id, hash string, lines []Line, numbersOnly bool)) (damagedRows int, err error) {
	numbersOnly := e.cat.HasColumn("sniff_memo", "line_nos")
	col := "m.lines"
	if numbersOnly {
		col = "m.line_nos"
	}
	q := "SELECT nodes.id, nodes.body_hash, " + col + " FROM sniff_memo m JOIN nodes ON " + validMemo +
		" WHERE m.lines != '[]' AND " + scope.Where
	err = e.eachRow(ctx, q, append([]any{term}, scope.Args...), func(rows *sql.Rows) error {
		var id, hash, raw string
		if err := rows.Scan(&id, &hash, &raw); err != nil {
			return err
		}
		decode := decodeLines
		if numbersOnly {
			decode = decodeLineNumbers
		}
		lines, err := decode(raw)
		if err != nil || len(lines) == 0 {
			damaged[id] = hash
			damagedRows++
			return nil
		}
		match(id, hash, lines, numbersOnly)
		return nil
	})
	return damagedRows, err
}

// uncovered adds the nodes in scope with no valid memo row for term. For
// a term marked covered at this generation only nodes without a body hash
// qualify (their bodies are always scanned directly), and the per-node
// existence check is skipped.
func (e *Engine) uncovered(ctx context.Context, scope Scope, term string, covered bool, add func(id, hash string)) error {
	q := "SELECT nodes.id, nodes.body_hash FROM nodes WHERE " + scope.Where +
		" AND NOT EXISTS (SELECT 1 FROM sniff_memo m WHERE " + validMemo + ")"
	args := append(append([]any{}, scope.Args...), term)
	if covered {
		q = "SELECT nodes.id, nodes.body_hash FROM nodes WHERE " + scope.Where + " AND nodes.body_hash = ''"
		args = scope.Args
	}
	return e.eachRow(ctx, q, args, func(rows *sql.Rows) error {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return err
		}
		add(id, hash)
		return nil
	})
}

// markCovered records the terms a whole-forest scan left fully memoized,
// but only if no catalog write landed since the scan read the catalog:
// then every hashed node has a valid row (it had one, or this write adds
// it).
func markCovered(ctx context.Context, tx *sql.Tx, scan *scanResult) error {
	if len(scan.cover) == 0 {
		return nil
	}
	var now int64
	err := tx.QueryRowContext(ctx, "SELECT value FROM catalog_meta WHERE key = 'generation'").Scan(&now)
	if errors.Is(err, sql.ErrNoRows) {
		now, err = 0, nil
	}
	if err != nil || now != scan.generation {
		return err
	}
	for _, term := range scan.cover {
		if _, err := tx.ExecContext(ctx, "INSERT INTO sniff_cover(term, generation) VALUES (?, ?) "+
			"ON CONFLICT(term) DO UPDATE SET generation = excluded.generation", term, now); err != nil {
			return err
		}
	}
	return nil
}

// storeMemo writes the scans of this call after the answer is decided, in
// the background so the caller never waits for the memo (Close waits for
// it). A failure only costs latency next time, so it is logged. A scan
// that would overflow the backlog is not stored at all (see memoBacklog).
func (e *Engine) storeMemo(ctx context.Context, scan *scanResult) {
	if (len(scan.fresh) == 0 && len(scan.cover) == 0) || e.cat.ReadOnly() {
		return
	}
	n := int64(len(scan.fresh))
	if !reserveMemoBacklog(n) {
		e.log.Debug("sniff memo not stored: the writer is behind; the nodes are read again next time",
			"entries", n, "backlog", memoBacklog.Load())
		return
	}
	ctx = context.WithoutCancel(ctx)
	e.background.Go(func() {
		defer memoBacklog.Add(-n)
		e.writeMemo(ctx, scan)
	})
}

// memoBacklog counts the memo entries of the process's scans that wait
// for the catalog writer or are being written. Memo writes queue behind
// the one writer connection, and a cold scan of a new term over a large
// forest stores a row per node: at 100,000 nodes a burst of cold sniffs
// held every scan in memory until written, 3 GB at peak in the serving
// test (scale_bench_test.go). Past maxMemoBacklog a scan is dropped
// instead: the memo is droppable at any time (C.6b.1), and its nodes are
// read again by the next scan of the term, which costs latency only.
var memoBacklog atomic.Int64

// maxMemoBacklog bounds memoBacklog: a few whole-forest scans of a
// 100,000-node forest, some tens of megabytes of entries.
const maxMemoBacklog = 250_000

// reserveMemoBacklog adds n entries to the backlog unless that would pass
// the bound. An empty backlog always takes a scan, however large, so the
// memo of one big scan is stored when nothing else is waiting.
func reserveMemoBacklog(n int64) bool {
	for {
		cur := memoBacklog.Load()
		if cur > 0 && cur+n > maxMemoBacklog {
			return false
		}
		if memoBacklog.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// termCovered reports whether term's memo covers every hashed node of the
// catalog generation gen.
func (e *Engine) termCovered(ctx context.Context, term string, gen int64) (bool, error) {
	stmt, err := e.prepare(ctx, "SELECT generation FROM sniff_cover WHERE term = ?")
	if err != nil {
		return false, err
	}
	var g int64
	switch err := stmt.QueryRowContext(ctx, term).Scan(&g); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	return g == gen, nil
}

func (e *Engine) writeMemo(ctx context.Context, scan *scanResult) {
	entries := scan.fresh
	err := e.cat.Write(ctx, func(tx *sql.Tx) error {
		if err := markCovered(ctx, tx, scan); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx,
			"INSERT INTO sniff_memo(term, node_id, body_hash, lines, line_nos) VALUES (?, ?, ?, ?, ?) "+
				"ON CONFLICT(term, node_id) DO UPDATE SET body_hash = excluded.body_hash, lines = excluded.lines, "+
				"line_nos = excluded.line_nos")
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, e := range entries {
			lines := []byte("[]")
			if len(e.lines) > 0 {
				if lines, err = json.Marshal(e.lines); err != nil {
					return err
				}
			}
			if _, err := stmt.ExecContext(ctx, e.term, e.node, e.hash, string(lines), encodeLineNumbers(e.lines)); err != nil {
				return err
			}
		}
		return accountMemo(ctx, tx, entries)
	})
	if err != nil {
		e.log.Warn("sniff memo not stored; the next scan reads the files again", "err", err)
	}
}

// memoRowBudget bounds the sniff memo in rows. Past it, the terms stored
// least recently are evicted whole (C.6b.1: eviction by term changes no
// answer). Two million rows is about 500 MB of catalog: twenty whole-forest
// terms at 100,000 nodes, two thousand at 1,000. A variable so tests can
// shrink it.
var memoRowBudget int64 = 2_000_000

// accountMemo records, for each term of the stored entries, its row
// count and that it was stored now, then evicts past the budget.
func accountMemo(ctx context.Context, tx *sql.Tx, entries []memoEntry) error {
	var terms []string
	seen := map[string]bool{}
	for _, e := range entries {
		if !seen[e.term] {
			seen[e.term] = true
			terms = append(terms, e.term)
		}
	}
	if len(terms) == 0 {
		return nil
	}
	var clock int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(stored), 0) + 1 FROM sniff_terms").Scan(&clock); err != nil {
		return err
	}
	for _, t := range terms {
		if _, err := tx.ExecContext(ctx, "INSERT INTO sniff_terms(term, rows, stored) "+
			"VALUES (?1, (SELECT count(*) FROM sniff_memo WHERE term = ?1), ?2) "+
			"ON CONFLICT(term) DO UPDATE SET rows = excluded.rows, stored = excluded.stored", t, clock); err != nil {
			return err
		}
	}
	return evictMemo(ctx, tx, seen)
}

// evictMemo deletes whole terms, least recently stored first, until the
// memo is within memoRowBudget; the terms just stored (keep) stay.
func evictMemo(ctx context.Context, tx *sql.Tx, keep map[string]bool) error {
	var total int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(sum(rows), 0) FROM sniff_terms").Scan(&total); err != nil {
		return err
	}
	if total <= memoRowBudget {
		return nil
	}
	rows, err := tx.QueryContext(ctx, "SELECT term, rows FROM sniff_terms ORDER BY stored, term")
	if err != nil {
		return err
	}
	var victims []string
	for rows.Next() && total > memoRowBudget {
		var term string
		var n int64
		if err := rows.Scan(&term, &n); err != nil {
			rows.Close()
			return err
		}
		if !keep[term] {
			victims = append(victims, term)
			total -= n
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, t := range victims {
		for _, q := range []string{"DELETE FROM sniff_memo WHERE term = ?", "DELETE FROM sniff_terms WHERE term = ?"} {
			if _, err := tx.ExecContext(ctx, q, t); err != nil {
				return err
			}
		}
	}
	return nil
}
