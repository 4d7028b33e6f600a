// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// wrHeat is a HeatSource that records the writes' heat side effects.
type wrHeat struct {
	mu         sync.Mutex
	reinforced []string
	delta      float64
	rekeyed    [][2]string
}

func (h *wrHeat) Heat(context.Context, []string) (map[string]float64, error) {
	return map[string]float64{}, nil
}

func (h *wrHeat) Reinforce(_ context.Context, ids []string, delta float64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reinforced = append(h.reinforced, ids...)
	h.delta = delta
	return nil
}

func (h *wrHeat) Rekey(_ context.Context, oldID, newID string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rekeyed = append(h.rekeyed, [2]string{oldID, newID})
	return nil
}

func catalogInEdge(src, rel string, confidence float64) catalog.InEdge {
	return catalog.InEdge{Src: src, Rel: rel, Confidence: confidence}
}

// wrKeys lists the top-level JSON keys of v in wire order.
func wrKeys(t *testing.T, v any) []string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	members, err := orderedObject(raw)
	require.NoError(t, err)
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.key
	}
	return keys
}

// wrNode reads a node file straight from disk.
func wrNode(t *testing.T, dir, id string) *forest.Node {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt))
	require.NoError(t, err)
	n, err := forest.Parse(id, data)
	require.NoError(t, err)
	return n
}

// wrRewrite edits a node file by hand, as a person with an editor would.
func wrRewrite(t *testing.T, dir, id string, edit func(n *forest.Node)) {
	t.Helper()
	n := wrNode(t, dir, id)
	edit(n)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt), n.Bytes(), 0o644))
}

// wrRefused asserts a refusal with code and mention, and a byte-identical
// forest.
func wrRefused(t *testing.T, dir, before string, err error, code Code, mention string) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, code, CodeOf(err), err.Error())
	assert.Contains(t, err.Error(), mention)
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "a refusal leaves the forest byte-identical")
}

func TestGraftSetFrontmatterEachMutableField(t *testing.T) {
	const id = "operations/ice-supply"
	tests := []struct {
		name, set, subject string
		check              func(t *testing.T, n *forest.Node)
	}{
		{"title", `{"title": "Ice supply and booking"}`, "set title", func(t *testing.T, n *forest.Node) {
			assert.Equal(t, "Ice supply and booking", n.Title())
		}},
		{"tags", `{"tags": ["gelo", "Logística"]}`, "set tags", func(t *testing.T, n *forest.Node) {
			assert.Equal(t, []string{"gelo", "Logística"}, n.Tags(), "spelling kept")
		}},
		{"confidence", `{"confidence": 0.7}`, "set confidence", func(t *testing.T, n *forest.Node) {
			assert.InDelta(t, 0.7, n.Confidence(), 1e-9)
		}},
		{"aliases", `{"aliases": ["gelo", "flake ice"]}`, "set aliases", func(t *testing.T, n *forest.Node) {
			assert.Equal(t, []string{"gelo", "flake ice"}, n.Aliases())
		}},
		{"origin", `{"origin": "https://example.org/ice"}`, "set origin", func(t *testing.T, n *forest.Node) {
			assert.Equal(t, "https://example.org/ice", n.Origin())
		}},
		{"lang", `{"lang": "pt-BR"}`, "set lang", func(t *testing.T, n *forest.Node) {
			assert.Equal(t, "pt-BR", n.Lang())
		}},
		{"several sorted in subject", `{"title": "Ice", "aliases": ["gelo"]}`, "set aliases,title", func(t *testing.T, n *forest.Node) {
			assert.Equal(t, "Ice", n.Title())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := writableFixture(t)
			out, err := call(t, v, "graft", `{"id": "`+id+`", "patch": {"set_frontmatter": `+tt.set+`}}`)
			require.NoError(t, err)
			assert.Len(t, out["commit"], 40)
			assert.Equal(t, []any{}, out["fortified"])
			assert.Equal(t, []any{"_index", "operations/_index"}, out["trail"])
			assert.NotContains(t, out, "summary_stale")
			n := wrNode(t, dir, id)
			tt.check(t, n)
			assert.Equal(t, "2026-12-01", n.Updated(), "updated refreshed")
			assert.Equal(t, "graft("+id+"): "+tt.subject, headSubject(t, dir, "operations/ice-supply.md"))
		})
	}
}

