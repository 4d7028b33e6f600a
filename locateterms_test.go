// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestSelectTermsDropsCommonTermsOnlyPastTheBudget(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	gen, err := v.cat.Generation(ctx)
	require.NoError(t, err)
	count := func(term string) int {
		n, err := v.sniffer.TermRows(ctx, gen, term, 1000)
		require.NoError(t, err)
		return n
	}
	rare, common, other := "Coldbox", "Tidewatch", "treasurer"
	require.Less(t, count(rare), count(common))
	require.Less(t, count(other), count(common))
	require.Positive(t, count(rare))
	require.Greater(t, count("cooperative")-1, len(regionIDs(t, v))/commonShare, "both common at that budget")
	defer func(b int) { locateRowBudget = b }(locateRowBudget)
	x, err := v.locator.model.At(ctx, gen)
	require.NoError(t, err)
	require.NotNil(t, x, "the first call builds the copy")

	for _, tc := range []struct {
		name   string
		budget int
		terms  []string
		want   []string
	}{
		{"within the budget nothing changes", count(rare) + count(common) + count(other), []string{common, rare, other}, []string{common, rare, other}},
		{"past it the common term goes", count(common) - 1, []string{common, rare, other}, []string{rare, other}},
		{"a question of common terms only is searched whole", count("cooperative") - 1, []string{common, "cooperative"}, []string{common, "cooperative"}},
		{"one term is never selected", 1, []string{common}, []string{common}},
		{"selection off", 0, []string{common, rare}, []string{common, rare}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			locateRowBudget = tc.budget
			v.sniffer.ForgetCounts() // the cap of a count depends on the budget
			got, err := v.selectTerms(ctx, nil, tc.terms)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "counted by the catalog's index")
			got, err = v.selectTerms(ctx, x, tc.terms)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "counted by the in-memory copy")
		})
	}
}
