// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
)

func TestContentPolicies(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		policy, file, wantMode string
	}{
		{"inline", "a.md", ""},
		{"cached", "a.md", "cached"},
		{"reference", "a.md", "reference"},
		{"reference", "a.json", "cached"}, // only text may be referenced
	} {
		t.Run(tt.policy+" "+tt.file, func(t *testing.T) {
			v := newForest(t)
			writeFile(t, v.Dir(), ConfigFile, []byte("content: "+tt.policy+"\n"))
			text := "# Alpha\n\nThe alpha document talks about tide tables."
			if strings.HasSuffix(tt.file, ".json") {
				text = `{"topic": "tide tables"}`
			}
			src := writeTree(t, map[string]string{tt.file: text})
			rep, err := New(v, nil).Adopt(ctx, src, "")
			require.NoError(t, err)
			require.Equal(t, []string{"a"}, rep.Planted)
			n := node(t, v, "a")
			assert.Equal(t, tt.wantMode, n.Content())
			c, err := v.Pick(ctx, "a", vine.PickOptions{})
			require.NoError(t, err)
			assert.Contains(t, c.Body, "tide tables", "pick resolves the flesh wherever it lives")
			if tt.wantMode != "" {
				assert.Equal(t, "# "+n.Title()+"\n", n.Body, "the node body is the title alone")
			}
			if tt.wantMode != "" && tt.file == "a.md" {
				assert.Contains(t, n.Summary(), "tide tables", "curation saw the full text")
			}
			if tt.wantMode == "cached" {
				assert.FileExists(t, filepath.Join(v.Dir(), "_derived", "bodies", "a.md"))
			}
			validate(t, v)

			// A refresh rebuilds a cached body and reads a reference live.
			writeFile(t, src, tt.file, []byte(strings.ReplaceAll(text, "tide tables", "moon phases")))
			rep, err = New(v, nil).Sync(ctx, SyncOptions{})
			require.NoError(t, err)
			assert.Equal(t, []string{"a"}, rep.Updated)
			c, err = v.Pick(ctx, "a", vine.PickOptions{})
			require.NoError(t, err)
			assert.Contains(t, c.Body, "moon phases")
		})
	}
}

func TestArchiveAlways(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	writeFile(t, v.Dir(), ConfigFile, []byte("archive: always\n"))
	src := writeTree(t, map[string]string{"docs/t.csv": "a,b\n1,2\n", "docs/n.md": "# N\n\nText."})
	writeFile(t, src, "docs/contract.docx", document(t))
	rep, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	assert.Empty(t, rep.Errors)
	assets, err := os.ReadDir(filepath.Join(v.Dir(), "docs", "_assets"))
	require.NoError(t, err)
	var names []string
	for _, e := range assets {
		names = append(names, e.Name())
	}
	require.Len(t, names, 2, "docx and csv archived, markdown never")

	doc := node(t, v, "docs/contract")
	assert.Equal(t, "docx", doc.PayloadType())
	assert.Regexp(t, `^_assets/[0-9a-f]{8}-contract\.docx$`, doc.Payload())
	assert.Equal(t, doc.Front.String("source_hash"), doc.PayloadHash())
	tbl := node(t, v, "docs/t")
	assert.Equal(t, "t.db", tbl.Payload(), "a tabular original is archived but not referenced")
	validate(t, v)

	// New bytes get a new archive name; the old copy goes.
	old := filepath.Join(v.Dir(), "docs", filepath.FromSlash(doc.Payload()))
	writeFile(t, src, "docs/contract.docx", append(document(t), 0))
	_, err = New(v, nil).Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	doc2 := node(t, v, "docs/contract")
	assert.NotEqual(t, doc.Payload(), doc2.Payload())
	assert.FileExists(t, filepath.Join(v.Dir(), "docs", filepath.FromSlash(doc2.Payload())))
	assert.NoFileExists(t, old)
}

func TestOriginAndAliasBackfill(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"back-end/12-queue.md": "# Queue\n\nThe queue.", "ops/3-pager.md": "# Pager\n\nPager duty."})
	g := New(v, nil)
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)

	// A hand-written origin outranks; a removed one is backfilled on the
	// fast path; hand-added aliases survive; a config edit reaches old
	// passports.
	_, err = v.Graft(ctx, "back-end/12-queue", vine.GraftPatch{SetFrontmatter: []forest.Field{
		{Key: "origin", Value: "https://tracker.example.org/12"}, {Key: "aliases", Value: []any{"Q-12"}}}})
	require.NoError(t, err)
	_, err = v.Graft(ctx, "ops/3-pager", vine.GraftPatch{SetFrontmatter: []forest.Field{{Key: "origin", Value: nil}}})
	require.NoError(t, err)
	writeFile(t, v.Dir(), ConfigFile, append(mustRead(t, filepath.Join(v.Dir(), ConfigFile)), []byte("aliases: {back-end: API}\n")...))

	rep, err := g.Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"back-end/12-queue", "ops/3-pager"}, rep.Updated)
	q := node(t, v, "back-end/12-queue")
	assert.Equal(t, "https://tracker.example.org/12", q.Origin(), "a hand-written origin survives every sync")
	assert.Equal(t, []string{"Q-12", "API-12", "back-end/12", "12"}, q.Aliases(), "union after the existing, nothing removed")
	assert.True(t, strings.HasPrefix(node(t, v, "ops/3-pager").Origin(), "file:///"), "origin set when absent")
	subjects := subjects(t, v)
	assert.Contains(t, subjects, "gardener(sync): aliases back-end/12-queue")
	assert.Contains(t, subjects, "gardener(sync): origin ops/3-pager")

	before := head(t, v)
	rep, err = g.Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	assert.Len(t, rep.Unchanged, 2, "a backfill is idempotent")
	assert.Equal(t, before, head(t, v))
}

