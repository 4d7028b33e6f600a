// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/scent"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/internal/window"
)

// The in-memory copy of the metadata index must rank exactly as FTS5's
// bm25() does: same rows, same order, same ranks. These tests run both on
// the fixture, the reference forest and generated forests, over queries
// drawn from the forests' own metadata (single words, several words,
// derived terms of sentences, hyphenated and dotted phrases, case and
// diacritic variants, terms with no token) under every filter locate has,
// and compare the answers. Ties aside: rows whose ranks are equal within
// 1e-9 may come in either order (no swap was seen: the ranks come out
// bit for bit the same).

// rankTol is the relative difference two ranks may have and still be the
// same rank.
const rankTol = 1e-9

func TestLocateIndexRanksAsFTS5(t *testing.T) {
	ctx := context.Background()
	forests := map[string]string{}
	forests["fixture"], _ = testforest.Fixture(t)
	forests["reference"] = testforest.Reference(t)
	for name, opt := range map[string]fixture.SyntheticOptions{
		// 40 words everywhere: every term common, ties everywhere, idf floored.
		"synthetic-flat-1200":   {Nodes: 1200},
		"synthetic-nested-3000": {Nodes: 3000, Nested: true, Vocabulary: 4000, Sections: 2},
	} {
		if testing.Short() {
			opt.Nodes /= 3
		}
		dir := t.TempDir()
		require.NoError(t, fixture.Synthetic(ctx, dir, opt))
		forests[name] = dir
	}
	total := 0
	for name, dir := range forests {
		t.Run(name, func(t *testing.T) {
			v := openT(t, dir, &Options{ReadOnly: true})
			x := scentIndexT(t, v)
			queries := scentQueries(t, v, 300)
			n := 0
			for qi, ts := range queries {
				for _, f := range scentFilters(t, x, qi) {
					for _, pool := range []int{5, 25, 1000} {
						want, err := v.locator.fts(ctx, f, ts, pool)
						require.NoError(t, err)
						got, err := v.locator.scent(ctx, x, f, ts, pool)
						require.NoError(t, err)
						got, err = v.locator.passports(ctx, got)
						require.NoError(t, err)
						sameRanking(t, fmt.Sprintf("%q filter %+v pool %d", ts, f, pool), want, got)
						n++
					}
				}
			}
			t.Logf("%s: %d queries, %d comparisons, %d index rows", name, len(queries), n, x.Docs())
			total += n
		})
	}
	t.Logf("%d comparisons over %d forests; %d rows not bit-identical", total, len(forests), inexact)
}

// TestLocateIndexCountsAsFTS5 compares the rows each term matches, which
// term selection reads.
func TestLocateIndexCountsAsFTS5(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	x := scentIndexT(t, v)
	gen, err := v.cat.Generation(ctx)
	require.NoError(t, err)
	for _, ts := range scentQueries(t, v, 200) {
		for _, term := range ts {
			want, err := v.sniffer.TermRows(ctx, gen, term, 1<<30)
			require.NoError(t, err)
			phrases, err := v.locator.model.Phrases([]string{term})
			require.NoError(t, err)
			got := 0
			if len(phrases) > 0 {
				got = x.Rows(phrases[0], 1<<30)
				require.Equal(t, min(want, 3), x.Rows(phrases[0], 3), "rows matching %q up to 3", term)
			}
			require.Equal(t, want, got, "rows matching %q", term)
		}
	}
}

// TestLocateIndexCountsTheSearched compares what an empty answer says it
// searched, whole and under policies.
func TestLocateIndexCountsTheSearched(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	x := scentIndexT(t, v)
	for qi := range 12 {
		for _, f := range append(scentFilters(t, x, 2*qi), locateFilter{}) {
			c := withScope(ctx, f.scope)
			want, err := v.locator.searched(c, nil)
			require.NoError(t, err)
			got, err := v.locator.searched(c, x)
			require.NoError(t, err)
			require.Equal(t, want, got, "scope %+v", f.scope)
		}
	}
}

// TestLocateIndexFollowsWrites: a write makes the copy stale; the next
// locate answers from the catalog's index, the one after from a rebuilt
// copy, and both answer as the catalog's index does.
func TestLocateIndexFollowsWrites(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, nil)
	x := scentIndexT(t, v)
	require.NoError(t, v.cat.Upsert(ctx, catalog.Record{ID: "zz/new-note", Kind: "note", Type: "note",
		Title: "Quokka census", Summary: "Counting quokkas on the island", Tags: []string{"quokka"}}))
	require.Nil(t, v.locator.index(ctx), "first sight of a new generation: the catalog answers")
	res, err := v.Locate(ctx, "quokka", LocateOptions{})
	require.NoError(t, err)
	require.Equal(t, "zz/new-note", res.Results[0].ID)
	y := v.locator.index(ctx)
	require.NotNil(t, y, "the generation stood: the copy is rebuilt")
	require.NotSame(t, x, y)
	res2, err := v.Locate(ctx, "quokka", LocateOptions{})
	require.NoError(t, err)
	require.Equal(t, res, res2)
}

// TestLocateIndexRefusesAForeignIndex: an index declared otherwise than
// the catalog declares it is searched where it is.
func TestLocateIndexRefusesAForeignIndex(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, nil)
	require.NoError(t, v.cat.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DROP TABLE nodes_fts")
		if err == nil {
			_, err = tx.ExecContext(ctx, "CREATE VIRTUAL TABLE nodes_fts USING fts5(id UNINDEXED, title, aliases, tags, summary, tokenize='porter unicode61')")
		}
		return err
	}))
	ok, err := v.cat.ScentTracked(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	gen, err := v.cat.Generation(ctx)
	require.NoError(t, err)
	x, err := v.locator.model.At(ctx, gen)
	require.NoError(t, err)
	require.Nil(t, x)
}

