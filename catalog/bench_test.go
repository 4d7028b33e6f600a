// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// synth builds n deterministic records shaped like a real forest: branches
// of 50 notes, short curated metadata, a few edges each.
func synth(n int) iter.Seq[Record] {
	return func(yield func(Record) bool) {
		rng := rand.New(rand.NewPCG(1, 2))
		word := func() string { return fmt.Sprintf("w%d", rng.IntN(5000)) }
		words := func(k int) string {
			ws := make([]string, k)
			for i := range ws {
				ws[i] = word()
			}
			return strings.Join(ws, " ")
		}
		for i := range n {
			branch := fmt.Sprintf("b%d", i/50)
			r := Record{
				ID: fmt.Sprintf("%s/n%d", branch, i), Kind: "note", Type: "note",
				Title: words(5), Summary: words(25), Tags: []string{word(), word(), word()},
				Aliases: []string{words(2)}, Created: fmt.Sprintf("2026-%02d-%02d", 1+i%12, 1+i%28),
				Updated: "2026-06-01", Confidence: 1, Parent: branch + "/_index",
				Trail: []string{"_index", branch + "/_index"}, BodyTokens: 400,
				Outline: []string{words(2), words(3), words(2)}, BodyHash: fmt.Sprintf("%064x", i),
				Edges: []Edge{
					{"part-of", branch + "/_index", 1},
					{"related", fmt.Sprintf("b%d/n%d", rng.IntN(n/50+1), rng.IntN(n)), 0.8},
				},
			}
			if i%50 == 0 {
				r.ID, r.Kind, r.Type, r.Parent = branch+"/_index", "branch", "branch", "_index"
				r.Trail, r.Coverage = []string{"_index"}, "49 bananas, 0 sub-branches"
			}
			if !yield(r) {
				return
			}
		}
	}
}

func BenchmarkUpsert(b *testing.B) {
	ctx := context.Background()
	c, _ := openTest(b)
	_, err := c.Rebuild(ctx, synth(2000), nil)
	require.NoError(b, err)
	var recs []Record
	for r := range synth(2000) {
		recs = append(recs, r)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r := recs[i%len(recs)]
		r.BodyHash = fmt.Sprint(i)
		if err := c.Upsert(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRebuild10k(b *testing.B) {
	ctx := context.Background()
	c, _ := openTest(b)
	var recs []Record
	for r := range synth(10_000) {
		recs = append(recs, r)
	}
	for b.Loop() {
		st, err := c.Rebuild(ctx, records(recs...), nil)
		if err != nil {
			b.Fatal(err)
		}
		if st.Nodes != 10_000 {
			b.Fatalf("rebuilt %d nodes", st.Nodes)
		}
	}
}

func BenchmarkFTSQuery(b *testing.B) {
	ctx := context.Background()
	c, _ := openTest(b)
	_, err := c.Rebuild(ctx, synth(2000), nil)
	require.NoError(b, err)
	require.NoError(b, c.Warm(ctx))
	st, err := c.DB().PrepareContext(ctx, `SELECT n.id, f.rank FROM (
		SELECT rowid, `+RankExpr+` AS rank FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT 25) AS f
		JOIN nodes AS n ON n.rowid = f.rowid ORDER BY f.rank`)
	require.NoError(b, err)
	defer st.Close()
	queries := []string{
		MatchExpr([]string{"w17", "w4242"}),
		MatchExpr([]string{"w1", "w2", "w3"}),
		MatchExpr([]string{"w999"}),
	}
	for i := 0; b.Loop(); i++ {
		rows, err := st.QueryContext(ctx, queries[i%len(queries)])
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var id string
			var rank float64
			if err := rows.Scan(&id, &rank); err != nil {
				b.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
	}
}

func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	c, _ := openTest(b)
	var ids []string
	for r := range synth(2000) {
		ids = append(ids, r.ID)
	}
	_, err := c.Rebuild(ctx, synth(2000), nil)
	require.NoError(b, err)
	for i := 0; b.Loop(); i++ {
		if _, ok, err := c.Get(ctx, ids[i%len(ids)]); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
