// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/fixture"
)

// entryForest is the fixture forest opened writable, with helpers to add
// giant synthetic nodes before reindexing.
type entryForest struct {
	t   *testing.T
	dir string
	man *fixture.Manifest
	v   *Vine
}

// entryTemplate is the fixture forest built (and indexed) once per test
// process; each test works on its own copy, which is far cheaper than a
// fresh build with its git commit.
var entryTemplate struct {
	once sync.Once
	dir  string
	man  *fixture.Manifest
	err  error
}

func newEntryForest(t *testing.T, opts *Options) *entryForest {
	t.Helper()
	entryTemplate.once.Do(func() {
		dir := filepath.Join(sharedTempDir(t), "entry-template", "mare-alta")
		var err error
		if entryTemplate.man, err = fixture.Build(context.Background(), dir); err != nil {
			entryTemplate.err = err
			return
		}
		v, err := Open(context.Background(), dir, nil)
		if err == nil {
			err = v.Close()
		}
		entryTemplate.dir, entryTemplate.err = dir, err
	})
	require.NoError(t, entryTemplate.err, "build the fixture template")
	dir := filepath.Join(t.TempDir(), "mare-alta")
	require.NoError(t, os.CopyFS(dir, os.DirFS(entryTemplate.dir)))
	if err := os.Remove(filepath.Join(dir, forest.LockFile)); !errors.Is(err, os.ErrNotExist) {
		require.NoError(t, err, "a lock card left by the template would name this process")
	}
	return &entryForest{t: t, dir: dir, man: entryTemplate.man, v: openT(t, dir, opts)}
}

// write puts a node file (frontmatter YAML without delimiters, then body)
// straight on disk, bypassing every write check, as an operator could.
func (f *entryForest) write(id, front, body string) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(id)+".md")
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	data := "---\nid: " + id + "\n" + strings.TrimRight(front, "\n") + "\n---\n\n" + body
	require.NoError(f.t, os.WriteFile(p, []byte(data), 0o644))
}

func (f *entryForest) reindex() {
	f.t.Helper()
	_, err := f.v.Reindex(context.Background())
	require.NoError(f.t, err)
}

