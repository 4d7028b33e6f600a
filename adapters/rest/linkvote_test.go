// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/recordtest"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/testforest"
)

const votePath = "/v1/forests/" + forestID + "/links/vote"

// The fixture's one proposal, in the scoped key's view, and a person's
// link on a node that key cannot see.
const (
	shortcutVote = `{"id":"operations/departure-checklist","rel":"discovered-shortcut","target":"concepts/beaufort-scale"`
	hiddenVote   = `{"id":"projects/lighthouse/radio-protocol","rel":"related-to","target":"operations/radio-schedule"`
)

func votes(items ...string) string {
	out := `{"votes":[`
	for i, it := range items {
		if i > 0 {
			out += ","
		}
		out += it
	}
	return out + `]}`
}

func TestLinkVoteAccepts(t *testing.T) {
	tr := &recordtest.Trail{}
	st := newStation(t, func(o *rest.Options) { o.Recorder = tr })
	m := ok(t, st.do(http.MethodPost, votePath, keyScoped, votes(shortcutVote+`,"vote":"accept"}`)))
	vs := m["votes"].([]any)
	require.Len(t, vs, 1)
	v := vs[0].(map[string]any)
	assert.Equal(t, "accepted", v["result"])
	assert.Equal(t, "discovered-shortcut", v["rel"])
	assert.NotEmpty(t, v["commit"])
	assert.Equal(t, v["commit"], m["commit"])

	h := ok(t, st.post(keyScoped, "history", `{"id":"operations/departure-checklist","limit":1}`))
	first := h["entries"].([]any)[0].(map[string]any)
	assert.Equal(t, "svc-scoped", first["by"], "the vote carries its voter's principal")
	assert.Equal(t, "links(accept): operations/departure-checklist discovered-shortcut->concepts/beaufort-scale", first["message"])
	assert.Equal(t, "links", first["action"])

	rows := tr.All()
	require.NotEmpty(t, rows)
	row := rows[len(rows)-2] // the history call recorded last
	assert.Equal(t, "link-vote", row.Primitive)
	assert.Equal(t, record.OK, row.Result)
	assert.Equal(t, v["commit"], row.CommitSHA)
	assert.Equal(t, "svc-scoped", row.Principal)

	// Again: unchanged, no commit, no error.
	m = ok(t, st.do(http.MethodPost, votePath, keyScoped, votes(shortcutVote+`,"vote":"accept"}`)))
	v = m["votes"].([]any)[0].(map[string]any)
	assert.Equal(t, "unchanged", v["result"])
	assert.NotContains(t, v, "commit")
}

func TestLinkVoteRefusalsWriteNothing(t *testing.T) {
	st := newStation(t, nil)
	digest := testforest.TreeDigest(t, st.dir)
	for _, tc := range []struct {
		name, key, body string
		status          int
		code            vine.Code
		message         string
	}{
		{"read key", keyRead, votes(shortcutVote + `,"vote":"accept"}`), http.StatusForbidden, vine.EForbidden, ""},
		{"other forest", keyOther, votes(shortcutVote + `,"vote":"accept"}`), http.StatusNotFound, vine.ENotFound, ""},
		{"no such link", keyScoped, votes(`{"id":"operations/departure-checklist","rel":"author","target":"concepts/beaufort-scale","vote":"accept"}`),
			http.StatusNotFound, vine.ENotFound, "no such link: operations/departure-checklist author->concepts/beaufort-scale"},
		{"out of scope answers as absent", keyScoped, votes(hiddenVote + `,"vote":"accept"}`), http.StatusNotFound, vine.ENotFound,
			"no such link: projects/lighthouse/radio-protocol related-to->operations/radio-schedule"},
		{"reject a confirmed link", keyFull, votes(hiddenVote + `,"vote":"reject"}`), http.StatusBadRequest, vine.ESchema, ""},
		{"a bad vote", keyScoped, votes(shortcutVote + `,"vote":"maybe"}`), http.StatusBadRequest, vine.ESchema, "parameter 'vote' is \"maybe\", expected accept or reject"},
		{"no votes", keyScoped, `{"votes":[]}`, http.StatusBadRequest, vine.ESchema, "parameter 'votes' is required: name each link voted on"},
		{"unknown field", keyScoped, `{"votes":[],"all":true}`, http.StatusBadRequest, vine.ESchema, ""},
		{"not json", keyScoped, `accept everything`, http.StatusBadRequest, vine.ESchema, ""},
		{"a group with one bad vote", keyScoped,
			votes(shortcutVote+`,"vote":"accept"}`, hiddenVote+`,"vote":"accept"}`), http.StatusNotFound, vine.ENotFound, ""},
	} {
		r := st.do(http.MethodPost, votePath, tc.key, tc.body)
		e := envelope(t, r, tc.status, tc.code)
		if tc.message != "" {
			assert.Equal(t, tc.message, e["message"], tc.name)
		}
		assert.Equal(t, digest, testforest.TreeDigest(t, st.dir), "%s: a refused vote leaves the forest byte-identical", tc.name)
	}
	r := st.do(http.MethodGet, votePath, keyScoped, "")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
}

func TestLinkVoteRejects(t *testing.T) {
	st := newStation(t, nil)
	m := ok(t, st.do(http.MethodPost, votePath, keyFull, votes(shortcutVote+`,"vote":"reject"}`)))
	assert.Equal(t, "rejected", m["votes"].([]any)[0].(map[string]any)["result"])
	r := st.do(http.MethodPost, votePath, keyFull, votes(shortcutVote+`,"vote":"accept"}`))
	envelope(t, r, http.StatusNotFound, vine.ENotFound)
}

func TestListProposals(t *testing.T) {
	st := newStation(t, nil)
	path := "/v1/forests/" + forestID + "/links"
	m := ok(t, st.do(http.MethodGet, path, keyRead, ""))
	assert.Equal(t, false, m["truncated"])
	require.Len(t, m["links"], 1)
	assert.Equal(t, map[string]any{"id": "operations/departure-checklist", "rel": "discovered-shortcut",
		"target": "concepts/beaufort-scale", "confidence": 0.5}, m["links"].([]any)[0])

	m = ok(t, st.do(http.MethodGet, path+"?limit=0", keyRead, ""))
	assert.Len(t, m["links"], 1, "limit is clamped to at least 1")
	// keyDeny sees every branch but projects/: both ends are visible.
	assert.Len(t, ok(t, st.do(http.MethodGet, path, keyDeny, ""))["links"], 1)

	envelope(t, st.do(http.MethodGet, path+"?limt=5", keyRead, ""), http.StatusBadRequest, vine.ESchema)
	envelope(t, st.do(http.MethodGet, path+"?limit=many", keyRead, ""), http.StatusBadRequest, vine.ESchema)
	envelope(t, st.do(http.MethodGet, path, keyOther, ""), http.StatusNotFound, vine.ENotFound)

	ok(t, st.do(http.MethodPost, votePath, keyFull, votes(shortcutVote+`,"vote":"accept"}`)))
	m = ok(t, st.do(http.MethodGet, path, keyRead, ""))
	assert.Empty(t, m["links"], "an accepted link is no proposal")
}