func TestGraftNullRemovesOriginAndLang(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "graft", `{"id": "library/statutes", "patch": {"set_frontmatter": {"origin": null}}}`)
	require.NoError(t, err)
	assert.False(t, wrNode(t, dir, "library/statutes").Front.Has("origin"))

	_, err = call(t, v, "graft", `{"id": "concepts/tide", "patch": {"set_frontmatter": {"lang": null}}}`)
	require.NoError(t, err)
	assert.False(t, wrNode(t, dir, "concepts/tide").Front.Has("lang"))
	rec, ok, err := v.Catalog().Get(context.Background(), "concepts/tide")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Empty(t, rec.Lang, "the catalog follows the file")
}

func TestGraftConfidenceOneIsTheDefaultAndNotWritten(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "graft", `{"id": "finance/budget-rules", "patch": {"set_frontmatter": {"confidence": 1}}}`)
	require.NoError(t, err)
	assert.False(t, wrNode(t, dir, "finance/budget-rules").Front.Has("confidence"))
}

func TestGraftLinks(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"add_links": [
		{"rel": "related-to", "target": "products/ice-plant", "note": "the plant this page books"},
		{"rel": "discovered-shortcut", "target": "concepts/cold-chain"}]}}`)
	require.NoError(t, err)
	assert.Len(t, out["commit"], 40)
	n := wrNode(t, dir, "operations/ice-supply")
	links := n.Links()
	require.Len(t, links, 3)
	assert.Equal(t, "products/ice-plant", links[1].Target)
	assert.Equal(t, "the plant this page books", links[1].Entry.String("note"), "extras pass through")
	assert.Equal(t, []string{"rel", "target", "confidence", "discovered_by"}, links[2].Entry.Keys())
	assert.InDelta(t, 0.5, links[2].Confidence, 1e-9)
	assert.Equal(t, "agent", links[2].Entry.String("discovered_by"))
	assert.Equal(t, "graft(operations/ice-supply): +2 links", headSubject(t, dir, "operations/ice-supply.md"))
	in, err := v.Catalog().InEdges(context.Background(), "products/ice-plant")
	require.NoError(t, err)
	assert.Contains(t, in, catalogInEdge("operations/ice-supply", "related-to", 1))

	out, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"remove_links": [
		{"rel": "related-to", "target": "products/ice-plant"}, {"rel": "author", "target": "nobody/x"}]}}`)
	require.NoError(t, err)
	assert.Len(t, out["commit"], 40)
	assert.Len(t, wrNode(t, dir, "operations/ice-supply").Links(), 2)
	assert.Equal(t, "graft(operations/ice-supply): -2 links", headSubject(t, dir, "operations/ice-supply.md"))
}

func TestGraftReinforceBeforeCreate(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	heat := &wrHeat{}
	v := openT(t, dir, &Options{Now: plantClock, Heat: heat})
	before := testforest.TreeDigest(t, dir)
	out, err := call(t, v, "graft", `{"id": "operations/departure-checklist", "patch": {"add_links": [
		{"rel": "discovered-shortcut", "target": "concepts/beaufort-scale"}]}}`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": "operations/departure-checklist", "commit": nil,
		"fortified": []any{map[string]any{"rel": "discovered-shortcut", "target": "concepts/beaufort-scale"}},
		"trail":     []any{"_index", "operations/_index"}}, out)
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "fortification writes no file and no commit")
	assert.Equal(t, []string{"operations/departure-checklist", "concepts/beaufort-scale"}, heat.reinforced)
	assert.InDelta(t, 0.1, heat.delta, 1e-9)
}