// call runs a primitive through the wire path and returns its JSON.
func (f *entryForest) call(name string, args any) (string, error) {
	f.t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(f.t, err)
	res, err := f.v.Call(context.Background(), name, raw)
	if err != nil {
		return "", err
	}
	// Transports encode without HTML escaping, as the model reads it.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(f.t, enc.Encode(res))
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// keysOf lists the top-level keys of a JSON object in wire order.
func entryKeys(t *testing.T, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// entryHeat is a HeatSource with fixed values.
type entryHeat map[string]float64

func (h entryHeat) Heat(_ context.Context, ids []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, id := range ids {
		if x, ok := h[id]; ok {
			out[id] = x
		}
	}
	return out, nil
}

func entryWords(n int, word string) string {
	return strings.TrimSpace(strings.Repeat(word+" ", n))
}

func TestLookPassportShapeAndOrder(t *testing.T) {
	f := newEntryForest(t, nil)
	tests := []struct {
		id   string
		keys []string
	}{
		{"organizations/mare-alta", []string{"id", "type", "title", "summary", "tags", "confidence", "created", "updated",
			"source", "outline", "edges_out", "edges_in", "stats"}},
		{"products/tidewatch-buoy", []string{"id", "type", "title", "summary", "tags", "aliases", "confidence", "created",
			"updated", "source", "outline", "edges_out", "edges_in", "stats"}},
		{"library/safety-manual", []string{"id", "type", "title", "summary", "tags", "confidence", "created", "updated",
			"source", "origin", "outline", "edges_out", "edges_in", "stats"}},
		{"concepts/tide", []string{"id", "type", "title", "summary", "tags", "aliases", "confidence", "created", "updated",
			"source", "lang", "outline", "edges_out", "edges_in", "stats"}},
		{"projects/_index", []string{"id", "type", "title", "summary", "tags", "confidence", "created", "updated",
			"source", "children", "coverage", "edges_out", "edges_in", "stats"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			out, err := f.call("look", map[string]any{"id": tt.id})
			require.NoError(t, err)
			assert.Equal(t, tt.keys, entryKeys(t, out))
			assert.LessOrEqual(t, budget.EstimateTokens(budget.Render(json.RawMessage(out))), BudgetLook)
		})
	}

	d, err := f.v.Look(context.Background(), "products/tidewatch-buoy", LookOptions{})
	require.NoError(t, err)
	rec, _, _ := f.v.Catalog().Get(context.Background(), "products/tidewatch-buoy")
	assert.Equal(t, rec.BodyTokens, d.Stats.BodyTokens, "stats.body_tokens is the catalog value locate shows")
	assert.Equal(t, []string{"TW-2"}, d.Aliases)
	assert.Equal(t, "agent", d.Source)
	assert.Equal(t, []DigestEdgeOut{{Rel: "part-of", Target: "organizations/mare-alta",
		TargetSummary: "Fishing and small-cargo cooperative founded 2011 in Itapuã, 64 members, 18 boats."}}, d.EdgesOut)
	assert.Len(t, d.Created, 10)
	byValue, err := json.Marshal(*d)
	require.NoError(t, err)
	byPointer, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Equal(t, string(byPointer), string(byValue))
}

func TestLookSourceNullAndDayPrecision(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/plain", "type: note\ntitle: Plain\nsummary: A note without provenance.\ncreated: 2026-03-02T10:11:12\n", "# Plain\n")
	f.reindex()
	out, err := f.call("look", map[string]any{"id": "notes/plain"})
	require.NoError(t, err)
	assert.Contains(t, out, `"source":null`)
	assert.Contains(t, out, `"created":"2026-03-02"`)
	assert.Contains(t, out, `"updated":""`)
	assert.Contains(t, out, `"tags":[]`)
}

func TestLookEdgesInverseHeatOrderAndCap(t *testing.T) {
	heat := entryHeat{"operations/waste-handling": 0.9, "products/coldbox-c3": 0.5, "organizations/mare-alta": 0.123456}
	f := newEntryForest(t, &Options{Heat: heat})
	d, err := f.v.Look(context.Background(), "organizations/mare-alta", LookOptions{})
	require.NoError(t, err)
	in, err := f.v.Catalog().InEdges(context.Background(), "organizations/mare-alta")
	require.NoError(t, err)
	require.Greater(t, len(in), MaxEdgesShown, "the fixture's hub has more in-edges than the cap")
	assert.Len(t, d.EdgesIn, MaxEdgesShown)
	assert.Equal(t, len(in), d.Stats.Degree, "degree counts every edge before the cap")
	assert.Equal(t, "operations/waste-handling", d.EdgesIn[0].Source, "hottest first")
	assert.Equal(t, "products/coldbox-c3", d.EdgesIn[1].Source)
	assert.Equal(t, "contains", d.EdgesIn[1].Rel, "part-of is shown as its inverse")
	assert.Equal(t, "related-to", d.EdgesIn[0].Rel, "a symmetric rel is unchanged")
	assert.Equal(t, 0.1235, d.Stats.Heat)
	assert.False(t, d.Has("truncated"), "the cap is not a budget cut")

	author, err := f.v.Look(context.Background(), "people/lucia-andrade", LookOptions{Fields: []string{"edges_in"}})
	require.NoError(t, err)
	assert.Contains(t, author.EdgesIn, DigestEdgeIn{Rel: "author-of", Source: "finance/ledger-2026"})

	sc, err := f.v.Look(context.Background(), "concepts/beaufort-scale", LookOptions{Fields: []string{"edges_in"}})
	require.NoError(t, err)
	assert.Contains(t, sc.EdgesIn, DigestEdgeIn{Rel: "discovered-shortcut", Source: "operations/departure-checklist"},
		"a rel without inverse is shown as itself")
}

func TestLookDanglingTargetHasEmptySummary(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/dangling", "type: note\ntitle: Dangling\nsummary: Links to nothing.\nlinks:\n- rel: related-to\n  target: ghost/node\n", "# D\n")
	f.reindex()
	d, err := f.v.Look(context.Background(), "notes/dangling", LookOptions{})
	require.NoError(t, err)
	assert.Equal(t, []DigestEdgeOut{{Rel: "related-to", Target: "ghost/node", TargetSummary: ""}}, d.EdgesOut)
}

func TestLookBranchChildrenCrossTrailsCoverage(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("bay/_index", "type: branch\ntitle: Bay\nsummary: The bay branch.\ncoverage: 2 bananas, 1 sub-branch.\n",
		"# Bay\n\n> The bay branch.\n\n## Cross trails\n- Pricing sheets → [[finance/_index]]\n-   Radio → [[operations/radio-schedule]]\nnot a bullet\n")
	f.write("bay/zeta", "type: note\ntitle: Zeta\nsummary: "+entryWords(80, "long")+"\n", "# Z\n")
	f.write("bay/alpha", "type: note\ntitle: Alpha\nsummary: Short alpha.\n", "# A\n")
	f.write("bay/inner/_index", "type: branch\ntitle: Inner\nsummary: Inner branch.\ncoverage: nonsense\n", "# Inner\n")
	f.reindex()

	d, err := f.v.Look(context.Background(), "bay/_index", LookOptions{})
	require.NoError(t, err)
	require.Len(t, d.Children, 3)
	assert.Equal(t, []string{"bay/alpha", "bay/inner/_index", "bay/zeta"},
		[]string{d.Children[0].ID, d.Children[1].ID, d.Children[2].ID}, "id order")
	assert.LessOrEqual(t, budget.EstimateTokens(d.Children[2].Summary), NeighborSummaryMax+1)
	assert.True(t, strings.HasSuffix(d.Children[2].Summary, "…"))
	assert.Equal(t, []string{"Pricing sheets → [[finance/_index]]", "Radio → [[operations/radio-schedule]]"}, d.CrossTrails)
	assert.Equal(t, &DigestCoverage{Notes: 2, Branches: 1}, d.Coverage)
	assert.False(t, d.Has("outline"), "branches carry children, not outline")

	inner, err := f.v.Look(context.Background(), "bay/inner/_index", LookOptions{})
	require.NoError(t, err)
	assert.False(t, inner.Has("coverage"), "unparseable coverage is omitted, never prose")
	assert.False(t, inner.Has("cross_trails"), "no Cross trails section, no key")
	assert.True(t, inner.Has("children"))
	assert.Empty(t, inner.Children)
}

func TestLookFields(t *testing.T) {
	f := newEntryForest(t, nil)
	tests := []struct {
		fields []string
		keys   []string
	}{
		{[]string{"title", "edges_out", "bogus"}, []string{"id", "title", "edges_out"}},
		{[]string{"stats"}, []string{"id", "stats"}},
		{[]string{"id"}, []string{"id"}},
		{[]string{"aliases"}, []string{"id"}},
	}
	for _, tt := range tests {
		out, err := f.call("look", map[string]any{"id": "organizations/mare-alta", "fields": tt.fields})
		require.NoError(t, err)
		assert.Equal(t, tt.keys, entryKeys(t, out), "%v", tt.fields)
	}
	all, err := f.call("look", map[string]any{"id": "organizations/mare-alta", "fields": []string{}})
	require.NoError(t, err)
	plain, err := f.call("look", map[string]any{"id": "organizations/mare-alta"})
	require.NoError(t, err)
	assert.Equal(t, plain, all, "an empty fields list means everything")

	d, err := f.v.Look(context.Background(), "organizations/mare-alta", LookOptions{Fields: []string{"stats"}})
	require.NoError(t, err)
	assert.Equal(t, 22, d.Stats.Degree, "degree is exact even when no edge list is asked for")
}

func TestLookDatasetMapNotesAndPayloadMissing(t *testing.T) {
	f := newEntryForest(t, nil)
	ctx := context.Background()
	d, err := f.v.Look(ctx, f.man.Dataset, LookOptions{})
	require.NoError(t, err)
	require.NotNil(t, d.QueryManual)
	assert.Equal(t, map[string][]string{"ledger": {"day", "account", "port", "amount", "memo"}}, d.QueryManual.Tables)
	assert.Len(t, d.QueryManual.ExampleQueries, 2)
	assert.True(t, strings.HasPrefix(d.QueryManual.ExampleQueries[0], "SELECT account"))
	require.NotNil(t, d.SampleRows)
	assert.Len(t, d.SampleRows.Rows, 3)
	assert.False(t, d.Has("notes"), "no ## Notes, no key")
	assert.False(t, d.Has("payload_missing"))

	// Operator notes, far over their own 200-token budget.
	path := filepath.Join(f.dir, "finance", "ledger-2026.md")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	notes := entryWords(400, "dues")
	require.NoError(t, os.WriteFile(path, append(data, []byte("\n\n## Notes\n\n"+notes+"\n")...), 0o644))
	f.reindex()
	d, err = f.v.Look(ctx, f.man.Dataset, LookOptions{})
	require.NoError(t, err)
	assert.Equal(t, budget.TruncateText(notes, BudgetNotes), d.Notes)
	assert.True(t, d.Truncated)
	assert.Equal(t, "notes", d.TruncatedFields[0], "a clipped notes text is named")
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(d), BudgetLook)

	// The flags survive a fields filter that does not name them.
	d, err = f.v.Look(ctx, f.man.Dataset, LookOptions{Fields: []string{"notes"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "notes", "truncated", "truncated_fields"}, d.Keys())

	// Local payload gone: payload_missing, no map, notes unaffected.
	require.NoError(t, os.Remove(filepath.Join(f.dir, "finance", "ledger-2026.db")))
	d, err = f.v.Look(ctx, f.man.Dataset, LookOptions{})
	require.NoError(t, err)
	assert.True(t, d.PayloadMissing)
	assert.False(t, d.Has("query_manual"))
	assert.False(t, d.Has("sample_rows"))
	assert.True(t, d.Has("notes"))
	d, err = f.v.Look(ctx, f.man.Dataset, LookOptions{Fields: []string{"title"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "title", "payload_missing"}, d.Keys(), "payload_missing survives fields")
}

func TestLookDatasetExtrasOnlyWhenAsked(t *testing.T) {
	f := newEntryForest(t, nil)
	// A corrupt payload is logged and its map omitted: never an error that
	// would hide the rest of the digest.
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "finance", "ledger-2026.db"), []byte("not sqlite"), 0o644))
	d, err := f.v.Look(context.Background(), f.man.Dataset, LookOptions{Fields: []string{"title", "query_manual"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "title"}, d.Keys(), "an unreadable payload is omitted, not an error")
}

func TestLookMediaPayloadFacts(t *testing.T) {
	f := newEntryForest(t, nil)
	ctx := context.Background()
	d, err := f.v.Look(ctx, f.man.Media, LookOptions{})
	require.NoError(t, err)
	assert.Equal(t, "image", d.PayloadType)
	assert.Equal(t, int64(67), d.PayloadBytes)
	assert.False(t, d.Has("payload_missing"))

	f.write("media/remote", "type: media\ntitle: Remote\nsummary: A remote image.\npayload: s3://bucket/pic.png\npayload_type: image\n",
		"# Remote\n\n## Notes\n\nShot from the pier.\n")
	f.write("media/none", "type: media\ntitle: None\nsummary: A media node naming no file.\n", "# None\n")
	f.write("media/escape", "type: media\ntitle: Escape\nsummary: Escaping payload.\npayload: ../../../etc/passwd.png\npayload_type: image\n", "# E\n")
	f.reindex()
	d, err = f.v.Look(ctx, "media/remote", LookOptions{})
	require.NoError(t, err)
	assert.False(t, d.Has("payload_missing"), "a remote payload is not missing")
	assert.False(t, d.Has("payload_bytes"), "a remote payload is never stat'ed")
	assert.Equal(t, "image", d.PayloadType)
	assert.Equal(t, "Shot from the pier.", d.Notes, "media carry notes too (v0.78)")
	for _, id := range []string{"media/none", "media/escape"} {
		d, err = f.v.Look(ctx, id, LookOptions{})
		require.NoError(t, err)
		assert.True(t, d.PayloadMissing, id)
		assert.False(t, d.Has("payload_type"), id)
	}
	require.NoError(t, os.Remove(filepath.Join(f.dir, "media", "_assets", "harbour-map.png")))
	d, err = f.v.Look(ctx, f.man.Media, LookOptions{})
	require.NoError(t, err)
	assert.True(t, d.PayloadMissing)
	assert.False(t, d.Has("payload_bytes"))
}

// giantLeaf writes a leaf with n links to targets whose summaries are huge,
// and a body of sections headers.
func (f *entryForest) giantLeaf(id string, links, sections int) {
	var front strings.Builder
	front.WriteString("type: note\ntitle: Giant\nsummary: A giant node for budgets.\nlinks:\n")
	for i := range links {
		target := fmt.Sprintf("giant/target-%02d", i)
		fmt.Fprintf(&front, "- rel: related-to\n  target: %s\n", target)
		f.write(target, "type: note\ntitle: T\nsummary: "+entryWords(200, fmt.Sprintf("target%02d", i))+"\n", "# T\n")
	}
	var body strings.Builder
	body.WriteString("# Giant\n\n")
	for i := range sections {
		fmt.Fprintf(&body, "## Section %03d with a long header name\n\nText of section %d.\n\n", i, i)
	}
	f.write(id, front.String(), body.String())
}

func TestLookBudgetClipOrder(t *testing.T) {
	f := newEntryForest(t, nil)
	f.giantLeaf("giant/leaf", 60, 400)
	var links strings.Builder
	for _, target := range []string{"concepts/tide", "concepts/swell", "organizations/mare-alta"} {
		fmt.Fprintf(&links, "- rel: related-to\n  target: %s\n", target)
	}
	var body strings.Builder
	for i := range 400 {
		fmt.Fprintf(&body, "## Section %03d\n\nText.\n\n", i)
	}
	f.write("giant/sections", "type: note\ntitle: Sections\nsummary: Many sections.\nlinks:\n"+links.String(), body.String())
	f.reindex()
	ctx := context.Background()

	// The outline pays first; edges are kept whole while it can.
	d, err := f.v.Look(ctx, "giant/sections", LookOptions{})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(d), BudgetLook)
	assert.Equal(t, []string{"outline"}, d.TruncatedFields)
	assert.NotEmpty(t, d.Outline)
	assert.Less(t, len(d.Outline), 400)
	assert.Len(t, d.EdgesOut, 3)

	// 60 links to huge summaries: the outline is emptied before any edge
	// goes, summaries are clipped to 25 tokens, the degree stays true.
	out, err := f.call("look", map[string]any{"id": "giant/leaf"})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(json.RawMessage(out)), BudgetLook)
	d, err = f.v.Look(ctx, "giant/leaf", LookOptions{})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(d), BudgetLook)
	assert.True(t, d.Truncated)
	assert.Equal(t, []string{"outline", "edges_out"}, d.TruncatedFields)
	assert.Empty(t, d.Outline)
	assert.NotEmpty(t, d.EdgesOut)
	assert.Less(t, len(d.EdgesOut), MaxEdgesShown)
	for _, e := range d.EdgesOut {
		assert.LessOrEqual(t, budget.EstimateTokens(e.TargetSummary), NeighborSummaryMax+1)
		assert.True(t, strings.HasSuffix(e.TargetSummary, "…"))
	}
	assert.Equal(t, 60, d.Stats.Degree)
	assert.Empty(t, d.EdgesIn, "genuinely empty: not named")

	// Without the outline, only the edges are cut, and named.
	d, err = f.v.Look(ctx, "giant/leaf", LookOptions{Fields: []string{"edges_out", "stats"}})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(d), BudgetLook)
	assert.Equal(t, []string{"edges_out"}, d.TruncatedFields)
	d, err = f.v.Look(ctx, "giant/leaf", LookOptions{Fields: []string{"title", "stats"}})
	require.NoError(t, err)
	assert.False(t, d.Has("truncated"), "a digest within budget carries no flag")
	assert.False(t, d.Has("truncated_fields"))
}

