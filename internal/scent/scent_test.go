// SPDX-License-Identifier: Apache-2.0

package scent

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
)

// The weights are catalog.RankExpr's, id column first.
func TestWeightsAreRankExprs(t *testing.T) {
	want := "bm25(nodes_fts, 0"
	for _, w := range weights {
		want += fmt.Sprintf(", %g", w)
	}
	assert.Equal(t, want+")", catalog.RankExpr)
}

// The Go twin splits ASCII text as SQLite's tokenizer does: every ASCII
// character alone and between letters, and random ASCII strings.
func TestASCIITwinSplitsAsTheIndex(t *testing.T) {
	tok := &catalog.Tokenizer{}
	defer tok.Close()
	var texts []string
	for c := range 128 {
		texts = append(texts, string(rune(c)), "ab"+string(rune(c))+"Cd", "x"+string(rune(c)))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteByte(byte(rng.IntN(128)))
		}
		texts = append(texts, b.String())
	}
	want, err := tok.Tokens(texts)
	require.NoError(t, err)
	for i, s := range texts {
		require.True(t, isASCII(s))
		assert.Equal(t, want[i], splitASCII(s), "%q", s)
	}
}

func TestInstancesCountOverlappingPhrases(t *testing.T) {
	assert.Equal(t, 2, instances([]uint32{1, 1, 1}, []uint32{1, 1}))
	assert.Equal(t, 3, instances([]uint32{1, 1, 1}, []uint32{1}))
	assert.Equal(t, 1, instances([]uint32{2, 1, 3}, []uint32{1, 3}))
	assert.Equal(t, 0, instances([]uint32{1}, []uint32{1, 3}))
}

func TestInsertTopKeepsTheBestInRankThenRowidOrder(t *testing.T) {
	var top []Hit
	for i, r := range []float64{-1, -3, -2, -3, 0, -5} {
		top = insertTop(top, Hit{RowID: int64(10 - i), Rank: r}, 3)
	}
	assert.Equal(t, []Hit{{RowID: 5, Rank: -5}, {RowID: 7, Rank: -3}, {RowID: 9, Rank: -3}}, top)
}

// A stale generation is rebuilt only once it has stood: on the second
// call for a small copy, later for a large one.
func TestStandsGrowsWithTheCopy(t *testing.T) {
	m := NewModel(nil, nil)
	small, large := &Index{docs: make([]Doc, 10)}, &Index{docs: make([]Doc, 3*patienceRows)}
	assert.False(t, m.stands(small, 7), "first sight")
	assert.True(t, m.stands(small, 7))
	assert.False(t, m.stands(large, 8), "first sight")
	for range 3 {
		assert.False(t, m.stands(large, 8))
	}
	assert.True(t, m.stands(large, 8))
	assert.False(t, m.stands(large, 9), "a newer generation starts again")
}

// The learned rules split text of any script as SQLite's tokenizer does:
// random strings over letters with and without diacritics, combining
// marks, other scripts, symbols, punctuation and ASCII.
func TestLearnedRulesSplitAsTheIndex(t *testing.T) {
	tok := &catalog.Tokenizer{}
	defer tok.Close()
	pool := []rune("aZ09 -_./'\"\tçÇãÃéÉóÓüÜñßæøåÅœŒıİǅǆﬁ\u0301\u0303\u0308\u200b\u00ad\u00b7ªº²½" +
		"ΩωΣσςЖжДд日本語テスト한국어العربيةעברית\u0e01\u0e31ⅷ①Ⓐ€$©®™—–…«»“”‘’•°±×÷🙂🚀\U0001F3FD")
	rng := rand.New(rand.NewPCG(3, 4))
	var texts []string
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteRune(pool[rng.IntN(len(pool))])
		}
		texts = append(texts, b.String())
	}
	texts = append(texts, "a\xffb", "\xc3", "Ação\x80x")
	want, err := tok.Tokens(texts)
	require.NoError(t, err)
	got, err := newSplitter(tok).Tokens(texts)
	require.NoError(t, err)
	for i := range texts {
		assert.Equal(t, want[i], got[i], "%q", texts[i])
	}
}