func TestGraftNoOpWritesNothing(t *testing.T) {
	v, dir := writableFixture(t)
	before := testforest.TreeDigest(t, dir)
	for _, patch := range []string{
		`{"remove_links": [{"rel": "author", "target": "nobody/x"}]}`,
		`{"set_frontmatter": {"title": "Ice supply"}}`,
	} {
		out, err := call(t, v, "graft", `{"id": "operations/ice-supply", "patch": `+patch+`}`)
		require.NoError(t, err)
		assert.Nil(t, out["commit"])
		assert.Contains(t, out, "commit", "commit is null, never absent")
		assert.Equal(t, before, testforest.TreeDigest(t, dir))
	}
}

func TestGraftSections(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "graft", `{"id": "finance/ledger-2026", "patch": {"append_section": {"header": "## Notes", "body": "  Amounts before March are provisional.  "}}}`)
	require.NoError(t, err)
	assert.Equal(t, true, out["summary_stale"], "a body edit without summary flags the summary")
	n := wrNode(t, dir, "finance/ledger-2026")
	assert.True(t, strings.HasSuffix(n.Body, "GROUP BY m`\n\n## Notes\n\nAmounts before March are provisional.\n"), n.Body)
	assert.Equal(t, "graft(finance/ledger-2026): append 'Notes'", headSubject(t, dir, "finance/ledger-2026.md"))

	_, err = call(t, v, "graft", `{"id": "finance/ledger-2026", "patch": {"replace_section": {"header": "notes", "body": "Audited in December."}}}`)
	require.NoError(t, err)
	n = wrNode(t, dir, "finance/ledger-2026")
	assert.True(t, strings.HasSuffix(n.Body, "GROUP BY m`\n\n## Notes\n\nAudited in December.\n"), n.Body)
	assert.NotContains(t, n.Body, "provisional")
	assert.Equal(t, "graft(finance/ledger-2026): replace 'notes'", headSubject(t, dir, "finance/ledger-2026.md"))

	_, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"replace_section": {"header": "Overview", "body": "Short overview."}}}`)
	require.NoError(t, err)
	n = wrNode(t, dir, "operations/ice-supply")
	assert.Contains(t, n.Body, "## Overview\n\nShort overview.\n\n## Details\n\n", "the next section is untouched")
}

func TestGraftReplaceBody(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"replace_body": "# Ice supply\n\nBook by 18:00."}}`)
	require.NoError(t, err)
	assert.Equal(t, true, out["summary_stale"])
	assert.Equal(t, "# Ice supply\n\nBook by 18:00.\n", wrNode(t, dir, "operations/ice-supply").Body)
	assert.Equal(t, "graft(operations/ice-supply): replace body (6 words)", headSubject(t, dir, "operations/ice-supply.md"))

	out, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"replace_body": "", "set_frontmatter": {"summary": "Ice supply page, emptied: bookings moved to the radio schedule."}}}`)
	require.NoError(t, err)
	assert.NotContains(t, out, "summary_stale", "setting summary with the body clears the flag")
	assert.Equal(t, "", wrNode(t, dir, "operations/ice-supply").Body)
}

func TestGraftSummaryPropagatesVerbatim(t *testing.T) {
	v, dir := writableFixture(t)
	const summary = "Maré Alta: 64 members, 18 boats, founded 2011 in Itapuã; fishing and small cargo."
	_, err := call(t, v, "graft", `{"id": "organizations/mare-alta", "patch": {"set_frontmatter": {"summary": "`+summary+`"}}}`)
	require.NoError(t, err)
	parent := wrNode(t, dir, "organizations/_index")
	assert.Contains(t, parent.Body, "\n- [[organizations/mare-alta]] — "+summary+"\n")
	assert.Equal(t, "2026-12-01", parent.Updated())
	assert.Equal(t, "7 bananas, 0 sub-branches", parent.Coverage())
	root := wrNode(t, dir, "_index")
	assert.Contains(t, forest.SectionLines(root.Body, forest.SectionLandmarks), "- [[organizations/mare-alta]] — "+summary,
		"every index holding an entry line gets the summary, the master's Landmarks too")
	assert.Equal(t, "graft(organizations/mare-alta): set summary", headSubject(t, dir, "organizations/_index.md"),
		"the indexes land in the graft's commit")
	rec, _, err := v.Catalog().Get(context.Background(), "organizations/mare-alta")
	require.NoError(t, err)
	assert.Equal(t, summary, rec.Summary)
	assert.Equal(t, 1, wrStale(t, v, "organizations/mare-alta"), "edited nodes are stale for the dense layer")
	assert.Equal(t, 1, wrStale(t, v, "organizations/_index"))
	assert.Equal(t, 0, wrStale(t, v, "operations/ice-supply"))
}

func wrStale(t *testing.T, v *Vine, id string) int {
	t.Helper()
	var stale int
	require.NoError(t, v.Catalog().DB().QueryRow("SELECT stale FROM nodes WHERE id = ?", id).Scan(&stale))
	return stale
}

func TestGraftBranchSummaryKeepsCoverageSuffix(t *testing.T) {
	v, dir := writableFixture(t)
	const summary = "Lighthouse: safer night trips for small boats in 2026, with beacons and a radio protocol."
	_, err := call(t, v, "graft", `{"id": "projects/lighthouse/_index", "patch": {"set_frontmatter": {"summary": "`+summary+`"}}}`)
	require.NoError(t, err)
	projects := wrNode(t, dir, "projects/_index")
	assert.Contains(t, forest.SectionLines(projects.Body, forest.SectionSubBranches),
		"- [[projects/lighthouse/_index]] — "+summary+" 5 bananas, 0 sub-branches.")
	assert.Equal(t, "2 bananas, 2 sub-branches", projects.Coverage())
}

func TestGraftIndexSectionsAllowedReplaceBodyRefused(t *testing.T) {
	v, dir := writableFixture(t)
	before := testforest.TreeDigest(t, dir)
	_, err := call(t, v, "graft", `{"id": "projects/_index", "patch": {"replace_body": "# Projects"}}`)
	wrRefused(t, dir, before, err, ESchema, "index")

	_, err = call(t, v, "graft", `{"id": "projects/_index", "patch": {"append_section": {"header": "Cross trails", "body": "- Old trail → [[concepts/_index]]"}}}`)
	require.NoError(t, err)
	_, err = call(t, v, "graft", `{"id": "projects/_index", "patch": {"replace_section": {"header": "Cross trails", "body": "- Where the sensors are → [[products/_index]]"}}}`)
	require.NoError(t, err)
	n := wrNode(t, dir, "projects/_index")
	assert.Equal(t, []string{"Where the sensors are → [[products/_index]]"}, forest.CrossTrails(n.Body))
}

func TestGraftTagsGrandfathered(t *testing.T) {
	v, dir := writableFixture(t)
	wrRewrite(t, dir, "operations/ice-supply", func(n *forest.Node) { n.Front.Set("tags", []any{"old tag"}) })
	_, err := call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"tags": ["old tag", "gelo"]}}}`)
	require.NoError(t, err, "a tag already on the node with the same spelling passes")
	assert.Equal(t, []string{"old tag", "gelo"}, wrNode(t, dir, "operations/ice-supply").Tags())

	before := testforest.TreeDigest(t, dir)
	_, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"tags": ["old tag", "new tag"]}}}`)
	wrRefused(t, dir, before, err, ESchema, "new tag")
}

func TestGraftSummaryRelaxedUnlessSet(t *testing.T) {
	v, dir := writableFixture(t)
	legacy := strings.Repeat("A legacy summary far too long for the contract. ", 8)
	wrRewrite(t, dir, "operations/ice-supply", func(n *forest.Node) { n.Front.Set("summary", legacy) })
	_, err := call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"title": "Ice"}}}`)
	require.NoError(t, err, "an existing summary is never re-judged by an unrelated edit")

	before := testforest.TreeDigest(t, dir)
	_, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"summary": "This document describes ice."}}}`)
	wrRefused(t, dir, before, err, EFrontmatter, "summary")
}

func TestGraftAliasesAreFoundByLocate(t *testing.T) {
	v, _ := writableFixture(t)
	_, err := call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"aliases": ["gelozinho"]}}}`)
	require.NoError(t, err)
	res, err := v.Locate(context.Background(), "gelozinho", LocateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Results)
	assert.Equal(t, "operations/ice-supply", res.Results[0].ID)
}

