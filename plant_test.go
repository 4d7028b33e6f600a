// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/bodysum"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/testforest"
)

var plantClock = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.Local) }

func writableFixture(t *testing.T) (*Vine, string) {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	return openT(t, dir, &Options{Now: plantClock}), dir
}

func call(t *testing.T, v *Vine, name, args string) (map[string]any, error) {
	t.Helper()
	res, err := v.Call(context.Background(), name, []byte(args))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out, nil
}

func headSubject(t *testing.T, dir, file string) string {
	t.Helper()
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	log, err := repo.Log(context.Background(), file, 0, false)
	require.NoError(t, err)
	head, err := repo.Head()
	require.NoError(t, err)
	for _, e := range log {
		if e.SHA == head {
			return e.Subject
		}
	}
	return head
}

func TestPlantLeafWritesNodeIndexAndOneCommit(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "plant", `{"node": {"id": "operations/night-watch", "type": "note",
		"title": "Night watch", "summary": "Night watch rota for the harbour office: two people, 22:00-06:00, radio on channel 16.",
		"parent": "operations/_index", "tags": ["rota", "navegação"], "links": [{"rel": "related-to", "target": "operations/radio-schedule"}],
		"body": "Who watches when.", "source_path": "rota.txt"}}`)
	require.NoError(t, err)
	assert.Equal(t, "operations/night-watch", out["id"])
	assert.Equal(t, true, out["created"])
	assert.Len(t, out["commit"], 40)
	assert.Equal(t, []any{"_index", "operations/_index"}, out["trail"])

	data, err := os.ReadFile(filepath.Join(dir, "operations", "night-watch.md"))
	require.NoError(t, err)
	want := "---\nid: operations/night-watch\ntype: note\ntitle: Night watch\nsummary: 'Night watch rota for the harbour office: two people, 22:00-06:00, radio\n  on channel 16.'\ncreated: '2026-12-01'\nupdated: '2026-12-01'\ntags:\n- rota\n- navegação\nlinks:\n- rel: related-to\n  target: operations/radio-schedule\nsource: agent\nsource_path: rota.txt\n---\n\n# Night watch\n\nWho watches when.\n"
	assert.Equal(t, want, string(data))

	idx, err := os.ReadFile(filepath.Join(dir, "operations", "_index.md"))
	require.NoError(t, err)
	parent, err := forest.Parse("operations/_index", idx)
	require.NoError(t, err)
	assert.Contains(t, forest.EntryIDs(parent.Body, forest.SectionDirect), "operations/night-watch")
	assert.Equal(t, "9 bananas, 0 sub-branches", parent.Coverage())
	assert.Equal(t, "2026-12-01", parent.Updated())

	assert.Equal(t, "plant(operations/night-watch): Night watch [source=agent]", headSubject(t, dir, "operations/night-watch.md"))
	rec, ok, err := v.Catalog().Get(context.Background(), "operations/night-watch")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "Night watch", rec.Title)
}

