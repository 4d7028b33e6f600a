// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine/forest"
)

func TestDeriveAliases(t *testing.T) {
	tests := []struct {
		name     string
		rel      string
		title    string
		body     string
		declared map[string]string
		want     []string
	}{
		{"spec example: initials", "back-end/291-provider-budget.md", "Provider budget", "", nil,
			[]string{"BE-291", "back-end/291", "291"}},
		{"spec example: declared prefix suppresses initials", "back-end/291-provider-budget.md", "Provider budget", "",
			map[string]string{"back-end": "API"}, []string{"API-291", "back-end/291", "291"}},
		{"spec example: code in the title", "adr/storage.md", "ADR-0002 Storage", "", nil, []string{"ADR-0002"}},
		{"digits glued to a word are no number", "tools/9router-free.md", "Router", "", nil, nil},
		{"single-word folder has no initials", "ops/12-rotation.md", "Rotation", "", nil, []string{"ops/12", "12"}},
		{"number at the root is bare", "7.md", "Seven", "", nil, []string{"7"}},
		{"number ending the stem", "people_ops/2024.txt", "Year", "", nil, []string{"PO-2024", "people_ops/2024", "2024"}},
		{"declared prefix only for its folder", "legal/15-nda.md", "NDA", "", map[string]string{"back-end": "BE"},
			[]string{"legal/15", "15"}},
		{"code in the H1, not in the prose below", "x/notes.md", "Notes", "# INC-42 Outage\n\nSee also OPS-7 and SEC-9.", nil,
			[]string{"INC-42"}},
		{"codes deduplicated", "x/a.md", "BE-1 and BE-1 again", "# BE-1", nil, []string{"BE-1"}},
		{"lower-case or too long codes do not count", "x/a.md", "be-12 ABCDEFG-1 AB-1234567", "", nil, nil},
		{"nothing derivable is nothing", "notes/readme.md", "Readme", "body", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DeriveAliases(tt.rel, tt.title, tt.body, tt.declared))
		})
	}
}

func TestUnionAliases(t *testing.T) {
	full := make([]string, forest.MaxAliases)
	for i := range full {
		full[i] = "hand-" + string(rune('a'+i))
	}
	tests := []struct {
		name       string
		existing   []string
		candidates []string
		want       []string
		clipped    int
	}{
		{"appends missing after existing", []string{"Hand"}, []string{"BE-1", "Hand"}, []string{"Hand", "BE-1"}, 0},
		{"never displaces, counts what does not fit", full, []string{"BE-1", "1"}, full, 2},
		{"over-long and blank are clipped", nil, []string{strings.Repeat("x", 81), " ", "ok"}, []string{"ok"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, clipped := unionAliases(tt.existing, tt.candidates)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.clipped, clipped)
		})
	}
}

func TestProposedAliases(t *testing.T) {
	got := proposedAliases([]string{"BE-291"},
		[]string{"Provider Budget", "be-291", "Orçamento", "orcamento anual", "invented name", "Budget Q3", strings.Repeat("a", 81), " "},
		"Budget Q3", "The provider budget covers the orçamento anual of the team.")
	assert.Equal(t, []string{"Provider Budget", "Orçamento", "orcamento anual"}, got,
		"kept: occurs in the text under the fold; dropped: already present, the title, invented, too long, blank")
}

func TestCleanTags(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []string
		dropped int
	}{
		{"lowercased, accents kept", []string{"Orçamento", "São-Paulo"}, []string{"orçamento", "são-paulo"}, 0},
		{"duplicates by fold are no loss", []string{"Straße", "STRASSE", "straße"}, []string{"straße"}, 0},
		{"NFC and NFD are one tag", []string{"caf\u00e9", "cafe\u0301"}, []string{"caf\u00e9"}, 0},
		{"rule losses counted", []string{"two words", "-dash", "", "ok_1", "a/b", strings.Repeat("x", 41)}, []string{"ok_1"}, 5},
		{"codes and numbers are tags", []string{"BE-291", "2026"}, []string{"be-291", "2026"}, 0},
		{"cap of 12, overflow counted", []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12", "a13", "a14"},
			[]string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped := CleanTags(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.dropped, dropped)
		})
	}
}