func TestDatasetRefreshKeepsNotes(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"sales.csv": "region,units\nnorth,12\nsouth,7\n"})
	g := New(v, nil)
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	_, err = v.Graft(ctx, "sales", vine.GraftPatch{AppendSection: &vine.SectionEdit{Header: "Notes", Body: "Units are boxes of 12."}})
	require.NoError(t, err)
	oldHash := node(t, v, "sales").PayloadHash()

	writeFile(t, src, "sales.csv", []byte("region,units\nnorth,12\nsouth,7\neast,30\n"))
	rep, err := g.Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"sales"}, rep.Updated, rep.Errors)
	n := node(t, v, "sales")
	assert.NotEqual(t, oldHash, n.PayloadHash())
	assert.Contains(t, n.Body, "### sales — 3 rows")
	assert.Contains(t, n.Body, "## Notes\n\nUnits are boxes of 12.", "a human section is untouched")
	assert.Equal(t, 1, strings.Count(n.Body, "## Query manual"))
	rows, err := v.Query(ctx, "sales", "SELECT COUNT(*) FROM sales")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(3)}}, rows.Rows)
	assert.NoFileExists(t, filepath.Join(v.Dir(), "sales.db.bak"))
	assert.NoFileExists(t, filepath.Join(v.Dir(), ".sales.db.refresh.db"))
	validate(t, v)
}

func TestSQLiteAdoption(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, nil)
	writeSQLite(t, filepath.Join(src, "ledger.db"), 2)
	writeSQLite(t, filepath.Join(src, "taken", "ledger.db"), 1)
	writeSQLite(t, filepath.Join(src, "bad", "ledger.db"), 1)
	writeFile(t, v.Dir(), "taken/ledger.db", []byte("an unrelated file")) // never overwritten
	writeFile(t, src, "fake.db", []byte("not a database at all, but long enough"))
	// A hook that breaks the plant after the payload was installed.
	breaker := NamedHook{Name: "breaker", Hook: func(_ context.Context, d *Draft) error {
		if strings.HasPrefix(d.ID, "bad/") {
			d.Lang = "not a language tag"
		}
		return nil
	}}
	g := New(v, &Options{Hooks: []NamedHook{breaker}})
	rep, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"ledger"}, rep.Planted)
	require.Len(t, rep.Errors, 3, rep.Errors)
	assert.Contains(t, rep.Errors[0], "bad/ledger.db: ")
	assert.Contains(t, rep.Errors[1], "fake.db: ")
	assert.Contains(t, rep.Errors[2], "taken/ledger.db: payload already exists: ledger.db")
	assert.NoFileExists(t, filepath.Join(v.Dir(), "bad", "ledger.db"), "a failed plant removes the installed copy")
	assert.Equal(t, "an unrelated file", string(mustRead(t, filepath.Join(v.Dir(), "taken", "ledger.db"))))

	// A changed source replaces the payload whole.
	writeSQLite(t, filepath.Join(src, "ledger.db"), 5)
	rep, err = g.Sync(ctx, SyncOptions{Paths: []string{"ledger.db"}})
	require.NoError(t, err)
	require.Equal(t, []string{"ledger"}, rep.Updated, rep.Errors)
	n := node(t, v, "ledger")
	assert.Equal(t, n.Front.String("source_hash"), n.PayloadHash())
	assert.Contains(t, n.Body, "### items — 5 rows")
	validate(t, v)
}

// writeSQLite (re)creates a database with an items table of n rows and
// an empty notes table.
func writeSQLite(t testing.TB, p string, n int) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	os.Remove(p)
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i + 1), "item"}
	}
	require.NoError(t, createDB(p, rows))
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return data
}

// TestFailedRefreshPutsThePayloadBack: when the passport cannot be
// rewritten, the rebuilt payload is not left in place.
func TestFailedRefreshPutsThePayloadBack(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"sales.csv": "region,units\nnorth,12\n"})
	g := New(v, nil)
	_, err := g.Adopt(ctx, src, "")
	require.NoError(t, err)
	payload := filepath.Join(v.Dir(), "sales.db")
	before := mustRead(t, payload)

	// A hand edit the write checks refuse: the refresh cannot commit.
	p := filepath.Join(v.Dir(), "sales.md")
	text := regexp.MustCompile(`(?m)^origin: .*$`).ReplaceAllString(string(mustRead(t, p)), "origin: two words")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	writeFile(t, src, "sales.csv", []byte("region,units\nnorth,12\nsouth,9\n"))
	rep, err := g.Sync(ctx, SyncOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Errors, 1)
	assert.Contains(t, rep.Errors[0], "sales: ")
	assert.Empty(t, rep.Updated)
	assert.Equal(t, before, mustRead(t, payload), "the old payload is back")
	assert.NoFileExists(t, payload+".bak")
	assert.NoFileExists(t, filepath.Join(v.Dir(), ".sales.db.refresh.db"))
}