func TestLookBudgetBranchAndResidualOverflow(t *testing.T) {
	f := newEntryForest(t, nil)
	var trails strings.Builder
	for i := range 60 {
		fmt.Fprintf(&trails, "- Trail %02d with a long description of where it leads → [[finance/_index]]\n", i)
	}
	f.write("wide/_index", "type: branch\ntitle: Wide\nsummary: A wide branch.\n", "# Wide\n\n## Cross trails\n"+trails.String())
	for i := range 60 {
		f.write(fmt.Sprintf("wide/child-%02d", i), "type: note\ntitle: C\nsummary: "+entryWords(40, "child")+
			"\nlinks:\n- rel: part-of\n  target: wide/_index\n", "# C\n")
	}
	f.write("wide/huge", "type: note\ntitle: Huge\nsummary: "+entryWords(600, "huge")+"\n", "# Huge\n\n## Only\n")
	f.reindex()

	d, err := f.v.Look(context.Background(), "wide/_index", LookOptions{})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(d), BudgetLook)
	assert.Equal(t, []string{"children", "edges_in", "cross_trails"}, d.TruncatedFields)
	assert.Empty(t, d.Children)
	assert.Empty(t, d.EdgesIn)
	assert.Equal(t, 60, d.Stats.Degree)

	// A summary alone over the budget: every list is cut and named, and the
	// digest says it is still truncated (spec 02 §10 item 20).
	d, err = f.v.Look(context.Background(), "wide/huge", LookOptions{})
	require.NoError(t, err)
	assert.Greater(t, budget.EstimatePayloadTokens(d), BudgetLook)
	assert.True(t, d.Truncated)
	assert.Equal(t, []string{"outline"}, d.TruncatedFields)
}

