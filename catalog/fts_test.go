// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ftsIDs runs a locate-shaped query: quoted terms, BM25 with the spec's
// weights, best first.
func ftsIDs(t testing.TB, c *Catalog, terms ...string) []string {
	t.Helper()
	rows, err := c.DB().Query(`SELECT id FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY `+RankExpr,
		MatchExpr(terms))
	require.NoError(t, err)
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	return ids
}

func TestFTSRemovesDiacritics(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	r := note("p")
	r.Title = "Produção"
	r.Summary = "Linha de montagem"
	require.NoError(t, c.Upsert(ctx, r))
	for _, q := range []string{"producao", "Produção", "PRODUCAO"} {
		assert.Equal(t, []string{"p"}, ftsIDs(t, c, q), q)
	}
}

func TestFTSColumnWeights(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	in := func(id, title, aliases, tags, summary string) Record {
		r := Record{ID: id, Kind: "note", Type: "note", Title: title, Summary: summary, Confidence: 1}
		if aliases != "" {
			r.Aliases = []string{aliases}
		}
		if tags != "" {
			r.Tags = []string{tags}
		}
		return r
	}
	// Same text everywhere, one column carries the term: only the column
	// weight can order them.
	require.NoError(t, c.Upsert(ctx,
		in("in-summary", "plain words", "other words", "more words", "kestrel words"),
		in("in-tags", "plain words", "other words", "kestrel words", "more words"),
		in("in-title", "kestrel words", "other words", "more words", "plain words"),
		in("in-aliases", "plain words", "kestrel words", "other words", "more words"),
		in("elsewhere", "plain words", "other words", "more words", "none here"),
	))
	assert.Equal(t, []string{"in-title", "in-aliases", "in-tags", "in-summary"}, ftsIDs(t, c, "kestrel"))
	assert.Empty(t, ftsIDs(t, c, "crm/accounts/acme"), "id is not indexed")
}

func TestFTSFollowsUpsert(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	r := note("n")
	r.Title, r.Tags, r.Aliases = "First", []string{"alpha", "beta"}, []string{"Gamma Ray"}
	require.NoError(t, c.Upsert(ctx, r))
	assert.Equal(t, []string{"n"}, ftsIDs(t, c, "gamma ray"), "aliases are space-joined and phrase-searchable")
	r.Title, r.Tags = "Second", nil
	require.NoError(t, c.Upsert(ctx, r))
	assert.Empty(t, ftsIDs(t, c, "first"))
	assert.Empty(t, ftsIDs(t, c, "alpha"))
	assert.Equal(t, []string{"n"}, ftsIDs(t, c, "second"))
	var n int
	require.NoError(t, c.DB().QueryRow(`SELECT count(*) FROM nodes_fts`).Scan(&n))
	assert.Equal(t, 1, n, "one index row per node")
}

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		terms []string
		want  string
	}{
		{nil, ""},
		{[]string{"", "  ", "\x00"}, ""},
		{[]string{"a\x00b"}, `"a b"`},
		{[]string{"acme"}, `"acme"`},
		{[]string{"acme", "globex"}, `"acme" OR "globex"`},
		{[]string{`say "hi"`}, `"say ""hi"""`},
		{[]string{"NEAR(a b)", "x*", "-y", "col:z"}, `"NEAR(a b)" OR "x*" OR "-y" OR "col:z"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, MatchExpr(tt.terms), "%q", tt.terms)
	}
}

// FuzzMatchExpr checks that no term can break out of its quotes: every
// non-empty expression is valid FTS5 syntax.
func FuzzMatchExpr(f *testing.F) {
	for _, s := range []string{"acme", `"`, `a"b`, "NEAR(", "*", "^x", "a OR b", "\x00", "ção", "-"} {
		f.Add(s, "second")
	}
	c, _ := openTest(f)
	r := note("a")
	r.Title = `say "hi" NEAR ção`
	require.NoError(f, c.Upsert(context.Background(), r))
	st, err := c.DB().Prepare(`SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?`)
	require.NoError(f, err)
	f.Cleanup(func() { st.Close() })
	f.Fuzz(func(t *testing.T, a, b string) {
		expr := MatchExpr([]string{a, b})
		if expr == "" {
			return
		}
		var n int
		require.NoError(t, st.QueryRow(expr).Scan(&n), "expr %q", expr)
	})
}