func TestGraftRefusalsLeaveTheForestByteIdentical(t *testing.T) {
	v, dir := writableFixture(t)
	_, err := call(t, v, "transplant", `{"id": "operations/waste-handling", "new_id": "operations/waste"}`)
	require.NoError(t, err)
	before := testforest.TreeDigest(t, dir)
	aliases17 := `["a1","a2","a3","a4","a5","a6","a7","a8","a9","a10","a11","a12","a13","a14","a15","a16","a17"]`
	links := make([]string, 49)
	for i := range links {
		links[i] = `{"rel": "related-to", "target": "x/n` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"}`
	}
	tests := []struct {
		name, args string
		code       Code
		mention    string
	}{
		{"unknown key names it and lists the ops", `{"id": "operations/ice-supply", "patch": {"regenerate_summary": true, "append_section": {"header": "X", "body": "y"}}}`, ESchema, "'regenerate_summary'"},
		{"unknown key lists the ops", `{"id": "operations/ice-supply", "patch": {"set_parent": "x/_index"}}`, ESchema, "unknown patch key"},
		{"empty patch", `{"id": "operations/ice-supply", "patch": {}}`, ESchema, "empty"},
		{"patch not an object", `{"id": "operations/ice-supply", "patch": []}`, ESchema, "patch"},
		{"absent node", `{"id": "operations/nothing", "patch": {"set_frontmatter": {"title": "X"}}}`, ENotFound, "node not found: operations/nothing"},
		{"escaping id", `{"id": "../etc/passwd", "patch": {"set_frontmatter": {"title": "X"}}}`, ENotFound, "not found"},
		{"waymark", `{"id": "operations/waste-handling", "patch": {"set_frontmatter": {"title": "X"}}}`, EMoved, "operations/waste"},
		{"id read-only", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"id": "x"}}}`, EReadOnly, "'id'"},
		{"type read-only", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"type": "concept"}}}`, EReadOnly, "'type'"},
		{"created read-only", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"created": "2020-01-01"}}}`, EReadOnly, "'created'"},
		{"updated read-only", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"updated": "2020-01-01"}}}`, EReadOnly, "'updated'"},
		{"source read-only", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"source": "manual"}}}`, EReadOnly, "'source'"},
		{"links read-only", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"links": []}}}`, EReadOnly, "'links'"},
		{"payload read-only", `{"id": "finance/ledger-2026", "patch": {"set_frontmatter": {"payload": "x.db"}}}`, EReadOnly, "'payload'"},
		{"moved_from read-only", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"moved_from": ["a"]}}}`, EReadOnly, "'moved_from'"},
		{"read-only with a mutable beside", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"title": "T", "entity_kind": "other"}}}`, EReadOnly, "'entity_kind'"},
		{"replace_body with a section op", `{"id": "operations/ice-supply", "patch": {"replace_body": "x", "append_section": {"header": "A", "body": "b"}}}`, ESchema, "replace_body"},
		{"summary contract", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"summary": "` + strings.Repeat("word ", 70) + `"}}}`, EFrontmatter, "summary"},
		{"empty summary", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"summary": "  "}}}`, EFrontmatter, "summary"},
		{"17 aliases", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"aliases": ` + aliases17 + `}}}`, ESchema, "aliases"},
		{"long alias", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"aliases": ["` + strings.Repeat("x", 81) + `"]}}}`, ESchema, "aliases.0"},
		{"origin with a space", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"origin": "my file.txt"}}}`, ESchema, "origin"},
		{"bad lang", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"lang": "Portuguese"}}}`, ESchema, "lang"},
		{"bad tag", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"tags": ["two words"]}}}`, ESchema, "two words"},
		{"confidence out of range", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"confidence": 2}}}`, EFrontmatter, "confidence"},
		{"title not a string", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"title": ["x"]}}}`, EFrontmatter, "title"},
		{"title removed", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"title": null}}}`, EFrontmatter, "title"},
		{"undeclared rel", `{"id": "operations/ice-supply", "patch": {"add_links": [{"rel": "loves", "target": "people/ana-ribeiro"}]}}`, ESchema, "'loves'"},
		{"link without target", `{"id": "operations/ice-supply", "patch": {"add_links": [{"rel": "related-to"}]}}`, ESchema, "add_links.0"},
		{"removal with extras", `{"id": "operations/ice-supply", "patch": {"remove_links": [{"rel": "related-to", "target": "x", "note": "n"}]}}`, ESchema, "'note'"},
		{"over 50 links", `{"id": "operations/ice-supply", "patch": {"add_links": [` + strings.Join(links, ",") + `, {"rel": "author", "target": "people/x"}]}}`, ESchema, "51 links"},
		{"absent section", `{"id": "operations/ice-supply", "patch": {"replace_section": {"header": "Nowhere", "body": "x"}}}`, ENotFound, "no section 'Nowhere'"},
		{"section without header", `{"id": "operations/ice-supply", "patch": {"append_section": {"body": "x"}}}`, ESchema, "header"},
		{"section unknown key", `{"id": "operations/ice-supply", "patch": {"append_section": {"header": "A", "text": "x"}}}`, ESchema, "'text'"},
		{"replace_body not a string", `{"id": "operations/ice-supply", "patch": {"replace_body": 3}}`, ESchema, "replace_body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, v, "graft", tt.args)
			wrRefused(t, dir, before, err, tt.code, tt.mention)
		})
	}
	_, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"set_frontmatter": {"id": "x"}}}`)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Hint, "title, summary, tags, confidence, aliases, origin, lang", "the hint lists the mutable set")
	_, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"replace_section": {"header": "Nowhere", "body": "x"}}}`)
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Hint, "append_section")
	assert.Contains(t, e.Hint, "Overview, Details, Related", "the hint lists the node's sections")
	_, err = call(t, v, "graft", `{"id": "operations/ice-supply", "patch": {"regenerate_summary": true}}`)
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Hint, "set_frontmatter, add_links, remove_links, append_section, replace_section, replace_body")
}

