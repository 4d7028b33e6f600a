package vine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/monkeyllm/vine/forest"
)

// The memoized scan (C.6b.1): per (folded term, node) the complete list of
// matching lines, valid while the node's body hash is unchanged. A
// non-match is recorded as '[]', so a covered node that holds nothing
// costs one COUNT, not a read. Ranking is never memoized, and dropping the
// memo changes latency only.

// memoEntry is a (term, node) scan to store once the answer is decided.
type memoEntry struct {
	term, node, hash string
	lines            []lineRecord
}

// scanResult is what the scan found: per node, per term, the lines.
type scanResult struct {
	cands   []candidate // rows of the nodes with a hit or a read, id order
	found   map[string][][]lineRecord
	skipped int // unreadable or unreachable bodies, not counted as scanned
	fresh   []memoEntry

	generation int64    // the catalog this scan read
	cover      []string // terms this whole-forest scan leaves fully memoized
}

// scanScope answers each term from the memo where it is valid and reads
// every uncovered body in scope once, scanning all terms in one pass.
// Rows fetched and catalog rows loaded grow with matches plus uncovered
// nodes; a covered node that holds nothing costs nothing (cost rule 1).
func (v *Vine) scanScope(ctx context.Context, pred scopePred, terms [][]rune) (*scanResult, error) {
	gen, err := v.cat.Generation(ctx)
	if err != nil {
		return nil, err
	}
	res := &scanResult{found: map[string][][]lineRecord{}, generation: gen}
	uncovered := map[string]string{} // id -> body hash
	for ti, t := range terms {
		covered, err := v.termCovered(ctx, string(t), gen)
		if err != nil {
			return nil, err
		}
		if pred.whole && !covered {
			res.cover = append(res.cover, string(t))
		}
		// Uncovered nodes first: memo rows stored in the background between
		// the two statements then make a node both uncovered (it is read,
		// which is always right) and matched, never neither.
		if err := v.uncovered(ctx, pred, string(t), covered, uncovered); err != nil {
			return nil, err
		}
		err = v.memoMatches(ctx, pred, string(t), uncovered, func(id string, lines []lineRecord) {
			res.add(id, ti, len(terms), lines)
		})
		if err != nil {
			return nil, err
		}
	}
	toRead := make([]string, 0, len(uncovered))
	for id := range uncovered {
		toRead = append(toRead, id)
	}
	slices.Sort(toRead)
	scans, err := readAndScan(ctx, v, toRead, uncovered, terms)
	if err != nil {
		return nil, err
	}
	for i, id := range toRead { // id order: deterministic results
		if scans[i] == nil {
			res.skipped++
			delete(res.found, id)
			continue
		}
		for ti, lines := range scans[i] {
			res.add(id, ti, len(terms), lines)
			if hash := uncovered[id]; hash != "" {
				res.fresh = append(res.fresh, memoEntry{term: string(terms[ti]), node: id, hash: hash, lines: lines})
			}
		}
	}
	// Catalog rows only for nodes with hits: what ranking and rendering need.
	hits := make([]string, 0, len(res.found))
	for id := range res.found {
		hits = append(hits, id)
	}
	if res.cands, err = v.loadCandidates(ctx, hits); err != nil {
		return nil, err
	}
	return res, nil
}

// scanWorkers read and scan bodies in parallel: a cold scan is mostly
// file-system calls, which overlap well even on two cores.
const scanWorkers = 4