func TestLookSampleRowsDroppedLast(t *testing.T) {
	f := newEntryForest(t, nil)
	ctx := context.Background()
	// A dataset whose sample rows are wide: the lists go first, then the
	// rows, and the map for query stays.
	require.NoError(t, entryWideDataset(filepath.Join(f.dir, "finance", "wide.db")))
	var links strings.Builder
	for i := range 12 {
		fmt.Fprintf(&links, "- rel: related-to\n  target: people/%s\n", []string{"ana-ribeiro", "joao-pescador", "lucia-andrade",
			"marcos-teles", "renata-okafor", "tomas-feliz", "beatriz-nunes", "caio-ramos", "irene-sato",
			"pedro-albuquerque", "sofia-lemos", "vitor-campos"}[i])
	}
	f.write("finance/wide", "type: dataset\ntitle: Wide\nsummary: A wide dataset.\npayload: wide.db\npayload_type: sqlite\nlinks:\n"+links.String(),
		"# Wide\n\n## Query manual\n\n`SELECT * FROM t`\n\n## A\n\n## B\n")
	f.reindex()
	d, err := f.v.Look(ctx, "finance/wide", LookOptions{})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(d), BudgetLook)
	assert.Equal(t, []string{"outline", "edges_out", "sample_rows"}, d.TruncatedFields)
	assert.Empty(t, d.Outline)
	assert.Empty(t, d.EdgesOut)
	assert.NotNil(t, d.QueryManual)
	assert.False(t, d.Has("sample_rows"))
}