func TestGraftOnReadOnlyIsRefusedFirst(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	for _, args := range []string{`{"id": "nothing/here", "patch": {"bogus": 1}}`, `{"id": "operations/ice-supply", "patch": {}}`} {
		_, err := call(t, v, "graft", args)
		assert.Equal(t, EReadOnly, CodeOf(err))
	}
}

func TestGraftTypedAPI(t *testing.T) {
	v, dir := writableFixture(t)
	body := "Audited."
	_, err := v.Graft(context.Background(), "finance/ledger-2026", GraftPatch{})
	assert.Equal(t, ESchema, CodeOf(err), "the empty patch is refused")
	res, err := v.Graft(context.Background(), "finance/ledger-2026", GraftPatch{
		SetFrontmatter: []forest.Field{{Key: "tags", Value: []string{"ledger"}}},
		AppendSection:  &SectionEdit{Header: "Notes", Body: body},
	})
	require.NoError(t, err)
	require.NotNil(t, res.Commit)
	assert.True(t, res.SummaryStale)
	assert.Equal(t, "graft(finance/ledger-2026): set tags; append 'Notes'", headSubject(t, dir, "finance/ledger-2026.md"))
}

func TestDecodeGraftPatchKeepsOrderAndShapes(t *testing.T) {
	p, err := decodeGraftPatch([]byte(`{"set_frontmatter": {"title": "T", "origin": null, "confidence": 0.5},
		"add_links": [{"rel": "related-to", "target": "/a/b/", "confidence": 0.3, "note": "n"}],
		"remove_links": [{"rel": "author", "target": "c"}], "replace_body": null}`))
	require.NoError(t, err)
	assert.Equal(t, []forest.Field{{Key: "title", Value: "T"}, {Key: "origin", Value: nil}, {Key: "confidence", Value: 0.5}}, p.SetFrontmatter)
	require.Len(t, p.AddLinks, 1)
	assert.Equal(t, "a/b", p.AddLinks[0].Target)
	assert.InDelta(t, 0.3, *p.AddLinks[0].Confidence, 1e-9)
	assert.Equal(t, []forest.Field{{Key: "note", Value: "n"}}, p.AddLinks[0].Extra)
	assert.Equal(t, []LinkRef{{Rel: "author", Target: "c"}}, p.RemoveLinks)
	assert.Nil(t, p.ReplaceBody, "null is absent")
}

