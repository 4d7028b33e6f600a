// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func sniffJSON(t *testing.T, v *Vine, args string) string {
	t.Helper()
	res, err := v.Call(context.Background(), "sniff", []byte(args))
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return string(b)
}

func plantNote(t *testing.T, v *Vine, id, parent, summary, body string) {
	t.Helper()
	spec, _ := json.Marshal(map[string]any{"node": map[string]any{"id": id, "type": "note", "title": "T " + id,
		"summary": summary, "parent": parent, "body": body, "tags": []string{"zebrafish"}}})
	_, err := v.Call(context.Background(), "plant", spec)
	require.NoError(t, err)
}

func TestSniffFindsBodyFactsWithSectionLineSnippet(t *testing.T) {
	v, _ := writableFixture(t)
	plantNote(t, v, "operations/outage-log", "operations/_index", "Outage log of the harbour gateway in 2026.",
		"# Outage log\n\nIntro line.\n\n## March\n\nThe gateway returned ERR-7731 after the failover.\nSecond line without it.\n\n### Details\n\nerr-7731 again, lower case.")
	res, err := v.Sniff(context.Background(), []string{"ERR-7731"}, SniffOptions{})
	require.NoError(t, err)
	require.Len(t, res.Results, 1)
	hit := res.Results[0]
	assert.Equal(t, "operations/outage-log", hit.ID)
	assert.Equal(t, 2, hit.MatchCount)
	require.Len(t, hit.Matches, 2)
	assert.Equal(t, "March", *hit.Matches[0].Section)
	assert.Equal(t, 7, hit.Matches[0].Line, "line numbers count from the body's first line")
	assert.Equal(t, "The gateway returned ERR-7731 after the failover.", hit.Matches[0].Snippet)
	assert.Equal(t, "Details", *hit.Matches[1].Section)
	assert.Equal(t, []string{"_index", "operations/_index"}, hit.Trail)
	assert.False(t, res.Truncated)

	none, err := v.Sniff(context.Background(), []string{"zebrafish"}, SniffOptions{})
	require.NoError(t, err)
	assert.Empty(t, none.Results, "tags are metadata: sniff never searches them")
	assert.Nil(t, none.Searched, "an empty unwindowed sniff carries no window facts")
}

func TestSniffFoldsCaseAndDiacritics(t *testing.T) {
	v, _ := writableFixture(t)
	a, err := v.Sniff(context.Background(), []string{"ITAPUA"}, SniffOptions{K: 20})
	require.NoError(t, err)
	b, err := v.Sniff(context.Background(), []string{"itapuã"}, SniffOptions{K: 20})
	require.NoError(t, err)
	require.NotEmpty(t, a.Results)
	assert.Equal(t, a, b)
}

func TestSniffRefusals(t *testing.T) {
	v, _ := writableFixture(t)
	tests := []struct {
		args    string
		code    Code
		mention string
	}{
		{`{"terms": []}`, ESchema, "1 to 8"},
		{`{"terms": ["a","b","c","d","e","f","g","h","i"]}`, ESchema, "1 to 8"},
		{`{"terms": ["x"]}`, ESchema, `"x"`},
		{`{"terms": [" é "]}`, ESchema, "shorter"},
		{`{"terms": "tide", "scope": "nowhere"}`, ENotFound, "scope not found: nowhere"},
		{`{"terms": "tide", "scope": "_meta"}`, ESchema, "_meta"},
		{`{"terms": "tide", "scope": 3}`, ESchema, "scope"},
		{`{"terms": [3]}`, ESchema, "terms"},
		{`{"terms": "tide", "since": "2026-13"}`, ESchema, "since"},
	}
	for _, tt := range tests {
		_, err := v.Call(context.Background(), "sniff", []byte(tt.args))
		require.Error(t, err, tt.args)
		assert.Equal(t, tt.code, CodeOf(err), tt.args)
		assert.Contains(t, err.Error(), tt.mention, tt.args)
	}
}