func TestPlantRefusalsLeaveTheForestByteIdentical(t *testing.T) {
	v, dir := writableFixture(t)
	before := testforest.TreeDigest(t, dir)
	good := `"type": "note", "title": "T", "summary": "A short valid summary of the node.", "parent": "operations/_index"`
	tests := []struct {
		name, args string
		code       Code
		mention    string
	}{
		{"missing title", `{"node": {"id": "operations/x", "type": "note", "summary": "S s.", "parent": "operations/_index"}}`, ESchema, "title"},
		{"bad confidence", `{"node": {"id": "operations/x", ` + good + `, "confidence": 1.5}}`, EFrontmatter, "confidence"},
		{"unknown type", `{"node": {"id": "operations/x", "type": "memo", "title": "T", "summary": "A short valid summary.", "parent": "operations/_index"}}`, ESchema, "memo"},
		{"unknown rel", `{"node": {"id": "operations/x", ` + good + `, "links": [{"rel": "loves", "target": "people/ana-ribeiro"}]}}`, ESchema, "loves"},
		{"summary over budget", `{"node": {"id": "operations/x", "type": "note", "title": "T", "summary": "` + strings.Repeat("word ", 60) + `", "parent": "operations/_index"}}`, EFrontmatter, "summary"},
		{"forbidden opening", `{"node": {"id": "operations/x", "type": "note", "title": "T", "summary": "This document describes the rota.", "parent": "operations/_index"}}`, EFrontmatter, "summary"},
		{"escaping id", `{"node": {"id": "../outside", "type": "note", "title": "T", "summary": "A short valid summary.", "parent": "_index"}}`, ENotFound, "escapes"},
		{"id taken", `{"node": {"id": "operations/fuel-logistics", ` + good + `}}`, ESchema, "already exists"},
		{"wrong parent", `{"node": {"id": "operations/x", "type": "note", "title": "T", "summary": "A short valid summary.", "parent": "_index"}}`, ESchema, "operations/_index"},
		{"missing parent", `{"node": {"id": "nowhere/x", "type": "note", "title": "T", "summary": "A short valid summary.", "parent": "nowhere/_index"}}`, ENotFound, "parent branch not found"},
		{"moved_from refused", `{"node": {"id": "operations/x", ` + good + `, "moved_from": ["a/b"]}}`, ESchema, "moved_from"},
		{"bad tag", `{"node": {"id": "operations/x", ` + good + `, "tags": ["two words"]}}`, ESchema, "tag"},
		{"media without payload", `{"node": {"id": "media/x", "type": "media", "title": "T", "summary": "A short valid summary.", "parent": "media/_index"}}`, ESchema, "payload"},
		{"media payload missing", `{"node": {"id": "media/x", "type": "media", "title": "T", "summary": "A short valid summary.", "parent": "media/_index", "payload": "_assets/none.png"}}`, ESchema, "not found"},
		{"entity without kind", `{"node": {"id": "people/x", "type": "entity", "title": "T", "summary": "A short valid summary.", "parent": "people/_index"}}`, EFrontmatter, "entity_kind"},
		{"branch id shape", `{"node": {"id": "operations/sub", "type": "branch", "title": "T", "summary": "A short valid summary.", "parent": "operations/_index"}}`, ESchema, "_index"},
		{"list too long", `{"node": [` + strings.Repeat(`{"id": "a"},`, 20) + `{"id": "a"}]}`, ESchema, "node"},
		{"batch duplicate", `{"node": [{"id": "operations/y", ` + good + `}, {"id": "operations/y", ` + good + `}]}`, ESchema, "twice"},
		{"batch member fails all", `{"node": [{"id": "operations/y", ` + good + `}, {"id": "operations/z", "type": "memo", "title": "T", "summary": "A short valid summary.", "parent": "operations/_index"}]}`, ESchema, "operations/z: "},
		{"dataset bad type", `{"node": {"id": "finance/d", "type": "dataset", "title": "T", "summary": "A short valid summary.", "parent": "finance/_index", "schema": {"t": {"columns": {"a": "VARCHAR"}}}}}`, ESchema, "VARCHAR"},
		{"dataset rows width", `{"node": {"id": "finance/d", "type": "dataset", "title": "T", "summary": "A short valid summary.", "parent": "finance/_index", "schema": {"t": {"columns": {"a": "TEXT"}}}, "rows": {"t": [["x", "y"]]}}}`, ESchema, "rows.t[0]"},
		{"dataset constraint", `{"node": {"id": "finance/d", "type": "dataset", "title": "T", "summary": "A short valid summary.", "parent": "finance/_index", "schema": {"t": {"columns": {"a": "TEXT"}, "primary_key": ["a"]}}, "rows": {"t": [["x"], ["x"]]}}}`, ESchema, "dataset birth failed"},
		{"dataset payload exists", `{"node": {"id": "finance/d", "type": "dataset", "title": "T", "summary": "A short valid summary.", "parent": "finance/_index", "payload": "ledger-2026.db", "schema": {"t": {"columns": {"a": "TEXT"}}}}}`, ESchema, "already exists"},
		{"unknown parameter", `{"node": {"id": "operations/x"}, "force": true}`, ESchema, "force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, v, "plant", tt.args)
			require.Error(t, err)
			assert.Equal(t, tt.code, CodeOf(err), err.Error())
			assert.Contains(t, err.Error(), tt.mention)
			assert.Equal(t, before, testforest.TreeDigest(t, dir), "the forest is byte-identical after a refusal")
		})
	}
}