func entryWideDataset(path string) error {
	conn, err := entryOpenSQLite(path)
	if err != nil {
		return err
	}
	defer conn.Close()
	cols := make([]string, 8)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d TEXT", i)
	}
	if err := conn.Exec("CREATE TABLE t(" + strings.Join(cols, ", ") + ")"); err != nil {
		return err
	}
	cell := "'" + entryWords(60, "cell") + "'"
	vals := strings.TrimSuffix(strings.Repeat(cell+", ", 8), ", ")
	for range 3 {
		if err := conn.Exec("INSERT INTO t VALUES(" + vals + ")"); err != nil {
			return err
		}
	}
	return nil
}

func TestLookWaymarkAndAbsent(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/new-home", "type: note\ntitle: New home\nsummary: Moved here.\nmoved_from:\n- notes/old-home\n", "# New\n")
	f.reindex()
	for _, prim := range []string{"look", "pick", "move", "view"} {
		_, err := f.call(prim, map[string]any{"id": "notes/old-home"})
		require.Error(t, err, prim)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, EMoved, e.Code, prim)
		to, ok := e.Get("moved_to")
		assert.True(t, ok, prim)
		assert.Equal(t, "notes/new-home", to, prim)
	}
	_, err := f.v.Look(context.Background(), "ghost/node", LookOptions{})
	assert.Equal(t, ENotFound, CodeOf(err))
	_, err = f.v.Look(context.Background(), "../outside", LookOptions{})
	assert.Equal(t, ENotFound, CodeOf(err))
}

