// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/sniff"
)

// The body index's oracle: a cold sniff that looks its terms up in the
// index answers exactly what the literal scan of every body answers, and
// so do the warm sniff after it (from the hot memo) and a sniff that
// answers the candidates from their memo rows.

// oddSniffCalls are sniff arguments the index must not change: terms
// shorter than a gram, Unicode and case folding, punctuation, a phrase, a
// term spanning two lines (it can never match a line), terms that match
// nothing, and scopes, filters, windows and k.
var oddSniffCalls = []string{
	`{"terms": ["skipper", "navegação"], "k": 20}`,
	`{"terms": ["SKIPPER"], "k": 20}`,
	`{"terms": ["NAVEGACAO", "maré"], "k": 20}`,
	`{"terms": ["sy"], "k": 20}`,
	`{"terms": ["ão"], "k": 20}`,
	`{"terms": ["SY-1217", "Chapter 3"], "k": 20}`,
	`{"terms": ["e.g.", "--", "((", "]]"], "k": 20}`,
	`{"terms": ["the"], "k": 20}`,
	`{"terms": ["the skipper"], "k": 20}`,
	`{"terms": ["skipper\nthe", "zzqx-nothing"], "k": 20}`,
	`{"terms": ["zzqx-nothing"]}`,
	`{"terms": ["skipper", "navegação"], "scope": "operations", "k": 20}`,
	`{"terms": ["the", "skipper"], "type_filter": "note", "k": 3}`,
	`{"terms": ["the"], "since": "2024", "k": 20}`,
	`{"terms": ["straße", "ǆa", "ﬁle", "İs"], "k": 20}`,
}

// indexOracle compares, for each call, the cold answer with the index
// off, the cold answer with it on, the warm answer after that, and the
// answer from the memo rows once the hot memo is dropped.
func indexOracle(t *testing.T, v *Vine, calls []string) {
	t.Helper()
	for _, args := range calls {
		v.background.Wait()
		v.sniffer.SetBodyIndexForTest(false)
		clearMemo(t, v)
		want := sniffJSON(t, v, args)
		v.background.Wait()
		v.sniffer.SetBodyIndexForTest(true)
		clearMemo(t, v)
		used := v.sniffer.IndexedScansForTest()
		assert.Equal(t, want, sniffJSON(t, v, args), "cold, through the index: %s", args)
		assert.Equal(t, used+1, v.sniffer.IndexedScansForTest(), "the index answered: %s", args)
		v.background.Wait()
		assert.Equal(t, want, sniffJSON(t, v, args), "warm, after the index: %s", args)
		v.background.Wait()
		v.sniffer.DropHot()
		assert.Equal(t, want, sniffJSON(t, v, args), "candidates from their memo rows: %s", args)
	}
}

// buildIndex writes the fold cache and the body index of v's forest.
func buildIndex(t *testing.T, v *Vine) {
	t.Helper()
	v.background.Wait()
	require.NoError(t, v.sniffer.RefreshFolds(context.Background()))
	require.Positive(t, v.sniffer.BodyIndexEntries())
}

func TestBodyIndexAnswersAsTheLiteralScanOnTheFixture(t *testing.T) {
	defer sniff.SetIndexMinScopeForTest(0)()
	v, _ := writableFixture(t)
	buildIndex(t, v)
	indexOracle(t, v, oddSniffCalls)
}

// With every candidate bounded, scans read the best bounds first and stop
// once the k-th hit beats the rest: the answers are still the literal
// scan's, cold, warm, and from the memo rows of the candidates read.
func TestBoundedScansAnswerAsTheLiteralScan(t *testing.T) {
	defer sniff.SetIndexMinScopeForTest(0)()
	defer sniff.SetPruneMinForTest(1)()
	t.Run("fixture", func(t *testing.T) {
		v, _ := writableFixture(t)
		buildIndex(t, v)
		pruned := v.sniffer.PrunedScansForTest()
		indexOracle(t, v, append(slices.Clone(oddSniffCalls), `{"terms": ["the", "skipper"], "k": 1}`,
			`{"terms": ["an", "the"], "k": 2}`))
		assert.Greater(t, v.sniffer.PrunedScansForTest(), pruned, "some scans left candidates unread")
	})
	t.Run("generated", func(t *testing.T) {
		v, calls := generatedIndexForest(t)
		pruned := v.sniffer.PrunedScansForTest()
		indexOracle(t, v, append(calls, `{"terms": ["the", "of"], "k": 1}`, `{"terms": ["and", "REF-4990"], "k": 5}`))
		assert.Greater(t, v.sniffer.PrunedScansForTest(), pruned, "some scans left candidates unread")
	})
	t.Run("harvest", func(t *testing.T) {
		v, _ := writableFixture(t)
		buildIndex(t, v)
		harvestOracle(t, v)
	})
}

