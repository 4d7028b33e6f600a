// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"

	"github.com/monkeyllm/vine/internal/scent"
)

// Term selection for the lexical leg at scale. FTS5 scores every row that
// matches any term before it keeps the best, and a wordy question carries
// words that a large share of the forest holds: at 100,000 nodes "which
// notes report readings about the <title>?" matched 30,000 rows and took
// 80 ms, of which the two title words matched 1,500. When the derived
// terms together match more than locateRowBudget rows, the lexical leg
// drops the common ones, each matching more than a twentieth of the
// forest: their inverse document frequency is below 3, a tenth or less of
// a rare word's, so they rank little while costing nearly all the work.
// Every other term is kept, and a question of common words only is
// searched whole. Below the budget nothing changes, so a small forest is
// answered exactly as before. The rows each term matches are counted up
// to the threshold and remembered for the catalog generation they were
// counted at.
//
// Measured on the 100,000-leaf forest (TestScaleLocateQuality, 192
// questions with known answers): see the commit that introduced it.

// locateRowBudget bounds the rows a pruned lexical leg scores; 0 turns
// selection off (a variable so tests can compare the two).
var locateRowBudget = 5000

// commonShare is the share of the forest a common term matches more of.
const commonShare = 20

// selectTerms returns the terms the lexical leg searches. The counts come
// from the in-memory copy of the metadata index when there is one (x),
// else from the catalog's index.
func (v *Vine) selectTerms(ctx context.Context, x *scent.Index, ts []string) ([]string, error) {
	if len(ts) < 2 || locateRowBudget <= 0 {
		return ts, nil
	}
	nodes, rowsOf, err := v.locator.termCounter(ctx, x)
	if err != nil {
		return nil, err
	}
	common := max(locateRowBudget, nodes/commonShare)
	rows := make([]int, len(ts))
	total := 0
	for i, t := range ts {
		if rows[i], err = rowsOf(t, common+1); err != nil {
			return nil, err
		}
		total += rows[i]
	}
	if total <= locateRowBudget {
		return ts, nil
	}
	var kept []string
	for i, t := range ts {
		if rows[i] <= common {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return ts, nil
	}
	return kept, nil
}
