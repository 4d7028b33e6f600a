// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/recordtest"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/testforest"
)

const memo = `"title":"Night Watch: Memo #2","text":"The night watch starts at 22:00 and ends at dawn."`

// TestComposeStageThenAccept (J.8): stage previews the draft and writes
// nothing, HEAD included; the reviewed draft sent back is planted as
// approved, re-validated: its summary, its cleaned tags, only links to
// visible, existing, non-branch nodes as related-to at 0.3.
func TestComposeStageThenAccept(t *testing.T) {
	st := newStation(t, nil)
	var staged map[string]any
	testforest.Unchanged(t, st.dir, func() {
		staged = ok(t, st.post(keyScoped, "ingest", `{"mode":"compose",`+memo+`,"dest":"operations","stage":true}`))
	})
	assert.Equal(t, true, staged["preview"])
	assert.Nil(t, staged["commit"], "a preview has no commit")
	assert.Equal(t, "compose", staged["mode"])
	drafts := staged["drafts"].([]any)
	require.Len(t, drafts, 1)
	d := drafts[0].(map[string]any)
	assert.Equal(t, "operations/night-watch-memo-2", d["id"], "the file is the title's slug")
	assert.Equal(t, "Night Watch: Memo #2", d["title"])
	for _, k := range []string{"id", "parent", "type", "title", "summary", "tags", "links"} {
		assert.Contains(t, d, k)
	}

	draft := map[string]any{"title": "Night watch memo", "summary": "Night watch hours: 22:00 to dawn.",
		"tags": []string{"watch", "bad tag!"},
		"links": []map[string]string{
			{"target": "operations/radio-schedule", "note": "who to call"},
			{"target": "projects/lighthouse/radio-protocol"}, // outside the key's grant
			{"target": "operations/_index"},                  // a branch
			{"target": "operations/departure-checklist", "rel": "supersedes"},
		}}
	body, _ := json.Marshal(map[string]any{"mode": "compose", "title": "Night Watch: Memo #2",
		"text": "The night watch starts at 22:00 and ends at dawn.", "dest": "operations", "draft": draft})
	accepted := ok(t, st.post(keyScoped, "ingest", string(body)))
	assert.Equal(t, []any{"operations/night-watch-memo-2"}, accepted["planted"])
	assert.NotNil(t, accepted["commit"])
	assert.NotEqual(t, accepted["commit_before"], accepted["commit"])
	assert.InDelta(t, 1, accepted["tags_dropped"], 0, "a tag breaking the rule is dropped and counted")

	look := ok(t, st.post(keyFull, "look", `{"id":"operations/night-watch-memo-2"}`))
	assert.Equal(t, "Night watch memo", look["title"])
	assert.Equal(t, "Night watch hours: 22:00 to dawn.", look["summary"], "the approved summary is planted")
	raw, _ := json.Marshal(look)
	assert.Contains(t, string(raw), "operations/radio-schedule")
	assert.NotContains(t, string(raw), "radio-protocol", "a link out of scope is dropped")
	assert.NotContains(t, string(raw), "departure-checklist", "only related-to is kept")
}

// TestComposeRefusals: compose's malformed calls are E_SCHEMA (or the
// policy's refusal) and write nothing.
func TestComposeRefusals(t *testing.T) {
	st := newStation(t, nil)
	cases := []struct {
		name, key, body string
		status          int
		code            vine.Code
	}{
		{"stage and draft", keyFull, `{"mode":"compose",` + memo + `,"stage":true,"draft":{}}`, 400, vine.ESchema},
		{"draft not an object", keyFull, `{"mode":"compose",` + memo + `,"draft":"yes"}`, 400, vine.ESchema},
		{"stage on a batch mode", keyFull, `{"files":[{"name":"a.md","text":"# A"}],"stage":true}`, 400, vine.ESchema},
		{"draft on a batch mode", keyFull, `{"mode":"sync","draft":{}}`, 400, vine.ESchema},
		{"no title", keyFull, `{"mode":"compose","text":"x"}`, 400, vine.ESchema},
		{"blank text", keyFull, `{"mode":"compose","title":"T","text":"  \n"}`, 400, vine.ESchema},
		{"title without a slug", keyFull, `{"mode":"compose","title":"!!!","text":"x"}`, 400, vine.ESchema},
		{"files with compose", keyFull, `{"mode":"compose",` + memo + `,"files":[]}`, 400, vine.ESchema},
		{"limited key without dest", keyScoped, `{"mode":"compose",` + memo + `}`, 400, vine.ESchema},
		{"limited key, dest outside", keyScoped, `{"mode":"compose",` + memo + `,"dest":"projects/lighthouse"}`, 403, vine.EForbidden},
		{"no ingest capability", keyRead, `{"mode":"compose",` + memo + `,"stage":true}`, 403, vine.EForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testforest.Unchanged(t, st.dir, func() {
				envelope(t, st.post(c.key, "ingest", c.body), c.status, c.code)
			})
		})
	}
	// A plain compose plants in place, 200, no job.
	planted := ok(t, st.post(keyFull, "ingest", `{"mode":"compose",`+memo+`}`))
	assert.Equal(t, []any{"night-watch-memo-2"}, planted["planted"])
	assert.NotContains(t, planted, "job")
}

// TestComposeAudit: a compose is one audit row when its answer is out,
// naming the commit an accept made; a stage names none.
func TestComposeAudit(t *testing.T) {
	tr := &recordtest.Trail{}
	st := newStation(t, func(o *rest.Options) { o.Recorder = tr })
	ok(t, st.post(keyFull, "ingest", `{"mode":"compose",`+memo+`,"stage":true}`))
	planted := ok(t, st.post(keyFull, "ingest", `{"mode":"compose",`+memo+`}`))
	rows := tr.All()
	require.Len(t, rows, 2)
	for _, row := range rows {
		assert.Equal(t, "ingest", row.Primitive)
		assert.Equal(t, record.OK, row.Result)
	}
	assert.Empty(t, rows[0].CommitSHA, "a stage commits nothing")
	assert.Equal(t, planted["commit"], rows[1].CommitSHA)
}