func scentIndexT(t *testing.T, v *Vine) *scent.Index {
	t.Helper()
	ctx := context.Background()
	gen, err := v.cat.Generation(ctx)
	require.NoError(t, err)
	x, err := v.locator.model.At(ctx, gen)
	require.NoError(t, err)
	require.NotNil(t, x)
	return x
}

// sameRanking holds got to want: the same ranks, and the same ids in the
// same order except within a tie.
func sameRanking(t *testing.T, what string, want, got []locateCand) {
	t.Helper()
	require.Equal(t, len(want), len(got), "%s: rows\nwant %v\ngot  %v", what, candIDs(want), candIDs(got))
	for i := range want {
		if want[i].rank != got[i].rank || want[i].id != got[i].id {
			inexact++
		}
		require.True(t, sameRank(want[i].rank, got[i].rank), "%s: rank %d: want %v got %v", what, i, want[i].rank, got[i].rank)
		require.Equal(t, want[i].strength, got[i].strength, "%s: strength %d", what, i)
		if want[i].id != got[i].id {
			tied := false
			for j := range want {
				if want[j].id == got[i].id && sameRank(want[j].rank, got[i].rank) {
					tied = true
				}
			}
			require.True(t, tied, "%s: row %d: want %s got %s\nwant %v\ngot  %v", what, i, want[i].id, got[i].id, candIDs(want), candIDs(got))
		}
		require.Equal(t, want[i].title, got[i].title)
	}
}

// inexact counts the rows whose rank differed in any bit or whose id was
// swapped within a tie.
var inexact int

func sameRank(a, b float64) bool {
	return a == b || math.Abs(a-b) <= rankTol*math.Max(math.Abs(a), math.Abs(b))
}

func candIDs(cs []locateCand) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s(%.6g)", c.id, c.rank)
	}
	return out
}

// scentQueries draws term lists from the forest's metadata.
func scentQueries(t *testing.T, v *Vine, n int) [][]string {
	t.Helper()
	var words, phrases []string
	_, _, err := v.cat.ScentRows(context.Background(), func(r *catalog.ScentRow) error {
		for _, s := range []string{r.Title, r.Aliases, r.Tags, r.Summary} {
			f := strings.Fields(s)
			words = append(words, f...)
			for i := 0; i+1 < len(f); i += 3 {
				phrases = append(phrases, f[i]+"-"+f[i+1], f[i]+"."+f[i+1])
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, words)
	rng := rand.New(rand.NewPCG(7, uint64(len(words))))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	qs := [][]string{
		{"__"}, {"--", "tidewatch"}, {"a\x00b"}, {`"quoted" word`}, {"produção"}, {"PRODUCAO", "producao"},
		{"Ærøskøbing"}, {"naïve café"}, {"日本語"}, {"x"}, {"zzzz-qqqq"},
	}
	for len(qs) < n {
		switch rng.IntN(6) {
		case 0:
			qs = append(qs, []string{pick(words)})
		case 1:
			qs = append(qs, []string{pick(words), pick(words), pick(words)})
		case 2:
			qs = append(qs, locateTerms("what about the "+pick(words)+" and "+pick(words)+" of "+pick(words)+"?"))
		case 3:
			if len(phrases) > 0 {
				qs = append(qs, []string{pick(phrases), pick(words)})
			}
		case 4:
			w := pick(words)
			qs = append(qs, []string{strings.ToUpper(w), w, w})
		default:
			qs = append(qs, []string{pick(words) + "-" + pick(words)})
		}
	}
	return qs
}

// scentFilters are the filters a query runs under: none, each kind, a
// type, a window on each date field, and a policy scope.
func scentFilters(t *testing.T, x *scent.Index, qi int) []locateFilter {
	t.Helper()
	d := x.Doc(qi % x.Docs())
	fs := []locateFilter{{}, {kind: "branch"}, {kind: "note"}, {typ: d.Type}}
	if qi%3 == 0 {
		for _, field := range []string{window.Created, window.Updated} {
			w, err := window.Parse("2024", "2026-06", field)
			require.NoError(t, err)
			fs = append(fs, locateFilter{win: w, kind: "note"})
		}
	}
	if i := strings.IndexByte(d.ID, '/'); i > 0 && qi%2 == 0 {
		fs = append(fs, locateFilter{scope: &scope{allow: []string{d.ID[:i+1]}}})
		fs = append(fs, locateFilter{scope: &scope{whole: true, deny: []string{d.ID[:i+1]}}})
	}
	return fs
}

// windowTest agrees with the window's own in-memory test on every bound
// shape.
func TestLocateWindowTestIsContains(t *testing.T) {
	dates := []string{"", "2023", "2024-01-01", "2024-02-29", "2024-03-01", "2024-12-31", "2025-01-01", "2025-01-01T10:00", "2026-06-30T23:59", "2026-07-01", "9999"}
	for _, b := range [][2]string{{"2024", ""}, {"", "2024-02"}, {"2024-02", "2024-02"}, {"2024-03-01", "2026-06"}, {"2025", "2025"}} {
		for _, field := range []string{window.Created, window.Updated} {
			w, err := window.Parse(b[0], b[1], field)
			require.NoError(t, err)
			test := windowTest(w)
			for _, d := range dates {
				doc := &scent.Doc{Created: d, Updated: d}
				require.Equal(t, w.Contains(d), test(doc), "window %v date %q", b, d)
			}
		}
	}
}
