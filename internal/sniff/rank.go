// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
)

// Ranking a sniff needs, per node, only which terms matched and on which
// lines; rendering needs the line texts, sections and positions, and the
// catalog row. A warm scan therefore ranks every matching node from the
// memo's line numbers and settles the full records and rows of the k it
// returns only: at a common term that is a few rows decoded instead of
// one per node of the forest.

// candidate is one node in scope: the catalog facts ranking and rendering
// need, nothing read from files.
type candidate struct {
	id, typ, title, hash string
	trail                []string
	bodyTokens           int
}

// loadCandidates reads the catalog rows of the given ids, in id order.
func (e *Engine) loadCandidates(ctx context.Context, ids []string) ([]candidate, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	out := make([]candidate, 0, len(ids))
	const q = "SELECT id, type, title, body_hash, trail, body_tokens FROM nodes " +
		"WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id"
	err = e.eachRow(ctx, q, []any{string(list)}, func(rows *sql.Rows) error {
		var c candidate
		var trail string
		if err := rows.Scan(&c.id, &c.typ, &c.title, &c.hash, &trail, &c.bodyTokens); err != nil {
			return err
		}
		c.trail, _ = catalog.ParseList(trail)
		if c.trail == nil {
			c.trail = []string{}
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// alpha is the heat weight of ranking (Part D, default 0.3).
const alpha = 0.3

// nodeHit gathers one node's per-term line lists.
type nodeHit struct {
	cand  candidate
	terms [][]Line
	heat  float64
	score float64
	lines []Line // union by line, pos = min over terms; set when settled
	// nLines is the number of lines matching any term, which ranking
	// needs; the union itself is built for the hits returned only.
	nLines int

	index       bool // an index node, ranked below every content node
	numbersOnly bool // terms hold line numbers only (from the memo)
	hasRow      bool // cand holds the catalog row, not just the id
	gone        bool // vanished while settling: dropped from the answer
}

// rank combines the per-term lists, scores the hits and puts the
// best k first, in order. The hits carry ids only; settle completes the
// ones that are returned.
func (e *Engine) rank(ctx context.Context, scan *scanResult, nTerms, k int) []*nodeHit {
	hits := e.scored(ctx, scan, nTerms, func(string) bool { return false })
	orderTop(hits, k)
	return hits
}

// scored is a scored hit for each node scan found, bar those skip names.
func (e *Engine) scored(ctx context.Context, scan *scanResult, nTerms int, skip func(id string) bool) []*nodeHit {
	hits := make([]*nodeHit, 0, len(scan.found))
	ids := make([]string, 0, len(scan.found))
	for id, lists := range scan.found {
		if skip(id) {
			continue
		}
		_, numbersOnly := scan.partial[id]
		h := &nodeHit{cand: candidate{id: id}, terms: lists, nLines: distinctLines(lists), numbersOnly: numbersOnly,
			index: forest.IsIndex(id)}
		if h.nLines == 0 {
			continue
		}
		hits = append(hits, h)
		ids = append(ids, id)
	}
	heat := e.heat(ctx, ids)
	for _, h := range hits {
		h.heat = round4(heat[h.cand.id])
		h.rescore(nTerms)
	}
	return hits
}

// orderTop puts the k best hits first, in compareHits order, and leaves
// the rest after them in no order: sniff returns k, and a common term
// matches tens of thousands of nodes, which a full sort ordered for
// nothing.
func orderTop(hits []*nodeHit, k int) {
	if len(hits) <= 4*k {
		slices.SortFunc(hits, compareHits)
		return
	}
	// Selection: hits[:k] holds the best seen so far, sorted; a later hit
	// that beats the k-th swaps in and sinks to its place.
	slices.SortFunc(hits[:k], compareHits)
	for i := k; i < len(hits); i++ {
		if compareHits(hits[i], hits[k-1]) >= 0 {
			continue
		}
		hits[i], hits[k-1] = hits[k-1], hits[i]
		for j := k - 1; j > 0 && compareHits(hits[j], hits[j-1]) < 0; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
}

// rescore scores the hit on its lists (scoreOf).
func (h *nodeHit) rescore(nTerms int) {
	hitTerms := 0
	for _, l := range h.terms {
		if len(l) > 0 {
			hitTerms++
		}
	}
	h.score = scoreOf(hitTerms, nTerms, h.nLines, h.heat)
}

// scoreOf is strength × density × (1 + α·heat): strength the share of
// terms matched, density 1 + 0.15·log2(matching lines). It grows with
// each of its arguments but nTerms, so a bound on them bounds it.
func scoreOf(hitTerms, nTerms, nLines int, heat float64) float64 {
	strength := float64(hitTerms) / float64(nTerms)
	density := 1 + 0.15*math.Log2(float64(nLines))
	return round4(strength * density * (1 + alpha*heat))
}

// compareHits orders content nodes before index nodes, then by score,
// matching lines and id.
func compareHits(a, b *nodeHit) int {
	return cmp.Or(a.standing().compare(b.standing()), strings.Compare(a.cand.id, b.cand.id))
}

// standing is what ranks a hit before another, ids aside: its kind, its
// score and its matching lines.
type standing struct {
	index  bool
	score  float64
	nLines int
}

func (h *nodeHit) standing() standing {
	return standing{index: h.index, score: h.score, nLines: h.nLines}
}

// compare orders content nodes before index nodes, then by score and
// matching lines, best first.
func (a standing) compare(b standing) int {
	if a.index != b.index {
		if a.index {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.nLines, a.nLines))
}

// settle makes the first k hits renderable: full line records for the
// ones ranked from line numbers, catalog rows, and the union of lines. A
// memo row that no longer agrees with its line numbers sends the node
// back to its file, and a node gone from the catalog leaves the answer;
// either can change the order, so settling repeats until the first k are
// complete. Each
// round completes at least one hit, so it ends.
func (e *Engine) settle(ctx context.Context, scan *scanResult, hits []*nodeHit, k int, terms [][]rune) ([]*nodeHit, error) {
	for {
		var pending []*nodeHit
		for _, h := range hits[:min(k, len(hits))] {
			if h.numbersOnly || !h.hasRow {
				pending = append(pending, h)
			}
		}
		if len(pending) == 0 {
			for _, h := range hits[:min(k, len(hits))] {
				if h.lines == nil { // completed hits have theirs
					h.setLines(h.terms)
				}
			}
			return hits, nil
		}
		if err := e.fullLines(ctx, scan, pending, terms); err != nil {
			return nil, err
		}
		if err := e.catalogRows(ctx, pending); err != nil {
			return nil, err
		}
		hits = slices.DeleteFunc(hits, func(h *nodeHit) bool { return h.gone })
		orderTop(hits, k)
	}
}

// fullLines replaces the line numbers of the pending hits with the memo's
// full records. The (node, term) pairs to read go in as one JSON argument,
// so the statement is prepared once whatever their number. Where a row is
// missing, stale or disagrees with the numbers ranked on, the node's body
// is scanned again.
func (e *Engine) fullLines(ctx context.Context, scan *scanResult, pending []*nodeHit, terms [][]rune) error {
	full := map[string][][]Line{}
	var pairs [][2]string
	for _, h := range pending {
		if !h.numbersOnly {
			continue
		}
		for ti, lines := range h.terms {
			if len(lines) == 0 {
				continue
			}
			if kept, ok := e.hot.full(string(terms[ti]), scan.generation, h.cand.id); ok {
				if full[h.cand.id] == nil {
					full[h.cand.id] = make([][]Line, len(terms))
				}
				full[h.cand.id][ti] = kept
				continue
			}
			pairs = append(pairs, [2]string{h.cand.id, string(terms[ti])})
		}
	}
	if len(pairs) > 0 {
		if err := e.memoFull(ctx, scan, pairs, terms, full); err != nil {
			return err
		}
	}
	for _, h := range pending {
		if !h.numbersOnly {
			continue
		}
		if body, read := e.completeLines(h, full[h.cand.id], terms, len(terms)); read && scan.folded[h.cand.id] {
			e.keepRead(scan, h, body, terms)
		}
	}
	return nil
}

// keepRead stores the records settle read for a hit ranked on its fold's
// line numbers, as a whole read would have: memo rows to write, and the
// hot memo's full records. Only records of the body the numbers were
// valid for are kept; a body changed since is left to the next scan.
func (e *Engine) keepRead(scan *scanResult, h *nodeHit, body string, terms [][]rune) {
	hash := scan.partial[h.cand.id]
	if h.gone || hash == "" || bodyHash(body) != hash {
		return
	}
	for ti, lines := range h.terms {
		if len(lines) == 0 {
			continue // a recorded non-match was stored with the scan
		}
		scan.fresh = append(scan.fresh, memoEntry{term: string(terms[ti]), node: h.cand.id, hash: hash, lines: lines})
		e.hot.keepFull(string(terms[ti]), scan.generation, h.cand.id, lines)
	}
}

// memoFull reads the memo rows of the (node, term) pairs into full, and
// keeps them in the hot memo where their term is held. A row of another
// body hash than the one ranked on, or one that does not decode, is left
// out (the node is then scanned again).
func (e *Engine) memoFull(ctx context.Context, scan *scanResult, pairs [][2]string, terms [][]rune, full map[string][][]Line) error {
	arg, err := json.Marshal(pairs)
	if err != nil {
		return err
	}
	termIndex := make(map[string]int, len(terms))
	for i, t := range terms {
		termIndex[string(t)] = i
	}
	const q = "SELECT m.node_id, m.term, m.body_hash, m.lines FROM json_each(?) AS j " +
		"JOIN sniff_memo AS m ON m.term = j.value->>1 AND m.node_id = j.value->>0"
	return e.eachRow(ctx, q, []any{string(arg)}, func(rows *sql.Rows) error {
		var id, term, hash, raw string
		if err := rows.Scan(&id, &term, &hash, &raw); err != nil {
			return err
		}
		ti, ok := termIndex[term]
		if !ok || hash != scan.partial[id] {
			return nil
		}
		lines, err := decodeLines(raw)
		if err != nil {
			return nil
		}
		if full[id] == nil {
			full[id] = make([][]Line, len(terms))
		}
		full[id][ti] = lines
		e.hot.keepFull(term, scan.generation, id, lines)
		return nil
	})
}

// completeLines takes the full records when they agree with the numbers
// ranked on, else rescans the body, which it returns (read); a body gone
// or unreadable drops the hit.
func (e *Engine) completeLines(h *nodeHit, full [][]Line, terms [][]rune, nTerms int) (body string, read bool) {
	h.numbersOnly = false
	if sameLineNumbers(h.terms, full) {
		h.terms = full
		h.setLines(full)
		return "", false
	}
	body, ok := e.body(h.cand.id)
	if !ok {
		h.gone = true
		return "", false
	}
	h.terms = ScanBody(body, terms)
	h.setLines(h.terms)
	if h.nLines == 0 {
		h.gone = true
		return body, true
	}
	h.rescore(nTerms)
	return body, true
}

// sameLineNumbers reports whether full has, term by term, exactly the
// line numbers of numbers.
func sameLineNumbers(numbers, full [][]Line) bool {
	if len(full) != len(numbers) {
		return false
	}
	for ti := range numbers {
		if !slices.EqualFunc(numbers[ti], full[ti], func(a, b Line) bool { return a.Line == b.Line }) {
			return false
		}
	}
	return true
}

// catalogRows loads the rows of the pending hits that lack one; a hit
// whose node left the catalog is marked gone.
func (e *Engine) catalogRows(ctx context.Context, pending []*nodeHit) error {
	var ids []string
	for _, h := range pending {
		if !h.hasRow && !h.gone {
			ids = append(ids, h.cand.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	cands, err := e.loadCandidates(ctx, ids)
	if err != nil {
		return err
	}
	rows := make(map[string]candidate, len(cands))
	for _, c := range cands {
		rows[c.id] = c
	}
	for _, h := range pending {
		if h.hasRow || h.gone {
			continue
		}
		c, ok := rows[h.cand.id]
		h.cand, h.hasRow, h.gone = c, ok, !ok
	}
	return nil
}

// setLines sets the hit's lines to the union of the per-term lists.
func (h *nodeHit) setLines(lists [][]Line) {
	h.lines = unionLines(lists)
	h.nLines = len(h.lines)
}

// distinctLines is len(unionLines(lists)) without building the union:
// a merge of the lists, each in line order.
func distinctLines(lists [][]Line) int {
	only, nonEmpty := 0, 0
	for _, l := range lists {
		if len(l) > 0 {
			only, nonEmpty = len(l), nonEmpty+1
		}
	}
	if nonEmpty <= 1 {
		return only // as unionLines: one list is the union as it stands
	}
	var at [8]int
	next := at[:0]
	if len(lists) > len(at) {
		next = make([]int, 0, len(lists))
	}
	next = next[:len(lists)]
	n := 0
	for {
		line := -1
		for i, l := range lists {
			if next[i] < len(l) && (line < 0 || l[next[i]].Line < line) {
				line = l[next[i]].Line
			}
		}
		if line < 0 {
			return n
		}
		n++
		for i, l := range lists {
			for next[i] < len(l) && l[next[i]].Line == line {
				next[i]++
			}
		}
	}
}

// unionLines merges per-term lists by line, keeping the leftmost position.
// Each list is in line order, and most nodes match one term only, whose
// list is the union as it stands (lists are never modified once found).
func unionLines(lists [][]Line) []Line {
	var only []Line
	n, nonEmpty := 0, 0
	for _, l := range lists {
		if len(l) > 0 {
			only, n, nonEmpty = l, n+len(l), nonEmpty+1
		}
	}
	if nonEmpty <= 1 {
		return only
	}
	all := make([]Line, 0, n)
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortFunc(all, func(a, b Line) int { return cmp.Or(a.Line-b.Line, a.Pos-b.Pos) })
	return slices.CompactFunc(all, func(a, b Line) bool { return a.Line == b.Line })
}

// round4 rounds scores and heat as the wire shows them.
func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// export is a settled hit as the caller renders it.
func (h *nodeHit) export() Hit {
	return Hit{ID: h.cand.id, Type: h.cand.typ, Title: h.cand.title, Trail: h.cand.trail,
		BodyTokens: h.cand.bodyTokens, Score: h.score, Heat: h.heat, Lines: h.lines}
}
