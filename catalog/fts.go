// SPDX-License-Identifier: Apache-2.0

package catalog

import "strings"

// RankExpr is locate's ranking over nodes_fts (C.1): BM25 with column
// weights id 0, title 4, aliases 3, tags 2, summary 1, so a hit on a curated
// name outranks the same word in prose. Lower (more negative) is better:
// order by it ascending.
//
// nodes_fts rowids equal nodes rowids, so a ranking query can select rowid
// and rank only and join nodes afterwards:
//
//	SELECT n.id, f.rank FROM (
//	    SELECT rowid, bm25(nodes_fts, 0, 4, 3, 2, 1) AS rank FROM nodes_fts
//	    WHERE nodes_fts MATCH ? ORDER BY rank LIMIT ?+0) AS f
//	JOIN nodes AS n ON n.rowid = f.rowid ORDER BY f.rank
//
// The limit is written ?+0 in a statement prepared once: SQLite's planner
// reads the value of a bare LIMIT parameter, so each new value would
// compile the statement again on its next step.
//
// Selecting nodes_fts.id in the ranked query instead reads the index's
// content table for every matching row, not only the rows kept.
const RankExpr = "bm25(nodes_fts, 0, 4, 3, 2, 1)"

// MatchExpr renders terms as an FTS5 MATCH expression: each term a quoted
// string with inner double quotes doubled, joined with OR, so no term can
// inject FTS syntax. A NUL byte would end the expression early inside
// SQLite, so it is read as the separator it is to the tokenizer (a space).
// Terms that are empty or only white space are skipped;
// the result is "" when none is left, and an empty expression must not be
// run (no terms, no rows).
func MatchExpr(terms []string) string {
	var b strings.Builder
	for _, t := range terms {
		t = strings.ReplaceAll(t, "\x00", " ")
		if strings.TrimSpace(t) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}