func TestBodyIndexAnswersAsTheLiteralScanOnAGeneratedForest(t *testing.T) {
	defer sniff.SetIndexMinScopeForTest(0)()
	v, calls := generatedIndexForest(t)
	indexOracle(t, v, calls)
}

// generatedIndexForest is a generated forest of 300 leaves with its body
// index built, and sniff calls on it: its codes, common words and
// the unscoped odd calls.
func generatedIndexForest(t *testing.T) (*Vine, []string) {
	dir := t.TempDir()
	man, err := fixture.GenerateSynthetic(context.Background(), dir, fixture.SyntheticOptions{Nodes: 300, Nested: true,
		Vocabulary: 3000, BodySentences: 10, Sections: 3, Commit: true})
	require.NoError(t, err)
	v := openT(t, dir, nil)
	buildIndex(t, v)
	rec, err := v.Record(context.Background(), man.Sample[len(man.Sample)/2])
	require.NoError(t, err)
	code, _ := json.Marshal(codeOfTitle(rec.Title))
	branch, _ := json.Marshal(man.SampleBranches[0])
	calls := []string{
		`{"terms": [` + string(code) + `], "k": 20}`,
		`{"terms": [` + string(code) + `, "REF-4990"], "k": 20}`,
		`{"terms": ["ref-", "re"], "k": 20}`,
		`{"terms": ["the", "REF-4990"], "scope": ` + string(branch) + `, "k": 20}`,
	}
	for _, c := range oddSniffCalls {
		if !strings.Contains(c, `"scope"`) {
			calls = append(calls, c)
		}
	}
	return v, calls
}

// codeOfTitle is the code a nested leaf's title ends with.
func codeOfTitle(title string) string {
	for i := len(title) - 1; i >= 0; i-- {
		if title[i] == ' ' {
			return title[i+1:]
		}
	}
	return title
}

// Another Vine writes to the forest after this one compared the catalog
// with the index: the written bodies are read, never hidden.
func TestBodyIndexSeesWritesOfAnotherVine(t *testing.T) {
	defer sniff.SetIndexMinScopeForTest(0)()
	v, dir := writableFixture(t)
	buildIndex(t, v)
	args := `{"terms": ["quokka-7"], "k": 20}`
	before := sniffJSON(t, v, args)
	assert.JSONEq(t, `{"results": [], "scanned_nodes": `+scannedOf(t, before)+`, "truncated": false}`, before)

	other := openT(t, dir, &Options{Now: plantClock})
	plantNote(t, other, "operations/quokka", "operations/_index", "A new note", "## Sightings\nA quokka-7 was seen.")
	_, err := other.Graft(context.Background(), "operations/radio-schedule", GraftPatch{AppendSection: &SectionEdit{
		Header: "Late note", Body: "The QUOKKA-7 called in."}})
	require.NoError(t, err)
	other.background.Wait()

	clearMemo(t, v)
	after := sniffJSON(t, v, args)
	assert.Contains(t, after, "operations/quokka")
	assert.Contains(t, after, "operations/radio-schedule")
	indexOracle(t, v, append([]string{args}, oddSniffCalls[:3]...))

	// The other Vine rebuilds the index: this one notices the file changed.
	require.NoError(t, other.sniffer.RefreshFolds(context.Background()))
	clearMemo(t, v)
	assert.Equal(t, after, sniffJSON(t, v, args), "after the index was replaced")
	indexOracle(t, v, []string{args})
}

func TestBodyIndexMissingOrDamagedChangesNothing(t *testing.T) {
	defer sniff.SetIndexMinScopeForTest(0)()
	v, dir := writableFixture(t)
	buildIndex(t, v)
	args := `{"terms": ["skipper", "navegação"], "k": 20}`
	clearMemo(t, v)
	want := sniffJSON(t, v, args)

	path := sniff.GramsPath(dir)
	require.NoError(t, os.WriteFile(path, []byte("not an index"), 0o644))
	v.background.Wait()
	clearMemo(t, v)
	assert.Equal(t, want, sniffJSON(t, v, args), "damaged index")

	require.NoError(t, os.Remove(path))
	v.sniffer.BodyIndexEntries() // loaded before: the scan must notice the file is gone
	clearMemo(t, v)
	assert.Equal(t, want, sniffJSON(t, v, args), "missing index")
	v.background.Wait()
	assert.FileExists(t, path, "rebuilt at first need")
	clearMemo(t, v)
	assert.Equal(t, want, sniffJSON(t, v, args), "rebuilt index")
}

