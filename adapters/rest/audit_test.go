// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/internal/recordtest"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
)

// TestAuditOneRowPerScopedCall sends N scoped calls over REST, refusals
// included, and expects exactly N rows in order, each with the fields
// the call decided (spec 09 §9); a request refused before it names a
// principal writes none.
func TestAuditOneRowPerScopedCall(t *testing.T) {
	tr := &recordtest.Trail{}
	st := newStation(t, func(o *rest.Options) { o.Recorder = tr })
	plantBody := `{"node":{"id":"concepts/audited","type":"concept","title":"Audited","summary":"A planted node.","parent":"concepts/_index","body":"secret body"}}`
	type want struct {
		principal, forest, primitive, args string
		result                             record.Result
		code                               string
		commit                             bool
	}
	calls := []struct {
		name         string
		method, path string
		key, body    string
		status       int
		want         *want // nil: no row
	}{
		{"read", "POST", "/v1/forests/mare-alta/look", keyRead, `{"id":"concepts/tide"}`, 200,
			&want{"reader", forestID, "look", `{"id":"concepts/tide"}`, record.OK, "", false}},
		{"write", "POST", "/v1/forests/mare-alta/plant", keyFull, plantBody, 200,
			&want{"owner", forestID, "plant", `{"node":"<136 chars>"}`, record.OK, "", true}},
		{"hidden id", "POST", "/v1/forests/mare-alta/look", keyScoped, `{"id":"people/lucia-andrade"}`, 404,
			&want{"svc-scoped", forestID, "look", `{"id":"people/lucia-andrade"}`, record.Error, "E_NOT_FOUND", false}},
		{"missing cap", "POST", "/v1/forests/mare-alta/graft", keyRead, `{"id":"concepts/tide","patch":{"body":"x"}}`, 403,
			&want{"reader", forestID, "graft", `{"id":"concepts/tide","patch":"<12 chars>"}`, record.Error, "E_FORBIDDEN", false}},
		{"ungranted forest", "POST", "/v1/forests/mare-alta/look", keyOther, `{"id":"concepts/tide"}`, 404,
			&want{"other", forestID, "look", `{}`, record.Error, "E_NOT_FOUND", false}},
		{"unserved name", "POST", "/v1/forests/mare-alta/bananas", keyFull, `{}`, 404,
			&want{"owner", forestID, "bananas", `{}`, record.Error, "E_NOT_FOUND", false}},
		{"schema", "POST", "/v1/forests/mare-alta/look", keyFull, `{"id":"concepts/tide","k":1}`, 400,
			&want{"owner", forestID, "look", `{"id":"concepts/tide","k":"1"}`, record.Error, "E_SCHEMA", false}},
		{"payload", "GET", "/v1/forests/mare-alta/payload/" + st.man.Media, keyFull, "", 200,
			&want{"owner", forestID, "payload", `{"id":"` + st.man.Media + `"}`, record.OK, "", false}},
		{"export", "GET", "/v1/forests/mare-alta/export/concepts/tide", keyRead, "", 200,
			&want{"reader", forestID, "export", `{"id":"concepts/tide"}`, record.OK, "", false}},
		{"ingest at job finish", "POST", "/v1/forests/mare-alta/ingest", keyFull, `{"files":` + files(1) + `,"dest":"operations","wait":true}`, 200,
			&want{"owner", forestID, "ingest", "", record.OK, "", true}},
		{"ingest refused", "POST", "/v1/forests/mare-alta/ingest", keyRead, `{"files":` + files(1) + `}`, 403,
			&want{"reader", forestID, "ingest", `{"files":"<67 chars>"}`, record.Error, "E_FORBIDDEN", false}},
		{"no key", "POST", "/v1/forests/mare-alta/look", "", `{"id":"concepts/tide"}`, 401, nil},
		{"not scoped", "GET", "/v1/me", keyFull, "", 200, nil},
		{"jobs listing is a job read", "GET", "/v1/forests/mare-alta/jobs", keyFull, "", 200, nil},
		{"map", "GET", "/v1/forests/mare-alta/graph?limit=5", keyRead, "", 200,
			&want{"reader", forestID, "graph", `{"limit":"5"}`, record.OK, "", false}},
		{"health is not audited", "GET", "/v1/admin/health?forest=mare-alta", keyFull, "", 200, nil},
		{"snapshot", "POST", "/v1/admin/snapshots", keyFull, `{"forest":"mare-alta"}`, 400,
			&want{"owner", forestID, "snapshot", `{"forest":"mare-alta"}`, record.Error, "E_SCHEMA", false}},
		{"reindex", "POST", "/v1/admin/reindex", keyFull, `{"forest":"mare-alta"}`, 200,
			&want{"owner", forestID, "reindex", `{"forest":"mare-alta"}`, record.OK, "", false}},
		{"reindex without forest", "POST", "/v1/admin/reindex", keyFull, `{}`, 400,
			&want{"owner", record.NoForest, "reindex", `{}`, record.Error, "E_SCHEMA", false}},
	}
	var wants []*want
	for _, c := range calls {
		r := st.do(c.method, c.path, c.key, c.body)
		require.Equal(t, c.status, r.status, "%s: %s", c.name, r.body)
		if c.want != nil {
			wants = append(wants, c.want)
		}
		require.Len(t, tr.All(), len(wants), "%s: one row per scoped call, recorded once the response is out", c.name)
		if c.want == nil {
			continue
		}
		row := tr.All()[len(wants)-1]
		w := c.want
		assert.Equal(t, w.principal, row.Principal, c.name)
		assert.Equal(t, w.forest, row.Forest, c.name)
		assert.Equal(t, w.primitive, row.Primitive, c.name)
		assert.Equal(t, w.result, row.Result, c.name)
		assert.Equal(t, w.code, row.ErrorCode, c.name)
		assert.Equal(t, w.commit, row.CommitSHA != "", "%s: commit %q", c.name, row.CommitSHA)
		assert.False(t, row.Time.IsZero(), c.name)
		require.NotNil(t, row.MS, c.name)
		if c.name != "reindex" {
			assert.EqualValues(t, len(r.body), row.Size, "%s: size is the bytes sent", c.name)
		}
		if w.args != "" {
			assert.Equal(t, w.args, row.Args.String(), c.name)
		}
		assert.NotContains(t, row.Args.String(), "secret body", c.name)
	}
	rows := tr.All()
	job := rows[9]
	assert.Regexp(t, `^ing-[0-9a-f]{8}$`, job.Args["job"], "the job id is in the digest")
	assert.NotEmpty(t, job.Args["commit_before"], "with the commit range")
	reindex := rows[len(rows)-2]
	require.Equal(t, "reindex", reindex.Primitive)
	assert.Greater(t, reindex.Size, int64(10), "reindex: size is the node count")
}