func TestSniffScopeAndOrdering(t *testing.T) {
	v, _ := writableFixture(t)
	plantNote(t, v, "operations/kelp-one", "operations/_index", "Kelp note one.", "kelpword once.")
	plantNote(t, v, "operations/kelp-many", "operations/_index", "Kelp note many.",
		strings.Repeat("kelpword here.\n", 10))
	plantNote(t, v, "finance/kelp-money", "finance/_index", "Kelp money note.", "kelpword in finance.")
	res, err := v.Sniff(context.Background(), []string{"kelpword"}, SniffOptions{K: 20})
	require.NoError(t, err)
	var ids []string
	for _, h := range res.Results {
		ids = append(ids, h.ID)
	}
	require.GreaterOrEqual(t, len(ids), 3)
	assert.Equal(t, "operations/kelp-many", ids[0], "more matching lines win (density)")
	assert.Greater(t, res.Results[0].Score, res.Results[1].Score)
	assert.True(t, res.Results[0].TruncatedMatches)
	assert.Len(t, res.Results[0].Matches, 3)

	scoped, err := v.Sniff(context.Background(), []string{"kelpword"}, SniffOptions{Scope: "operations", K: 20})
	require.NoError(t, err)
	for _, h := range scoped.Results {
		assert.True(t, strings.HasPrefix(h.ID, "operations/"), h.ID)
	}
	leaf, err := v.Sniff(context.Background(), []string{"kelpword"}, SniffOptions{Scope: "finance/kelp-money"})
	require.NoError(t, err)
	require.Len(t, leaf.Results, 1)
	assert.Equal(t, 1, leaf.ScannedNodes)

	// The index holds the children's summaries ("Kelp ..."): content first.
	idx, err := v.Sniff(context.Background(), []string{"kelp note"}, SniffOptions{K: 20})
	require.NoError(t, err)
	require.NotEmpty(t, idx.Results)
	last := idx.Results[len(idx.Results)-1]
	assert.Equal(t, "operations/_index", last.ID)
	assert.True(t, last.Demoted)
	for _, h := range idx.Results[:len(idx.Results)-1] {
		assert.False(t, h.Demoted)
	}
}

// Dropping the memo changes latency only: cold, warm and memo-less answers
// are byte-identical, and an edited body invalidates only its own rows.
func TestSniffMemoIsInvisible(t *testing.T) {
	v, dir := writableFixture(t)
	args := `{"terms": ["skipper", "radio"], "scope": "operations", "k": 20}`
	cold := sniffJSON(t, v, args)
	v.background.Wait()
	var rows int
	require.NoError(t, v.cat.DB().QueryRow("SELECT count(*) FROM sniff_memo").Scan(&rows))
	assert.Greater(t, rows, 0, "the cold call filled the memo")
	warm := sniffJSON(t, v, args)
	assert.Equal(t, cold, warm)

	v.background.Wait()
	clearMemo(t, v)
	assert.Equal(t, cold, sniffJSON(t, v, args))

	// Edit one body behind the engine's back, reindex: its rows are stale.
	p := filepath.Join(dir, "operations", "radio-schedule.md")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, append(data, []byte("\nskipper skipper radio\n")...), 0o644))
	_, err = v.Reindex(context.Background())
	require.NoError(t, err)
	after := sniffJSON(t, v, args)
	v.background.Wait()
	clearMemo(t, v)
	assert.Equal(t, after, sniffJSON(t, v, args), "the memo never serves a stale body")
	assert.NotEqual(t, cold, after)
}

func clearMemo(t *testing.T, v *Vine) {
	t.Helper()
	require.NoError(t, v.cat.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec("DELETE FROM sniff_memo")
		return err
	}))
	v.sniffer.DropHot() // and its copy in memory, so the next scan reads bodies
}

func TestSniffBudgetAndK(t *testing.T) {
	v, _ := writableFixture(t)
	long := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	var specs []string
	for i := range 15 {
		specs = append(specs, fmt.Sprintf(`{"id": "operations/bulk-%02d", "type": "note", "title": "%s", "summary": "Bulk note %d.", "parent": "operations/_index", "body": "needleword %s\nneedleword %s"}`,
			i, strings.Repeat("Long title ", 8), i, long, long))
	}
	_, err := v.Call(context.Background(), "plant", []byte(`{"node": [`+strings.Join(specs, ",")+`]}`))
	require.NoError(t, err)
	res, err := v.Sniff(context.Background(), []string{"needleword"}, SniffOptions{K: 20})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Results), 15)
	b, _ := json.Marshal(res)
	assert.LessOrEqual(t, (len([]rune(string(b)))+3)/4, BudgetSniff)

	k2, err := v.Sniff(context.Background(), []string{"needleword"}, SniffOptions{K: 2})
	require.NoError(t, err)
	assert.Len(t, k2.Results, 2)
	assert.True(t, k2.Truncated, "more than k matched")
}