func TestPlantDryRunListsEveryProblemAndWritesNothing(t *testing.T) {
	v, dir := writableFixture(t)
	before := testforest.TreeDigest(t, dir)
	_, err := call(t, v, "plant", `{"dry_run": true, "node": {"id": "operations/x", "type": "memo", "title": "T",
		"summary": "This document describes x.", "parent": "_index", "tags": ["a b"]}}`)
	require.Error(t, err)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ESchema, e.Code)
	list, ok := e.Get("errors")
	require.True(t, ok)
	problems := list.([]map[string]any)
	assert.GreaterOrEqual(t, len(problems), 4, "%v", problems)
	assert.Equal(t, e.Message, problems[0]["message"], "the envelope is the first problem")

	out, err := call(t, v, "plant", `{"dry_run": true, "node": {"id": "operations/x", "type": "note", "title": "T",
		"summary": "A short valid summary.", "parent": "operations/_index"}}`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": "operations/x", "valid": true, "dry_run": true}, out)
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
}

func TestPlantIfAbsent(t *testing.T) {
	v, dir := writableFixture(t)
	before := testforest.TreeDigest(t, dir)
	out, err := call(t, v, "plant", `{"if_absent": true, "node": {"id": "operations/fuel-logistics", "type": "note",
		"title": "Other", "summary": "A different summary entirely.", "parent": "operations/_index"}}`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": "operations/fuel-logistics", "created": false,
		"trail": []any{"_index", "operations/_index"}}, out)
	assert.Equal(t, before, testforest.TreeDigest(t, dir))

	_, err = call(t, v, "plant", `{"if_absent": true, "node": {"id": "operations/fuel-logistics", "type": "memo",
		"title": "Other", "summary": "A different summary entirely.", "parent": "operations/_index"}}`)
	assert.Equal(t, ESchema, CodeOf(err), "an invalid spec is refused even when the id exists")
}

func TestPlantBatchBranchAndChildrenInOneCommit(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "plant", `{"if_absent": true, "node": [
		{"id": "training/_index", "type": "branch", "title": "Training", "summary": "Courses for members: safety, radio and first aid.", "parent": "_index"},
		{"id": "training/radio-course", "type": "note", "title": "Radio course", "summary": "Two-day VHF radio course, next session in March 2027.", "parent": "training/_index"},
		{"id": "operations/fuel-logistics", "type": "note", "title": "X", "summary": "Already there.", "parent": "operations/_index"}]}`)
	require.NoError(t, err)
	assert.Equal(t, []any{"training/_index", "training/radio-course"}, out["created"])
	assert.Equal(t, float64(2), out["count"])
	assert.Equal(t, []any{"operations/fuel-logistics"}, out["existing"])
	assert.Equal(t, "plant(batch): 2 nodes", headSubject(t, dir, "training/_index.md"))

	branch, err := os.ReadFile(filepath.Join(dir, "training", "_index.md"))
	require.NoError(t, err)
	n, err := forest.Parse("training/_index", branch)
	require.NoError(t, err)
	assert.Equal(t, "1 bananas, 0 sub-branches", n.Coverage())
	root, err := os.ReadFile(filepath.Join(dir, "_index.md"))
	require.NoError(t, err)
	assert.Contains(t, string(root), "- [[training/_index]] — Courses for members")
}