func TestNormalizeHeader(t *testing.T) {
	for in, want := range map[string]string{"Notes": "Notes", "## Notes": "Notes", "#Notes ": "Notes", "  Query   manual ": "Query manual", "###": ""} {
		assert.Equal(t, want, normalizeHeader(in), in)
	}
}

func FuzzDecodeGraftPatch(f *testing.F) {
	for _, seed := range []string{
		`{"set_frontmatter": {"title": "T"}}`, `{"add_links": [{"rel": "r", "target": "t", "x": [1]}]}`,
		`{"remove_links": [{"rel": "r", "target": "t"}]}`, `{"append_section": {"header": "# H", "body": "b"}}`,
		`{"replace_body": ""}`, `{"bogus": 1}`, `[]`, `{}`, `{"replace_section": {"header": ""}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := decodeGraftPatch(raw)
		if err != nil {
			if CodeOf(err) != ESchema {
				t.Fatalf("a patch refusal must be E_SCHEMA, got %v", err)
			}
			return
		}
		if p.empty() {
			t.Fatal("an accepted patch is never empty")
		}
		for _, l := range p.AddLinks {
			if l.Rel == "" || l.Target == "" {
				t.Fatalf("accepted a link without rel or target: %+v", l)
			}
		}
	})
}

func TestWriteResultsKeyOrderAndSignatures(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	g, err := v.Graft(ctx, "operations/ice-supply", GraftPatch{AppendSection: &SectionEdit{Header: "Notes", Body: "n"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "commit", "fortified", "trail", "summary_stale"}, wrKeys(t, g))
	tr, err := v.Transplant(ctx, "operations/ice-supply", "operations/ice")
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "moved_from", "backlinks_rewritten", "commit", "trail"}, wrKeys(t, tr))
	p, err := v.Prune(ctx, "operations/ice", PruneOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "pruned", "backlinks_removed", "payload_moved", "commit"}, wrKeys(t, p))

	for _, tt := range []struct {
		name                              string
		readOnly, destructive, idempotent bool
		params                            []string
	}{
		{"graft", false, false, false, []string{"id", "patch"}},
		{"prune", false, true, false, []string{"id", "force"}},
		{"transplant", false, true, false, []string{"id", "new_id"}},
		{"history", true, false, true, []string{"id", "limit"}},
	} {
		sig, ok := LookupSignature(tt.name)
		require.True(t, ok, tt.name)
		assert.Equal(t, tt.readOnly, sig.ReadOnly, tt.name)
		assert.Equal(t, tt.destructive, sig.Destructive, tt.name)
		assert.Equal(t, tt.idempotent, sig.Idempotent, tt.name)
		var names []string
		for _, p := range sig.Params {
			names = append(names, p.Name)
		}
		assert.Equal(t, tt.params, names, tt.name)
	}
	sig, _ := LookupSignature("history")
	assert.Equal(t, BudgetHistory, sig.Budget)
}
