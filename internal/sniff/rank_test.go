// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/monkeyllm/vine/forest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A warm sniff ranks from the memo's line numbers and settles the full
// records of what it returns. Rows that another implementation wrote
// without numbers, or that are damaged, cost a read of the body and never
// change the answer.
func TestHotMemoKeepsOneGenerationWithinBudget(t *testing.T) {
	defer func(b int) { hotMemoBudget = b }(hotMemoBudget)
	entry := func(n int) *hotTerm {
		var b hotBuilder
		for i := range n {
			b.add("node/"+string(rune('a'+i%26)), "hash", []Line{{Line: i + 1}})
		}
		return &b.t
	}
	hotMemoBudget = 3 * entry(4).cost()
	var m hotMemo
	m.put("alpha", 7, entry(4))
	m.put("beta", 7, entry(4))
	_, ok := m.get("alpha", 7) // alpha is now the most recently used
	require.True(t, ok)
	m.put("gamma", 7, entry(4))
	m.put("delta", 7, entry(4)) // over budget: beta, least recently used, leaves
	_, ok = m.get("beta", 7)
	assert.False(t, ok)
	for _, term := range []string{"alpha", "gamma", "delta"} {
		_, ok := m.get(term, 7)
		assert.True(t, ok, term)
	}
	_, ok = m.get("alpha", 8)
	assert.False(t, ok, "another generation misses")

	m.put("older", 6, entry(1))
	_, ok = m.get("older", 6)
	assert.False(t, ok, "a reader that raced a write stores nothing")
	m.put("epsilon", 8, entry(1))
	_, ok = m.get("alpha", 7)
	assert.False(t, ok, "a newer generation empties the cache")

	m.put("huge", 8, entry(100))
	_, ok = m.get("huge", 8)
	assert.False(t, ok, "an entry above the whole budget is not kept")

	var got []int
	entry(3).each(func(id, hash string, lines []Line, numbersOnly bool) {
		assert.True(t, numbersOnly)
		got = append(got, lines[0].Line)
	})
	assert.Equal(t, []int{1, 2, 3}, got)
}

func TestDistinctLinesCountsTheUnion(t *testing.T) {
	recs := func(lines ...int) []Line {
		out := make([]Line, len(lines))
		for i, l := range lines {
			out[i] = Line{Line: l, Pos: i}
		}
		return out
	}
	for _, lists := range [][][]Line{
		nil,
		{nil, nil},
		{recs(1, 4, 9)},
		{nil, recs(2, 3)},
		{recs(1, 4, 9), recs(4, 5), recs(9, 10, 11)},
		{recs(1, 1, 2), recs(1)},
		{recs(1, 1, 2)},
		{recs(1), recs(2), recs(3), recs(4), recs(5), recs(6), recs(7), recs(8), recs(9), recs(1, 9)},
	} {
		assert.Equal(t, len(unionLines(lists)), distinctLines(lists), "%v", lists)
	}
}

// orderTop must put first exactly the hits, in exactly the order, that a
// full sort puts first.
func TestOrderTopAgreesWithASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 24, 25, 100, 1000} {
		for _, k := range []int{1, 3, 6, 20} {
			hits := make([]*nodeHit, n)
			for i := range hits {
				id := fmt.Sprintf("n%04d", rng.IntN(n+1)) // duplicate ids tie on every key
				if rng.IntN(5) == 0 {
					id += "/_index"
				}
				hits[i] = &nodeHit{cand: candidate{id: id}, index: forest.IsIndex(id),
					score: float64(rng.IntN(4)) / 4, nLines: rng.IntN(3)}
			}
			sorted := slices.Clone(hits)
			slices.SortStableFunc(sorted, compareHits)
			orderTop(hits, k)
			top := min(k, n)
			for i := range top {
				assert.Zero(t, compareHits(sorted[i], hits[i]), "n=%d k=%d at %d", n, k, i)
			}
			assert.ElementsMatch(t, sorted, hits, "n=%d k=%d: no hit lost", n, k)
		}
	}
}