func TestPlantDatasetBirth(t *testing.T) {
	v, dir := writableFixture(t)
	out, err := call(t, v, "plant", `{"node": {"id": "finance/catch-2026", "type": "dataset", "title": "Catch 2026",
		"summary": "Catch per boat and species in 2026, kilograms.", "parent": "finance/_index",
		"schema": {"catch": {"columns": {"boat": "text", "species": "TEXT", "kg": "REAL"}, "primary_key": ["boat", "species"]}},
		"rows": {"catch": [["EM-12", "tuna", 420.5], ["EM-12", "dourado", 88]]}}}`)
	require.NoError(t, err)
	assert.Equal(t, true, out["created"])
	payload := filepath.Join(dir, "finance", "catch-2026.db")
	require.FileExists(t, payload)
	data, err := os.ReadFile(filepath.Join(dir, "finance", "catch-2026.md"))
	require.NoError(t, err)
	n, err := forest.Parse("finance/catch-2026", data)
	require.NoError(t, err)
	assert.Equal(t, "catch-2026.db", n.Payload())
	assert.Equal(t, "sqlite", n.PayloadType())
	keys := n.Front.Keys()
	assert.Equal(t, "payload_hash", keys[len(keys)-1], "a born dataset's hash is appended last")
	assert.Contains(t, n.Body, "- `catch(boat TEXT, species TEXT, kg REAL)`")
	assert.Contains(t, n.Body, "### catch — 2 rows")
	assert.Contains(t, n.Body, "| EM-12 | tuna | 420.5 |")

	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	files, err := repo.TrackedFiles()
	require.NoError(t, err)
	assert.NotContains(t, files, "finance/catch-2026.db")
	rep, err := v.Validate(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Errors, "%+v", rep.Findings)
	assert.Equal(t, 0, rep.Warnings, "the recorded hash matches the payload: %+v", rep.Findings)
}

func TestPlantOnReadOnlyIsRefusedFirst(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v := openT(t, dir, &Options{ReadOnly: true})
	_, err := call(t, v, "plant", `{"dry_run": true, "node": {"id": "x"}}`)
	assert.Equal(t, EReadOnly, CodeOf(err))
}

func TestPlantSchemaNodeReloadsDialect(t *testing.T) {
	v, _ := writableFixture(t)
	assert.True(t, v.Dialect().HasType("media"))
}

// TestPlantKeepsALargeIndexRecordExact plants into one folder until its
// index passes the size from which its catalog hash and token count
// resume from the last version (internal/bodysum), then checks the
// record against the file after every plant from there on.
func TestPlantKeepsALargeIndexRecordExact(t *testing.T) {
	v, dir := writableFixture(t)
	ctx := context.Background()
	summary := "A page of the manual — naïve about café options, " + strings.Repeat("and words ", 15) + "n°"
	for i := range 330 {
		id := fmt.Sprintf("operations/page-%04d", i)
		_, err := v.Plant(ctx, NodeSpec{ID: id, Type: "note", Title: id, Summary: summary + fmt.Sprint(i),
			Parent: "operations/_index", Body: "Text."}, PlantOptions{})
		require.NoError(t, err)
		if i < 300 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "operations", "_index.md"))
		require.NoError(t, err)
		n, err := forest.Parse("operations/_index", data)
		require.NoError(t, err)
		require.Greater(t, len(n.Body), bodysum.MinSize)
		rec, ok, err := v.Catalog().Get(ctx, "operations/_index")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, BodyHash(n.Body), rec.BodyHash, "after plant %d", i)
		assert.Equal(t, budget.EstimateTokens(n.Body), rec.BodyTokens, "after plant %d", i)
	}
}

// TestRefusedCommitLeavesTheCatalog: the catalog is written while git
// commits, and a commit git refuses leaves its rows as they were, put
// back with the files by the repair that follows the failed write.
func TestRefusedCommitLeavesTheCatalog(t *testing.T) {
	ctx := context.Background()
	v, dir := writableFixture(t)
	spec := func(id string) NodeSpec {
		return NodeSpec{ID: id, Type: "note", Title: "Refused", Summary: "A note whose commit is refused.",
			Parent: "operations/_index"}
	}
	parent, _, err := v.cat.Get(ctx, "operations/_index")
	require.NoError(t, err)

	lock := filepath.Join(dir, ".git", "index.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	_, err = v.Plant(ctx, spec("operations/refused"), PlantOptions{})
	require.Error(t, err)
	require.NoError(t, os.Remove(lock))

	_, ok, err := v.cat.Get(ctx, "operations/refused")
	require.NoError(t, err)
	assert.False(t, ok, "no row for a node git refused")
	after, _, err := v.cat.Get(ctx, "operations/_index")
	require.NoError(t, err)
	assert.Equal(t, parent, after, "the parent's row is as it was")

	_, err = v.Plant(ctx, spec("operations/accepted"), PlantOptions{})
	require.NoError(t, err, "the catalog's writer is free again")
	_, ok, err = v.cat.Get(ctx, "operations/accepted")
	require.NoError(t, err)
	assert.True(t, ok)
}