func TestHarvestAnswersAsTheLiteralScanThroughTheIndex(t *testing.T) {
	defer sniff.SetIndexMinScopeForTest(0)()
	v, _ := writableFixture(t)
	buildIndex(t, v)
	harvestOracle(t, v)
}

// harvestOracle compares harvests through the index with harvests that
// read every body.
func harvestOracle(t *testing.T, v *Vine) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{"storm alert thresholds for the Tidewatch buoys", "what did the skipper log about SY-1217?"} {
		harvest := func(on bool) string {
			v.background.Wait()
			v.sniffer.SetBodyIndexForTest(on)
			clearMemo(t, v)
			res, err := v.Harvest(ctx, q, HarvestOptions{})
			require.NoError(t, err)
			b, err := json.Marshal(res)
			require.NoError(t, err)
			return string(b)
		}
		assert.Equal(t, harvest(false), harvest(true), q)
	}
}

func scannedOf(t *testing.T, answer string) string {
	t.Helper()
	var a struct {
		Scanned json.Number `json:"scanned_nodes"`
	}
	require.NoError(t, json.Unmarshal([]byte(answer), &a))
	return a.Scanned.String()
}

// Memo rows another implementation wrote come without the bookkeeping
// row this engine keeps per term: a scan through the index still trusts
// them by body hash, so here, where every row records no match, the
// answer is empty although the bodies hold the term.
func TestBodyIndexTrustsMemoRowsWithoutBookkeeping(t *testing.T) {
	defer sniff.SetIndexMinScopeForTest(0)()
	v, _ := writableFixture(t)
	buildIndex(t, v)
	args := `{"terms": ["skipper"], "k": 20}`
	clearMemo(t, v)
	require.Contains(t, sniffJSON(t, v, args), `"id"`, "the fixture holds the term")
	v.background.Wait()
	require.NoError(t, v.cat.Write(context.Background(), func(tx *sql.Tx) error {
		for _, q := range []string{"UPDATE sniff_memo SET lines = '[]', line_nos = '' WHERE term = 'skipper'",
			"DELETE FROM sniff_terms", "DELETE FROM sniff_cover"} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	}))
	v.sniffer.DropHot()
	used := v.sniffer.IndexedScansForTest()
	got := sniffJSON(t, v, args)
	assert.Equal(t, used+1, v.sniffer.IndexedScansForTest(), "the index answered")
	assert.JSONEq(t, `{"results": [], "scanned_nodes": `+scannedOf(t, got)+`, "truncated": false}`, got)
}

// A scan that meets more bodies holding a term than it reads whole ranks
// them on their folds' line numbers and reads only the hits it renders:
// the answers are those of whole reads, cold, warm, and from the memo
// rows that scan left (negatives and the rendered hits' records).
func TestSniffRankedOnFoldsAnswersAsWholeReads(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		t.Run(fmt.Sprintf("index=%v", indexed), func(t *testing.T) {
			if indexed {
				defer sniff.SetIndexMinScopeForTest(0)()
			}
			v, _ := writableFixture(t)
			buildIndex(t, v)
			calls := append(slices.Clone(oddSniffCalls), `{"terms": ["the", "skipper"], "k": 3}`, `{"terms": ["an"], "k": 1}`)
			for _, args := range calls {
				v.background.Wait()
				clearMemo(t, v)
				want := sniffJSON(t, v, args)
				restore := sniff.SetFullReadMaxForTest(0)
				v.background.Wait()
				clearMemo(t, v)
				assert.Equal(t, want, sniffJSON(t, v, args), "cold, ranked on folds: %s", args)
				v.background.Wait()
				assert.Equal(t, want, sniffJSON(t, v, args), "warm: %s", args)
				v.background.Wait()
				v.sniffer.DropHot()
				assert.Equal(t, want, sniffJSON(t, v, args), "from the memo rows it left: %s", args)
				restore()
				v.background.Wait()
				v.sniffer.DropHot()
				assert.Equal(t, want, sniffJSON(t, v, args), "whole reads again, over those rows: %s", args)
			}
		})
	}
}