// readAndScan scans every candidate's body once for all terms; out[i] is
// nil when the body was unreadable or unreachable. A body the fold cache
// holds under its current hash is rejected without opening its file.
func readAndScan(ctx context.Context, v *Vine, ids []string, hashes map[string]string, terms [][]rune) ([][][]lineRecord, error) {
	cache, release := v.folds.acquire(v.loadFolds)
	defer release()
	out := make([][][]lineRecord, len(ids))
	var stale atomic.Int64
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(scanWorkers, len(ids)) {
		wg.Go(func() {
			sc := newBodyScanner(terms)
			for i := range next {
				if folded, ok := cache.fresh(ids[i], hashes[ids[i]]); ok && !sc.holdsAny(folded) {
					out[i] = make([][]lineRecord, len(terms))
					continue
				} else if !ok {
					stale.Add(1)
				}
				if body, ok := v.sniffBody(ids[i]); ok {
					out[i] = sc.scan(body)
				}
			}
		})
	}
	for i := range ids {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if n := int(stale.Load()); n >= foldRefreshMin && n*4 >= len(ids) {
		v.scheduleFoldRefresh()
	}
	return out, ctx.Err()
}

// add records a term's lines for a node (a fresh read replaces the memo
// answer, which is identical by construction).
func (r *scanResult) add(id string, term, nTerms int, lines []lineRecord) {
	lists, ok := r.found[id]
	if !ok {
		if len(lines) == 0 {
			return
		}
		lists = make([][]lineRecord, nTerms)
		r.found[id] = lists
	}
	lists[term] = lines
}

const validMemo = "m.term = ? AND m.node_id = nodes.id AND nodes.body_hash != '' AND m.body_hash = nodes.body_hash"

// memoMatches calls match for every valid memo row of term in scope that
// holds lines. A row that does not decode is a miss, never an answer: its
// node joins damaged and is read again.
func (v *Vine) memoMatches(ctx context.Context, pred scopePred, term string, damaged map[string]string,
	match func(id string, lines []lineRecord)) error {
	q := "SELECT nodes.id, nodes.body_hash, m.lines FROM sniff_memo m JOIN nodes ON " + validMemo +
		" WHERE m.lines != '[]' AND " + pred.where
	return v.eachRow(ctx, q, append([]any{term}, pred.args...), func(rows *sql.Rows) error {
		var id, hash, raw string
		if err := rows.Scan(&id, &hash, &raw); err != nil {
			return err
		}
		lines, err := decodeLines(raw)
		if err != nil {
			damaged[id] = hash
			return nil
		}
		match(id, lines)
		return nil
	})
}

// uncovered adds the nodes in scope with no valid memo row for term. For
// a term marked covered at this generation only nodes without a body hash
// qualify (their bodies are always scanned directly), and the per-node
// existence check is skipped.
func (v *Vine) uncovered(ctx context.Context, pred scopePred, term string, covered bool, into map[string]string) error {
	q := "SELECT nodes.id, nodes.body_hash FROM nodes WHERE " + pred.where +
		" AND NOT EXISTS (SELECT 1 FROM sniff_memo m WHERE " + validMemo + ")"
	args := append(append([]any{}, pred.args...), term)
	if covered {
		q = "SELECT nodes.id, nodes.body_hash FROM nodes WHERE " + pred.where + " AND nodes.body_hash = ''"
		args = pred.args
	}
	return v.eachRow(ctx, q, args, func(rows *sql.Rows) error {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return err
		}
		into[id] = hash
		return nil
	})
}

func (v *Vine) eachRow(ctx context.Context, q string, args []any, fn func(*sql.Rows) error) error {
	stmt, err := v.stmt(ctx, q)
	if err != nil {
		return err
	}
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sniffBody reads the body sniff scans: the file is split without
// decoding its YAML unless the frontmatter carries a content: marker, in
// which case the backing body is resolved (G.7). Unreadable or
// unreachable bodies answer ok=false and are skipped silently.
func (v *Vine) sniffBody(id string) (string, bool) {
	p, err := v.root.TrustedPath(id)
	if err != nil {
		return "", false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	yamlBlock, body, err := forest.Split(id, data)
	if err != nil {
		return "", false
	}
	if !strings.Contains(yamlBlock, "content:") {
		return body, true
	}
	n, err := forest.Parse(id, data)
	if err != nil {
		return "", false
	}
	switch n.Content() {
	case "cached":
		body, err = v.cachedBody(id)
	case "reference":
		body, err = v.referenceBody(id, n.Front.String("source_path"))
	}
	return body, err == nil
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
// it). A failure only costs latency next time, so it is logged.
func (v *Vine) storeMemo(ctx context.Context, scan *scanResult) {
	if (len(scan.fresh) == 0 && len(scan.cover) == 0) || v.cat.ReadOnly() {
		return
	}
	ctx = context.WithoutCancel(ctx)
	v.background.Go(func() { v.writeMemo(ctx, scan) })
}

// termCovered reports whether term's memo covers every hashed node of the
// catalog generation gen.
func (v *Vine) termCovered(ctx context.Context, term string, gen int64) (bool, error) {
	stmt, err := v.stmt(ctx, "SELECT generation FROM sniff_cover WHERE term = ?")
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

func (v *Vine) writeMemo(ctx context.Context, scan *scanResult) {
	entries := scan.fresh
	err := v.cat.Write(ctx, func(tx *sql.Tx) error {
		if err := markCovered(ctx, tx, scan); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx,
			"INSERT INTO sniff_memo(term, node_id, body_hash, lines) VALUES (?, ?, ?, ?) "+
				"ON CONFLICT(term, node_id) DO UPDATE SET body_hash = excluded.body_hash, lines = excluded.lines")
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
			if _, err := stmt.ExecContext(ctx, e.term, e.node, e.hash, string(lines)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		v.log.Warn("sniff memo not stored; the next scan reads the files again", "err", err)
	}
}
