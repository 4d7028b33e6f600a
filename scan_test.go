// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/internal/window"
)

// regionNode renders a node file: the frontmatter lines given (YAML, one
// per entry) after id, then a body.
func regionNode(id string, front []string, body string) string {
	return "---\nid: " + id + "\n" + strings.Join(front, "\n") + "\n---\n" + body + "\n"
}

func regionBranch(id, title, created string) string {
	return regionNode(id, []string{"type: branch", "title: " + title, "summary: " + title + " branch.",
		"created: " + created, "updated: " + created}, "# "+title+"\n\n> "+title+" branch.")
}

func regionLeaf(id, created string, extra ...string) string {
	front := append([]string{"type: note", "title: " + id, "summary: Note " + id + ".",
		"created: " + created, "updated: " + created}, extra...)
	return regionNode(id, front, "# "+id+"\n\nBody of "+id+".")
}

// regionExtras are nodes added to the fixture for region reads: a branch
// whose "_" would be a LIKE wildcard beside one it would match, an undated
// node, a datetime, a text-compare trap, origins, payloads missing and
// remote, and a waymark.
var regionExtras = map[string]string{
	"a_b/_index":      regionBranch("a_b/_index", "A underscore B", "2026-02-01"),
	"a_b/n1":          regionLeaf("a_b/n1", "2026-02-02", "origin: file:///dump/ab/one.txt"),
	"a_b/undated":     regionNode("a_b/undated", []string{"type: note", "title: Undated", "summary: A node without dates."}, "# Undated"),
	"a_b/late":        regionLeaf("a_b/late", "2026-08-31T14:02", "origin: file:///dump/ab/sub/late.txt"),
	"a_b/new-home":    regionLeaf("a_b/new-home", "2026-02-03", "moved_from: [a_b/old-home]"),
	"axb/_index":      regionBranch("axb/_index", "A x B", "2026-02-01"),
	"axb/n2":          regionLeaf("axb/n2", "2026-02-04"),
	"axb/morning":     regionNode("axb/morning", []string{"type: note", "title: Morning", "summary: Updated on a morning.", "created: 2026-02-05", "updated: 2026-03-01T10:00"}, "# Morning"),
	"axb/lost-data":   regionLeaf("axb/lost-data", "2026-02-06", "payload: lost.db", "payload_type: sqlite"),
	"axb/remote-data": regionLeaf("axb/remote-data", "2026-02-07", "payload: https://example.org/remote.db", "payload_type: sqlite"),
}