// TestScopedWritesAreStamped: a write over REST with a key carries the
// station-principal trailer, so history answers by; the local owner of
// an open server stamps nothing.
func TestScopedWritesAreStamped(t *testing.T) {
	st := newStation(t, nil)
	r := st.post(keyScoped, "plant", `{"node":{"id":"concepts/stamped","type":"concept","title":"Stamped","summary":"S.","parent":"concepts/_index"}}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	h := ok(t, st.post(keyScoped, "history", `{"id":"concepts/stamped"}`))
	entries := h["entries"].([]any)
	require.NotEmpty(t, entries)
	assert.Equal(t, "svc-scoped", entries[0].(map[string]any)["by"])

	r = st.post(keyScoped, "ingest", `{"files":`+files(1)+`,"dest":"operations","wait":true}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	if git, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command(git, "-C", st.dir, "log", "-1", "--format=%(trailers:key=station-principal,valueonly)").Output()
		require.NoError(t, err)
		assert.Equal(t, "svc-scoped", strings.TrimSpace(string(out)), "an ingest job's commits carry its caller too")
	}

	open := newStation(t, func(o *rest.Options) { o.Keys = nil })
	r = open.post("", "plant", `{"node":{"id":"concepts/unstamped","type":"concept","title":"U","summary":"U.","parent":"concepts/_index"}}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	h = ok(t, open.post("", "history", `{"id":"concepts/unstamped"}`))
	var first map[string]any
	b, _ := json.Marshal(h["entries"].([]any)[0])
	require.NoError(t, json.Unmarshal(b, &first))
	assert.NotContains(t, first, "by")
}