func TestSniffWindow(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	res, err := v.Sniff(context.Background(), []string{"storm"}, SniffOptions{Since: "2020", Until: "2020", K: 20})
	require.NoError(t, err)
	assert.Empty(t, res.Results)
	require.NotNil(t, res.Window)
	require.NotNil(t, res.MatchedWindow)
	assert.Equal(t, 0, *res.MatchedWindow)
	assert.NotEmpty(t, res.Hint)

	in, err := v.Sniff(context.Background(), []string{"storm"}, SniffOptions{Since: "2025-11", Until: "2025-11", K: 20})
	require.NoError(t, err)
	for _, h := range in.Results {
		rec, _, _ := v.cat.Get(context.Background(), h.ID)
		assert.True(t, strings.HasPrefix(rec.Created, "2025-11"), h.ID)
	}
	assert.Nil(t, in.MatchedWindow)
}

func TestSnippetWindow(t *testing.T) {
	line := strings.Repeat("a", 150) + "NEEDLE" + strings.Repeat("b", 150)
	s := snippet(line, 150)
	assert.True(t, strings.HasPrefix(s, "…"))
	assert.True(t, strings.HasSuffix(s, "…"))
	assert.Contains(t, s, "NEEDLE")
	assert.Equal(t, "short line", snippet("short line   ", 0))
}

// Memo rows landing from the background while a scan runs never hide a
// match: calls racing the memo writer agree with a memo-less answer.
func TestSniffRacingTheMemoWriter(t *testing.T) {
	v, _ := writableFixture(t)
	want := sniffJSON(t, v, `{"terms": ["radio"], "k": 20}`)
	for range 20 {
		v.background.Wait()
		clearMemo(t, v)
		first := sniffJSON(t, v, `{"terms": ["radio"], "k": 20}`) // starts a memo write
		second := sniffJSON(t, v, `{"terms": ["radio"], "k": 20}`)
		require.Equal(t, want, first)
		require.Equal(t, want, second)
	}
}

// A term whose memo covers the whole forest skips the per-node coverage
// check; any catalog write withdraws that shortcut, so a node planted
// afterwards is still read and found.
func TestSniffCoverageMarkerFollowsTheCatalog(t *testing.T) {
	v, _ := writableFixture(t)
	first := sniffJSON(t, v, `{"terms": ["walrus"], "k": 20}`)
	v.background.Wait()
	var marked int
	require.NoError(t, v.cat.DB().QueryRow("SELECT count(*) FROM sniff_cover").Scan(&marked))
	assert.Equal(t, 1, marked, "a whole-forest scan marks its term covered")
	assert.Equal(t, first, sniffJSON(t, v, `{"terms": ["walrus"], "k": 20}`))

	plantNote(t, v, "operations/walrus-sighting", "operations/_index", "A walrus near the pier.", "A walrus slept on berth 4.")
	after, err := v.Sniff(context.Background(), []string{"walrus"}, SniffOptions{K: 20})
	require.NoError(t, err)
	require.NotEmpty(t, after.Results)
	assert.Equal(t, "operations/walrus-sighting", after.Results[0].ID)

	v.background.Wait()
	clearMemo(t, v)
	require.NoError(t, v.cat.DB().QueryRow("SELECT count(*) FROM sniff_cover").Scan(&marked))
	assert.Zero(t, marked, "dropping memo rows withdraws every marker")
}

// SniffEach agrees, term by term, with a scoped single-term sniff.
func TestSniffEachMatchesScopedSniff(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	id := "library/harbour-handbook"
	terms := []string{"radio", "Chapter 7", "mooring", "walrus"}
	each, err := v.SniffEach(ctx, id, terms)
	require.NoError(t, err)
	require.Len(t, each, len(terms))
	for i, term := range terms {
		res, err := v.Sniff(ctx, []string{term}, SniffOptions{Scope: id, K: 1})
		require.NoError(t, err)
		if len(res.Results) == 0 {
			assert.Zero(t, each[i].MatchCount, term)
			continue
		}
		assert.Equal(t, res.Results[0].MatchCount, each[i].MatchCount, term)
		assert.Equal(t, res.Results[0].Matches, each[i].Matches, term)
	}
	_, err = v.SniffEach(ctx, "no/such", terms)
	assert.Equal(t, ENotFound, CodeOf(err))
}