// regionFixture builds the fixture plus extra node files and opens it; the
// catalog is built on open, so the extras are indexed with the rest.
func regionFixture(t testing.TB, extra map[string]string, opts *Options) (*Vine, string, *fixture.Manifest) {
	t.Helper()
	dir, man := testforest.Fixture(t)
	for id, text := range extra {
		p := filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	v, err := Open(context.Background(), dir, opts)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v, dir, man
}

// regionIDs lists every node id the catalog holds, sorted.
func regionIDs(t *testing.T, v *Vine) []string {
	t.Helper()
	rows, err := v.Catalog().DB().Query("SELECT id FROM nodes ORDER BY id")
	require.NoError(t, err)
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	return ids
}

// regionRecords reads every catalog record, for in-memory twins of the
// SQL predicates.
func regionRecords(t *testing.T, v *Vine) []catalog.Record {
	t.Helper()
	var out []catalog.Record
	for _, id := range regionIDs(t, v) {
		rec, ok, err := v.Catalog().Get(context.Background(), id)
		require.NoError(t, err)
		require.True(t, ok)
		out = append(out, rec)
	}
	return out
}

// regionWalk follows the cursor from the beginning and checks the C.6.2
// rules on every page: total constant, returned exact, next only when the
// page left something and then equal to the last id, the payload within
// budget.
func regionWalk(t *testing.T, v *Vine, parent string, opt ScanOptions) []string {
	t.Helper()
	items := regionWalkItems(t, v, parent, opt)
	if len(items) == 0 {
		return nil
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

// regionWalkItems is regionWalk returning the items.
func regionWalkItems(t *testing.T, v *Vine, parent string, opt ScanOptions) []ScanItem {
	t.Helper()
	ctx := context.Background()
	after := ""
	var items []ScanItem
	var ids []string
	total := -1
	for pages := 0; ; pages++ {
		require.Less(t, pages, 500, "the walk must end")
		opt.After = &after
		res, err := v.Scan(ctx, parent, opt)
		require.NoError(t, err)
		if total < 0 {
			total = res.Total
		}
		require.Equal(t, total, res.Total, "total is constant along a chain")
		require.Equal(t, len(res.Nodes), res.Returned)
		require.LessOrEqual(t, budget.EstimatePayloadTokens(res), scanBudget)
		for _, n := range res.Nodes {
			ids = append(ids, n.ID)
		}
		items = append(items, res.Nodes...)
		if res.Next == "" {
			require.False(t, res.Truncated, "a final page is not truncated")
			break
		}
		require.True(t, res.Truncated)
		require.NotEmpty(t, res.Nodes)
		require.Equal(t, res.Nodes[len(res.Nodes)-1].ID, res.Next)
		after = res.Next
	}
	require.Len(t, ids, total, "the walk returns exactly total nodes")
	require.True(t, slices.IsSorted(ids), "id order")
	require.Len(t, slices.Compact(slices.Clone(ids)), len(ids), "no duplicates")
	return items
}

func regionCall(t *testing.T, v *Vine, name, args string) ([]byte, error) {
	t.Helper()
	res, err := v.Call(context.Background(), name, []byte(args))
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(res)
	require.NoError(t, err)
	return out, nil
}

func TestScanListsChildrenWithDefaultFields(t *testing.T) {
	v, _, man := regionFixture(t, nil, nil)
	raw, err := regionCall(t, v, "scan", `{"parent_id": "_index"}`)
	require.NoError(t, err)

	var want []string
	for _, id := range man.Nodes {
		if forest.ParentIndex(id) == forest.RootIndexID {
			want = append(want, id)
		}
	}
	var res struct {
		Nodes    []json.RawMessage `json:"nodes"`
		Total    int               `json:"total"`
		Returned int               `json:"returned"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	assert.Equal(t, []string{"nodes", "truncated", "total", "returned"}, jsonKeys(t, raw))
	assert.Equal(t, len(want), res.Total)
	assert.Equal(t, len(want), res.Returned)
	var got []string
	for _, item := range res.Nodes {
		assert.Equal(t, []string{"id", "type", "summary", "body_tokens"}, jsonKeys(t, item))
		var it struct{ ID string }
		require.NoError(t, json.Unmarshal(item, &it))
		got = append(got, it.ID)
	}
	assert.Equal(t, want, got, "all cold: heat ties break by id")
}

func TestScanScopes(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	all := regionIDs(t, v)
	under := func(prefix, except string) []string {
		var out []string
		for _, id := range all {
			if strings.HasPrefix(id, prefix) && id != except {
				out = append(out, id)
			}
		}
		return out
	}
	children := func(parent string) []string {
		var out []string
		for _, id := range all {
			if forest.ParentIndex(id) == parent && id != parent {
				out = append(out, id)
			}
		}
		return out
	}
	tests := []struct {
		name      string
		parent    string
		recursive bool
		want      []string
	}{
		{"root recursive is every node but _index", "_index", true, under("", "_index")},
		{"branch recursive", "projects/_index", true, under("projects/", "projects/_index")},
		{"underscore is literal", "a_b/_index", true, under("a_b/", "a_b/_index")},
		{"children", "projects/lighthouse/_index", false, children("projects/lighthouse/_index")},
		{"root children", "_index", false, children("_index")},
		{"leaf has no children", "people/ana-ribeiro", true, nil},
		{"leaf has no direct children", "people/ana-ribeiro", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := regionWalk(t, v, tt.parent, ScanOptions{Recursive: tt.recursive, Limit: 9})
			assert.Equal(t, tt.want, got)
		})
	}
	got := regionWalk(t, v, "_index", ScanOptions{Recursive: true})
	assert.Contains(t, got, forest.SchemaID, "a recursive root scan includes _meta/schema")
	assert.NotContains(t, regionWalk(t, v, "a_b/_index", ScanOptions{Recursive: true}), "axb/n2",
		"LIKE would have read a_b/ as a?b/")
}

func TestScanRefusesUnknownParents(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	tests := []struct {
		parent string
		code   envelope.Code
	}{
		{"nope/_index", envelope.NotFound},
		{"projects", envelope.NotFound}, // a bare branch name is not an id
		{"../outside", envelope.NotFound},
		{"a_b/old-home", envelope.Moved},
	}
	for _, tt := range tests {
		_, err := v.Scan(context.Background(), tt.parent, ScanOptions{})
		require.Error(t, err, tt.parent)
		assert.Equal(t, tt.code, envelope.CodeOf(err), tt.parent)
	}
	_, err := v.Scan(context.Background(), "a_b/old-home", ScanOptions{})
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	to, _ := e.Get("moved_to")
	assert.Equal(t, "a_b/new-home", to)
}

func TestScanFields(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	ctx := context.Background()

	every := slices.DeleteFunc(slices.Clone(scanFieldSet), func(f string) bool { return f == "id" })
	slices.Reverse(every) // emission follows the request, not the set
	byID := map[string]json.RawMessage{}
	for _, n := range regionWalkItems(t, v, "_index", ScanOptions{Recursive: true, Fields: every}) {
		raw, err := json.Marshal(n)
		require.NoError(t, err)
		byID[n.ID] = raw
	}

	schema := byID[forest.SchemaID]
	require.NotNil(t, schema)
	keys := jsonKeys(t, schema)
	assert.Equal(t, "id", keys[0])
	assert.Equal(t, "system", keys[len(keys)-1])
	assert.NotContains(t, keys, "coverage", "no coverage line: omitted, never \"\"")
	assert.Equal(t, append([]string{"id"}, slices.DeleteFunc(slices.Clone(every), func(f string) bool { return f == "coverage" })...),
		keys[:len(keys)-1])

	var item map[string]any
	require.NoError(t, json.Unmarshal(byID["concepts/_index"], &item))
	assert.Equal(t, "branch", item["kind"])
	assert.Equal(t, map[string]any{"notes": float64(12), "branches": float64(0)}, item["coverage"])
	assert.Equal(t, []any{"_index"}, item["trail"])
	assert.Equal(t, "_index", item["parent"])
	assert.Nil(t, item["origin"], "absent optional values are null")
	assert.NotContains(t, item, "system")

	require.NoError(t, json.Unmarshal(byID["concepts/tide"], &item))
	assert.Equal(t, "note", item["kind"])
	assert.Equal(t, "pt-BR", item["lang"])
	assert.Equal(t, []any{"concept", "maré"}, item["tags"])
	assert.Equal(t, float64(0), item["heat"])
	assert.IsType(t, []any{}, item["outline"])

	t.Run("request order, id first, duplicates once", func(t *testing.T) {
		res, err := v.Scan(ctx, "concepts/_index", ScanOptions{Fields: []string{"summary", "id", "type", "summary"}})
		require.NoError(t, err)
		raw, _ := json.Marshal(res.Nodes[0])
		assert.Equal(t, []string{"id", "summary", "type"}, jsonKeys(t, raw))
	})
	t.Run("empty list is the default", func(t *testing.T) {
		res, err := v.Scan(ctx, "concepts/_index", ScanOptions{Fields: []string{}})
		require.NoError(t, err)
		raw, _ := json.Marshal(res.Nodes[0])
		assert.Equal(t, []string{"id", "type", "summary", "body_tokens"}, jsonKeys(t, raw))
	})
	for _, bad := range []string{"payload", "payload_hash", "stale", "degree", "Title"} {
		_, err := regionCall(t, v, "scan", fmt.Sprintf(`{"parent_id": "_index", "fields": ["id", %q]}`, bad))
		require.Error(t, err, bad)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
		assert.Contains(t, err.Error(), "'"+bad+"'", "names the field")
		assert.Contains(t, err.Error(), strings.Join(scanFieldSet, ", "), "names the set")
	}
}

func TestScanNeverEmitsTheLegacyKindWord(t *testing.T) {
	v, _, _ := regionFixture(t, nil, nil)
	ctx := context.Background()
	// An older writer's spelling, as a reference catalog may hold it.
	require.NoError(t, v.Catalog().Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE nodes SET kind = 'leaf' WHERE kind = 'note'")
		return err
	}))
	res, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Fields: []string{"kind"}, Filter: ScanFilter{"kind": "note"}})
	require.NoError(t, err)
	require.NotZero(t, res.Total, "the filter matches the wire spelling")
	raw, _ := json.Marshal(res)
	assert.NotContains(t, string(raw), "leaf")
	for _, n := range res.Nodes {
		assert.Equal(t, "note", n.Kind)
	}
}

func TestScanFilters(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	recs := regionRecords(t, v)
	var someOrigin string
	var someTokens int
	for _, r := range recs {
		if r.Origin != "" && someOrigin == "" && strings.HasPrefix(r.ID, "library/") {
			someOrigin = r.Origin
		}
		if r.ID == "concepts/tide" {
			someTokens = r.BodyTokens
		}
	}
	require.NotEmpty(t, someOrigin)
	has := func(list []string, want ...string) bool {
		return slices.ContainsFunc(list, func(s string) bool { return slices.Contains(want, s) })
	}
	tests := []struct {
		name   string
		filter string
		want   func(r catalog.Record) bool
	}{
		{"type", `{"type": "concept"}`, func(r catalog.Record) bool { return r.Type == "concept" }},
		{"kind note", `{"kind": "note"}`, func(r catalog.Record) bool { return r.Kind == "note" }},
		{"kind branch", `{"kind": "branch"}`, func(r catalog.Record) bool { return r.Kind == "branch" }},
		{"source", `{"source": "agent"}`, func(r catalog.Record) bool { return r.Source == "agent" }},
		{"entity_kind", `{"entity_kind": "person"}`, func(r catalog.Record) bool { return r.EntityKind == "person" }},
		{"payload_type", `{"payload_type": "image"}`, func(r catalog.Record) bool { return r.PayloadType == "image" }},
		{"parent", `{"parent": "projects/_index"}`, func(r catalog.Record) bool { return r.Parent == "projects/_index" }},
		{"tags_any", `{"tags_any": ["person", "maré"]}`, func(r catalog.Record) bool { return has(r.Tags, "person", "maré") }},
		{"tags_any empty", `{"tags_any": []}`, func(catalog.Record) bool { return false }},
		{"tags as a list", `{"tags": ["concept", "maré"]}`, func(r catalog.Record) bool { return slices.Equal(r.Tags, []string{"concept", "maré"}) }},
		{"updated_after", `{"updated_after": "2026-06-01"}`, func(r catalog.Record) bool { return r.Updated != "" && r.Updated >= "2026-06-01" }},
		{"updated_before is a text compare", `{"updated_before": "2026-03-01"}`, func(r catalog.Record) bool { return r.Updated != "" && r.Updated <= "2026-03-01" }},
		{"created_after", `{"created_after": "2026-10-01"}`, func(r catalog.Record) bool { return r.Created != "" && r.Created >= "2026-10-01" }},
		{"min_confidence", `{"min_confidence": 0.9}`, func(r catalog.Record) bool { return r.Confidence >= 0.9 }},
		{"confidence", `{"confidence": 0.8}`, func(r catalog.Record) bool { return r.Confidence == 0.8 }},
		{"body_tokens", fmt.Sprintf(`{"body_tokens": %d}`, someTokens), func(r catalog.Record) bool { return r.BodyTokens == someTokens }},
		{"origin", fmt.Sprintf(`{"origin": %q}`, someOrigin), func(r catalog.Record) bool { return r.Origin == someOrigin }},
		{"origin_prefix", `{"origin_prefix": "file:///archive/library/"}`, func(r catalog.Record) bool { return strings.HasPrefix(r.Origin, "file:///archive/library/") }},
		{"origin_prefix with _", `{"origin_prefix": "file:///dump/a_"}`, func(r catalog.Record) bool { return strings.HasPrefix(r.Origin, "file:///dump/a_") }},
		{"lang is exact", `{"lang": "pt"}`, func(catalog.Record) bool { return false }},
		{"lang", `{"lang": "pt-BR"}`, func(r catalog.Record) bool { return r.Lang == "pt-BR" }},
		{"id", `{"id": "concepts/tide"}`, func(r catalog.Record) bool { return r.ID == "concepts/tide" }},
		{"null means absent", `{"source": null}`, func(catalog.Record) bool { return true }},
		{"keys AND", `{"type": "note", "source": "agent", "created_after": "2026-01-01"}`, func(r catalog.Record) bool {
			return r.Type == "note" && r.Source == "agent" && r.Created >= "2026-01-01"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, r := range recs {
				if r.ID != forest.RootIndexID && tt.want(r) {
					want = append(want, r.ID)
				}
			}
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(tt.filter), &raw))
			f, err := decodeScanFilter(raw)
			require.NoError(t, err)
			got := regionWalk(t, v, "_index", ScanOptions{Recursive: true, Filter: f, Fields: []string{"id"}})
			assert.Equal(t, want, got)
		})
	}
	t.Run("the text compare excludes a datetime on the bound day", func(t *testing.T) {
		res, err := v.Scan(context.Background(), "axb/_index", ScanOptions{Filter: ScanFilter{"updated_before": "2026-03-01"}})
		require.NoError(t, err)
		assert.NotContains(t, res.nodeIDs(), "axb/morning")
	})
}

func TestScanFilterRefusals(t *testing.T) {
	v, _, _ := regionFixture(t, nil, nil)
	tests := []struct {
		filter string
		says   []string
	}{
		{`{"bogus": 1}`, []string{"unknown scan filter: bogus"}},
		{`{"payload": "x.db"}`, []string{"unknown scan filter: payload"}},
		{`{"heat": 1}`, []string{"unknown scan filter: heat"}},
		{`{"tags_any": "tide"}`, []string{"tags_any", "list of strings", "string"}},
		{`{"tags_any": [1]}`, []string{"tags_any", "list of strings"}},
		{`{"type": 3}`, []string{"'type'", "string", "integer"}},
		{`{"body_tokens": 3.5}`, []string{"body_tokens", "integer", "number"}},
		{`{"min_confidence": "high"}`, []string{"min_confidence", "number", "string"}},
		{`{"kind": true}`, []string{"kind", "boolean"}},
		{`{"origin_prefix": ["a"]}`, []string{"origin_prefix", "list"}},
	}
	for _, tt := range tests {
		_, err := regionCall(t, v, "scan", `{"parent_id": "_index", "filter": `+tt.filter+`}`)
		require.Error(t, err, tt.filter)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err), tt.filter)
		for _, s := range tt.says {
			assert.Contains(t, err.Error(), s, tt.filter)
		}
	}
	_, err := regionCall(t, v, "scan", `{"parent_id": "_index", "filter": ["type"]}`)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err), "filter is an object")
}

func TestScanCursorWalk(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	all := regionIDs(t, v)
	want := slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == forest.RootIndexID })
	for _, limit := range []int{1, 7, 50} {
		got := regionWalk(t, v, "_index", ScanOptions{Recursive: true, Limit: limit})
		assert.Equal(t, want, got, "limit %d", limit)
	}
	// Pages the budget cuts before the limit still chain completely.
	heavy := []string{"title", "summary", "tags", "aliases", "trail", "outline"}
	assert.Equal(t, want, regionWalk(t, v, "_index", ScanOptions{Recursive: true, Fields: heavy}))

	ctx := context.Background()
	t.Run("a page that holds everything has no next", func(t *testing.T) {
		res, err := v.Scan(ctx, "projects/lighthouse/_index", ScanOptions{After: new(string)})
		require.NoError(t, err)
		assert.Equal(t, res.Total, res.Returned)
		assert.Empty(t, res.Next)
		assert.False(t, res.Truncated)
	})
	t.Run("after the last id: empty page, same total", func(t *testing.T) {
		last := want[len(want)-1]
		res, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, After: &last})
		require.NoError(t, err)
		assert.Empty(t, res.Nodes)
		assert.Equal(t, len(want), res.Total)
		assert.Zero(t, res.Returned)
		assert.Empty(t, res.Next)
	})
	t.Run("next is absent outside cursor mode", func(t *testing.T) {
		res, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Limit: 3})
		require.NoError(t, err)
		assert.True(t, res.Truncated)
		assert.Empty(t, res.Next)
		assert.Equal(t, 3, res.Returned)
		assert.Equal(t, len(want), res.Total)
	})
}

func TestScanBudget(t *testing.T) {
	var outline strings.Builder
	for i := range 400 {
		fmt.Fprintf(&outline, "\n\n## Section number %d of a very long outline\n\ntext", i)
	}
	extra := map[string]string{
		"a_b/_index": regionExtras["a_b/_index"],
		"a_b/aa":     regionLeaf("a_b/aa", "2026-01-01"),
		"a_b/giant":  regionNode("a_b/giant", []string{"type: note", "title: Giant", "summary: A node with a huge outline.", "created: 2026-01-01", "updated: 2026-01-01"}, "# Giant"+outline.String()),
		"a_b/zz":     regionLeaf("a_b/zz", "2026-01-01"),
	}
	v, _, _ := regionFixture(t, extra, nil)
	ctx := context.Background()

	res, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true})
	require.NoError(t, err)
	assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), scanBudget)
	assert.Less(t, res.Returned, 50, "the 800 tokens cut before the 50 items")
	assert.True(t, res.Truncated)

	res, err = v.Scan(ctx, "_index", ScanOptions{Recursive: true, Fields: []string{"id"}, Limit: 500})
	require.NoError(t, err)
	assert.Equal(t, scanMaxItems, res.Returned, "50 items cut first when they are small")
	assert.True(t, res.Truncated)

	t.Run("a node too large alone is served clipped and the walk goes on", func(t *testing.T) {
		got := regionWalk(t, v, "a_b/_index", ScanOptions{Recursive: true, Fields: []string{"outline"}})
		assert.Equal(t, []string{"a_b/aa", "a_b/giant", "a_b/zz"}, got)
		after := "a_b/aa"
		res, err := v.Scan(ctx, "a_b/_index", ScanOptions{Recursive: true, Fields: []string{"outline"}, After: &after})
		require.NoError(t, err)
		require.Len(t, res.Nodes, 1)
		assert.Equal(t, "a_b/giant", res.Nodes[0].ID)
		assert.NotEmpty(t, res.Nodes[0].Outline)
		assert.Less(t, len(res.Nodes[0].Outline), 400)
		assert.True(t, res.Truncated)
		assert.Equal(t, "a_b/giant", res.Next)
		assert.LessOrEqual(t, budget.EstimatePayloadTokens(res), scanBudget)
	})
}

func TestScanLimit(t *testing.T) {
	v, _, _ := regionFixture(t, nil, nil)
	tests := []struct {
		args string
		want int
	}{
		{`{"parent_id": "_index", "recursive": true, "fields": ["id"], "limit": 0}`, 1},
		{`{"parent_id": "_index", "recursive": true, "fields": ["id"], "limit": -4}`, 1},
		{`{"parent_id": "_index", "recursive": true, "fields": ["id"], "limit": 3}`, 3},
		{`{"parent_id": "_index", "recursive": true, "fields": ["id"], "limit": 500}`, 50},
		{`{"parent_id": "_index", "recursive": true, "fields": ["id"]}`, 50},
	}
	for _, tt := range tests {
		raw, err := regionCall(t, v, "scan", tt.args)
		require.NoError(t, err)
		var res struct{ Returned int }
		require.NoError(t, json.Unmarshal(raw, &res))
		assert.Equal(t, tt.want, res.Returned, tt.args)
	}
	_, err := regionCall(t, v, "scan", `{"parent_id": "_index", "limit": "3"}`)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "limit")
}

// regionHeat is a HeatSource that counts its batched reads.
type regionHeat struct {
	heat  map[string]float64
	calls atomic.Int32
	asked atomic.Int32
}

func (h *regionHeat) Heat(_ context.Context, ids []string) (map[string]float64, error) {
	h.calls.Add(1)
	h.asked.Add(int32(len(ids)))
	out := map[string]float64{}
	for _, id := range ids {
		if x, ok := h.heat[id]; ok {
			out[id] = x
		}
	}
	return out, nil
}

func TestScanOrdersByHeatInOneBatch(t *testing.T) {
	hs := &regionHeat{heat: map[string]float64{
		"people/tomas-feliz": 0.9, "concepts/tide": 0.123456, "people/ana-ribeiro": 0.123456, "finance/_index": 0.5,
	}}
	v, _, _ := regionFixture(t, nil, &Options{Heat: hs})
	ctx := context.Background()

	res, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Limit: 6, Fields: []string{"heat"}})
	require.NoError(t, err)
	assert.Equal(t, int32(1), hs.calls.Load(), "one batched heat read for the whole listing")
	assert.Equal(t, int32(res.Total), hs.asked.Load(), "ranked before the cut: every candidate")
	assert.Equal(t, []string{"people/tomas-feliz", "finance/_index", "concepts/tide", "people/ana-ribeiro",
		"_meta/schema", "concepts/_index"}, res.nodeIDs(), "heat desc, then id asc")
	assert.Equal(t, 0.1235, res.Nodes[2].Heat, "four decimals")

	hs.calls.Store(0)
	_, err = v.Scan(ctx, "_index", ScanOptions{Recursive: true, After: new(string)})
	require.NoError(t, err)
	assert.Zero(t, hs.calls.Load(), "id order needs no heat unless heat is a field")
	res, err = v.Scan(ctx, "_index", ScanOptions{Recursive: true, After: new(string), Fields: []string{"heat"}, Limit: 50})
	require.NoError(t, err)
	assert.Equal(t, int32(1), hs.calls.Load())
	i := slices.Index(res.nodeIDs(), "finance/_index")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, 0.5, res.Nodes[i].Heat)
}

func TestScanRankingParameters(t *testing.T) {
	v, _, _ := regionFixture(t, nil, nil)
	plain, err := regionCall(t, v, "scan", `{"parent_id": "_index", "recursive": true}`)
	require.NoError(t, err)
	for _, extra := range []string{`"toward": "storm safety"`, `"gauntlet": true`, `"gauntlet": false`} {
		got, err := regionCall(t, v, "scan", `{"parent_id": "_index", "recursive": true, `+extra+`}`)
		require.NoError(t, err)
		assert.Equal(t, string(plain), string(got), "without a dense layer %s changes nothing", extra)
	}
	for _, extra := range []string{`"toward": "storm safety"`, `"gauntlet": true`} {
		_, err := regionCall(t, v, "scan", `{"parent_id": "_index", "after": "", `+extra+`}`)
		require.Error(t, err, extra)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
		assert.Contains(t, err.Error(), "after")
	}
	_, err = regionCall(t, v, "scan", `{"parent_id": "_index", "after": "", "gauntlet": false}`)
	assert.NoError(t, err, "opting out of ranking is compatible with a cursor")
}

func TestScanWindow(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	ctx := context.Background()
	recs := regionRecords(t, v)
	undated := 0
	for _, r := range recs {
		if r.Created == "" {
			undated++
		}
	}
	require.Equal(t, 1, undated)

	w, err := window.Parse("2026-08", "2026-08", "")
	require.NoError(t, err)
	var want []string
	for _, r := range recs {
		if r.ID != forest.RootIndexID && w.Contains(r.Created) {
			want = append(want, r.ID)
		}
	}
	require.Contains(t, want, "a_b/late", "a datetime on the last day is inside")
	got := regionWalk(t, v, "_index", ScanOptions{Recursive: true, Since: "2026-08", Until: "2026-08"})
	assert.Equal(t, want, got)

	raw, err := regionCall(t, v, "scan", `{"parent_id": "_index", "recursive": true, "since": "2026-08", "until": "2026-08", "after": ""}`)
	require.NoError(t, err)
	assert.Equal(t, []string{"nodes", "truncated", "window", "total", "returned", "undated_excluded"}, jsonKeys(t, raw))
	assert.Contains(t, string(raw), `"window":{"since":"2026-08-01","until":"2026-08-31","date_field":"created"}`)
	assert.Contains(t, string(raw), `"undated_excluded":1`)

	t.Run("the empty window explains itself", func(t *testing.T) {
		res, err := v.Scan(ctx, "_index", ScanOptions{Recursive: true, Since: "2031"})
		require.NoError(t, err)
		assert.Zero(t, res.Total)
		require.NotNil(t, res.MatchedWindow)
		assert.Zero(t, *res.MatchedWindow)
		assert.Contains(t, res.Hint, "calendar")
		res, err = v.Scan(ctx, "people/_index", ScanOptions{Since: "2026-08", Filter: ScanFilter{"type": "dataset"}})
		require.NoError(t, err)
		assert.Zero(t, res.Total)
		require.NotNil(t, res.MatchedWindow)
		assert.Positive(t, *res.MatchedWindow, "the window holds nodes: the question missed")
	})
	t.Run("absent is unchanged", func(t *testing.T) {
		raw, err := regionCall(t, v, "scan", `{"parent_id": "people/_index", "filter": {"type": "dataset"}}`)
		require.NoError(t, err)
		assert.Equal(t, `{"nodes":[],"truncated":false,"total":0,"returned":0}`, string(raw))
	})
	for _, args := range []string{`"since": "2026-13"`, `"until": "yesterday"`, `"date_field": "ingested"`, `"since": "2026-09", "until": "2026-08"`, `"since": 2026`} {
		_, err := regionCall(t, v, "scan", `{"parent_id": "_index", `+args+`}`)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err), args)
	}
}

func TestScanMarksSystemNodes(t *testing.T) {
	v, _, _ := regionFixture(t, nil, nil)
	res, err := v.Scan(context.Background(), "_index", ScanOptions{Recursive: true, Fields: []string{"id"}, After: new(string)})
	require.NoError(t, err)
	for _, n := range res.Nodes {
		assert.Equal(t, forest.IsSystem(n.ID), n.System, n.ID)
	}
	raw, _ := json.Marshal(res.Nodes[0])
	assert.Equal(t, `{"id":"_meta/schema","system":true}`, string(raw))
}

// TestRegionReadsOpenNoFile deletes every node file after indexing: the
// catalog-only reads answer exactly as before.
func TestRegionReadsOpenNoFile(t *testing.T) {
	v, dir, _ := regionFixture(t, regionExtras, nil)
	calls := [][2]string{
		{"scan", `{"parent_id": "_index", "recursive": true, "fields": ["id", "kind", "type", "title", "summary", "tags", "aliases", "created", "updated", "confidence", "source", "entity_kind", "payload_type", "parent", "trail", "coverage", "body_tokens", "outline", "heat", "origin", "lang"]}`},
		{"scan", `{"parent_id": "projects/_index", "after": "", "since": "2026"}`},
		{"calendar", `{"granularity": "week", "limit": 120}`},
		{"calendar", `{"scope": "projects"}`},
		{"coverage", `{}`},
		{"coverage", `{"scope": "library"}`},
	}
	before := make([]string, len(calls))
	for i, c := range calls {
		raw, err := regionCall(t, v, c[0], c[1])
		require.NoError(t, err)
		before[i] = string(raw)
	}
	removed := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, forest.NodeExt) {
			removed++
			return os.Remove(p)
		}
		return err
	}))
	require.Greater(t, removed, 90)
	for i, c := range calls {
		raw, err := regionCall(t, v, c[0], c[1])
		require.NoError(t, err, c[0]+" "+c[1])
		assert.Equal(t, before[i], string(raw), c[0]+" "+c[1])
	}
}

func TestScanReportsReturnedIDsToTheObserver(t *testing.T) {
	obs := &regionObserver{}
	v, _, _ := regionFixture(t, nil, &Options{Observer: obs})
	res, err := v.Call(context.Background(), "scan", []byte(`{"parent_id": "projects/_index"}`))
	require.NoError(t, err)
	require.Len(t, obs.events, 1)
	assert.Equal(t, res.(*ScanResult).nodeIDs(), obs.events[0].Returned)
	assert.Empty(t, obs.events[0].NodeID, "parent_id is not an id parameter named id")
}

type regionObserver struct{ events []Event }

func (o *regionObserver) Observe(_ context.Context, e Event) { o.events = append(o.events, e) }

func FuzzScanFilter(f *testing.F) {
	v, _, _ := regionFixture(f, regionExtras, nil)
	for _, seed := range []string{`{"type": "note"}`, `{"tags_any": ["a", "b"]}`, `{"body_tokens": 3}`,
		`{"origin_prefix": "file:///"}`, `{"min_confidence": 1e-3}`, `{"x": null}`, `{"tags": [1]}`, `{"kind": "branch", "lang": "en"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &raw) != nil {
			return
		}
		filter, err := decodeScanFilter(raw)
		if err != nil {
			require.Equal(t, envelope.Schema, envelope.CodeOf(err))
			return
		}
		res, err := v.Scan(context.Background(), "_index", ScanOptions{Recursive: true, Filter: filter, Fields: []string{"id"}})
		if err != nil {
			require.Equal(t, envelope.Schema, envelope.CodeOf(err), "a filter is refused, never a failure: %v", err)
			return
		}
		require.LessOrEqual(t, res.Returned, res.Total)
	})
}

// TestScanFittingIsExact checks the arithmetic budget cut against cutting
// by whole-payload renders, on real items of every field.
func TestScanFittingIsExact(t *testing.T) {
	v, _, _ := regionFixture(t, regionExtras, nil)
	all := regionWalkItems(t, v, "_index", ScanOptions{Recursive: true,
		Fields: []string{"title", "summary", "tags", "aliases", "trail", "outline", "coverage", "confidence", "origin", "lang"}})
	echo := WindowEcho{DateField: "created"}
	res := &ScanResult{Truncated: true, Window: &echo, Total: 1234, Returned: 50, Next: "a/rather/long/cursor/id"}
	for i := 0; i < len(all); i += 7 {
		items := all[i:min(len(all), i+50)]
		want := slices.Clone(items)
		budget.ShrinkTail(&want, scanBudget, func() any { r := *res; r.Nodes = want; return &r })
		fit, n := newScanFitter(res), 0
		for _, it := range items {
			if !fit.add(it) {
				break
			}
			n++
		}
		assert.Equal(t, len(want), n, "window at %d", i)
	}
}

func TestScanAppendStringIsJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quo"te \ back`, "tab\tnew\nline\r", "\x00\x1f\x7f", "<b>&amp;</b>",
		"maré ação 日本", "line\u2028sep\u2029", "emoji 🌊"} {
		raw := scanAppendString(nil, s)
		require.True(t, json.Valid(raw), "%q", s)
		var back string
		require.NoError(t, json.Unmarshal(raw, &back))
		assert.Equal(t, s, back)
		assert.NotContains(t, string(raw), `\u003c`, "HTML is left as the budget renders it")
	}
	raw := scanAppendString(nil, "bad \xff byte")
	assert.Equal(t, `"bad \ufffd byte"`, string(raw))
}

func FuzzScanAppendString(f *testing.F) {
	f.Add("maré \"x\" \\ \n")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		raw := scanAppendString(nil, s)
		require.True(t, json.Valid(raw))
		var back string
		require.NoError(t, json.Unmarshal(raw, &back))
		if utf8.ValidString(s) {
			require.Equal(t, s, back)
		}
	})
}
