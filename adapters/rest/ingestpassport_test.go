// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestIngestPassport (J.8.4): an upload entry's passport becomes the new
// document's passport; a re-sent file is refreshed and its passport
// listed in passports_ignored; a malformed passport refuses the call
// and writes nothing.
func TestIngestPassport(t *testing.T) {
	st := newStation(t, nil)
	entry := `{"name":"survey.md","text":"# Survey\n\nDepths along the pier.","passport":` +
		`{"title":"Harbour survey 2026","summary":"Depth survey of the harbour floor.","notes":"Scanned by the office."}}`
	job := jobOf(t, st.post(keyFull, "ingest", `{"files":[`+entry+`],"dest":"operations","wait":true}`))
	require.Equal(t, "done", job["state"], job)
	report := job["report"].(map[string]any)
	require.Equal(t, []any{"operations/survey"}, report["planted"])
	look := ok(t, st.post(keyFull, "look", `{"id":"operations/survey"}`))
	assert.Equal(t, "Harbour survey 2026", look["title"])
	assert.Equal(t, "Depth survey of the harbour floor.", look["summary"])

	again := `{"name":"survey.md","text":"# Survey\n\nDepths along the pier, revised.","passport":{"title":"Ignored"}}`
	job = jobOf(t, st.post(keyFull, "ingest", `{"files":[`+again+`],"dest":"operations","wait":true}`))
	report = job["report"].(map[string]any)
	assert.Equal(t, []any{"survey.md"}, report["passports_ignored"])
	assert.Equal(t, "Harbour survey 2026", ok(t, st.post(keyFull, "look", `{"id":"operations/survey"}`))["title"])

	for _, bad := range []string{`{"title":""}`, `{"links":[{"target":"operations/survey","rel":"supersedes"}]}`, `{"colour":1}`} {
		testforest.Unchanged(t, st.dir, func() {
			e := envelope(t, st.post(keyFull, "ingest", `{"files":[{"name":"x.md","text":"# X","passport":`+bad+`}],"wait":true}`),
				http.StatusBadRequest, vine.ESchema)
			assert.Contains(t, e["message"], "files[0]", bad)
			assert.Contains(t, e["message"], "passport", bad)
		})
	}
}