func TestLookSelfHealsANewFile(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/fresh", "type: note\ntitle: Fresh\nsummary: Written behind the engine's back.\n", "# Fresh\n\n## Part\n")
	d, err := f.v.Look(context.Background(), "notes/fresh", LookOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"Part"}, d.Outline)
}

func TestLookObserverSeesNodeIDs(t *testing.T) {
	obs := &entryObserver{}
	f := newEntryForest(t, &Options{Observer: obs})
	_, err := f.call("look", map[string]any{"id": []string{"organizations/mare-alta", "ghost", "concepts/tide"}})
	require.NoError(t, err)
	_, err = f.call("move", map[string]any{"id": "projects/_index", "rel": "children"})
	require.NoError(t, err)
	require.Len(t, obs.events, 2)
	assert.Equal(t, "", obs.events[0].NodeID, "a list has no single node id")
	assert.Equal(t, []string{"organizations/mare-alta", "concepts/tide"}, obs.events[0].Returned)
	assert.Equal(t, "projects/_index", obs.events[1].NodeID)
	assert.Len(t, obs.events[1].Returned, 4)
}

type entryObserver struct{ events []Event }

func (o *entryObserver) Observe(_ context.Context, e Event) { o.events = append(o.events, e) }

func FuzzSectionText(f *testing.F) {
	f.Add("# T\n\n## Notes\n\nhello\n\n## Next\n", "Notes")
	f.Add("## Notes on x\n\nno\n", "Notes")
	f.Fuzz(func(t *testing.T, body, name string) {
		got := digestSectionText(body, name)
		assert.Equal(t, strings.TrimSpace(got), got)
		if got != "" {
			assert.Contains(t, body, got)
		}
		for _, q := range exampleQueries(body) {
			assert.True(t, strings.HasPrefix(strings.ToLower(q), "select"))
		}
	})
}

func entryOpenSQLite(path string) (*sqlite3.Conn, error) { return sqlite3.Open(path) }