func TestDeriveSummary(t *testing.T) {
	long := strings.Repeat("word ", 80)
	tests := []struct {
		name, title, body, want string
	}{
		{"prose only", "T", "# Title\n\n- list item\n> quote\n| a | b |\n`code`\n\nFirst sentence. Second one!",
			"First sentence. Second one!"},
		{"links keep their text, images and emphasis go", "T",
			"See the [runbook](http://x/y) and ![logo](l.png) for **bold** and _light_ and *soft* steps. snake_case stays.",
			"See the runbook and for bold and light and soft steps. snake_case stays."},
		{"whole sentences within 50 tokens", "T",
			strings.Repeat("This sentence has exactly forty chars. ", 8),
			strings.TrimSpace(strings.Repeat("This sentence has exactly forty chars. ", 5))},
		{"over-long first sentence cut by words", "T", long, ""},
		{"fenced code is not prose", "T", "```\nnot prose here.\n```\nProse here.", "Prose here."},
		{"nothing left", "Empty doc", "# Only a heading\n\n- and a list", "Adopted content 'Empty doc'; pending curation."},
		{"anti-pattern falls back", "Spec", "This document describes the spec.", "Adopted content 'Spec'; pending curation."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DeriveSummary(tt.title, tt.body)
			assert.NoError(t, forest.ValidateSummary(got))
			if tt.want == "" {
				assert.True(t, strings.HasSuffix(got, "…"), got)
				assert.LessOrEqual(t, utf8.RuneCountInString(got), 200)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
	huge := DeriveSummary(strings.Repeat("Title ", 100), "")
	assert.NoError(t, forest.ValidateSummary(huge), "a long title is shortened to fit")
}

func TestDatasetSummary(t *testing.T) {
	assert.Equal(t, "Tabular data 'Sales': table sales (1 row). Adopted from source; pending curation.",
		DatasetSummary("Sales", []string{"sales"}, map[string]int64{"sales": 1}))
	assert.Equal(t, "Tabular data 'Book': 6 tables a (2 rows), b (0 rows), c, d (5 rows), +2 more. Adopted from source; pending curation.",
		DatasetSummary("Book", []string{"a", "b", "c", "d", "e", "f"}, map[string]int64{"a": 2, "b": 0, "d": 5}))
	long := strings.Repeat("very_long_table_name_", 3)
	got := DatasetSummary("Wide", []string{long + "1", long + "2", long + "3", long + "4"}, nil)
	assert.Equal(t, "Tabular data 'Wide' with 4 table(s). Adopted from source; pending curation.", got)
}

func TestIDs(t *testing.T) {
	taken := map[string]bool{"reports/q1": true}
	isTaken := func(id string) bool { return taken[id] }
	id, err := nodeIDFor("", "Reports/Q1.md", isTaken)
	assert.NoError(t, err)
	assert.Regexp(t, `^reports/q1-[0-9a-f]{6}$`, id, "a collision appends the path's hash")
	id, _ = nodeIDFor("handbook", "Équipe/Rapport Final.docx", isTaken)
	assert.Equal(t, "handbook/equipe/rapport-final", id)
	id, _ = nodeIDFor("", "_index.md", isTaken)
	assert.Regexp(t, `^_index-[0-9a-f]{6}$`, id, "a file never takes a branch index's id")
	id, _ = nodeIDFor("", "_meta/x.md", isTaken)
	assert.Regexp(t, `^_meta-[0-9a-f]{6}/x$`, id, "a source folder never lands in _meta")

	chain := branchChain("handbook", "Équipe/Sub Dir/a.md")
	assert.Equal(t, []branchSpec{{id: "handbook/_index", name: "handbook", dest: true},
		{id: "handbook/equipe/_index", name: "Équipe"}, {id: "handbook/equipe/sub-dir/_index", name: "Sub Dir"}}, chain)
	spec := chain[2].node()
	assert.Equal(t, "Sub Dir", spec.Title)
	assert.Equal(t, "Documents adopted from source folder 'Sub Dir'.", spec.Summary)
	assert.Equal(t, "# Sub Dir\n\n> Documents adopted from source folder 'Sub Dir'.\n\n## Sub-branches\n\n## Direct bananas\n\n## Cross trails\n", spec.Body)
	assert.Equal(t, "handbook/equipe/_index", spec.Parent)
}

func TestProvenanceIsIdempotent(t *testing.T) {
	once := withProvenance("# T\n\nBody.\n", "https://example.org/a")
	assert.Equal(t, "# T\n\nBody.\n\n---\n\nSource: https://example.org/a\n", once)
	assert.Equal(t, once, withProvenance(once, "https://example.org/a"))
	assert.Contains(t, withProvenance("Source: https://example.org/ab\n", "https://example.org/a"), "\nSource: https://example.org/a\n",
		"an exact line match, not a substring")
}
