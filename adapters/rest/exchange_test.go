// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/rest"
)

// syncBuffer is a log sink the server may write from any goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines decodes the JSON log lines written so far.
func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	return out
}

func TestAccessLog(t *testing.T) {
	var sink syncBuffer
	st := newStation(t, func(o *rest.Options) { o.AccessLog = slog.New(slog.NewJSONHandler(&sink, nil)) })

	r := httpRequest(http.MethodPost, "/v1/forests/mare-alta/locate")
	r.Header.Set("Authorization", "Bearer "+keyRead)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(rest.RequestIDHeader, "trace-42")
	r.Body = ioBody(`{"query":"tide"}`)
	got := serve(st, r)
	require.Equal(t, http.StatusOK, got.status, got.body)
	assert.Equal(t, "trace-42", got.header.Get(rest.RequestIDHeader), "a caller's id is echoed")

	refusal := st.post(keyRead, "prune", `{"id":"concepts/tide"}`)
	made := refusal.header.Get(rest.RequestIDHeader)
	assert.Regexp(t, `^[0-9a-f]{16}$`, made, "one is made when none is sent")
	st.do(http.MethodGet, "/v1/forests", "mk_wrong", "")

	bad := httpRequest(http.MethodGet, "/v1/health")
	bad.Header.Set(rest.RequestIDHeader, "two words\n")
	assert.NotEqual(t, "two words\n", serve(st, bad).header.Get(rest.RequestIDHeader), "an unprintable id is replaced")

	lines := sink.lines(t)
	require.Len(t, lines, 4)
	first := lines[0]
	assert.Equal(t, "request", first["msg"])
	assert.Equal(t, "trace-42", first["request_id"])
	assert.Equal(t, "locate", first["tool"])
	assert.Equal(t, "reader", first["principal"], "the key's principal")
	assert.Equal(t, float64(200), first["status"])
	assert.Equal(t, "POST", first["method"])
	assert.Contains(t, first, "ms")
	assert.NotContains(t, first, "code")

	assert.Equal(t, made, lines[1]["request_id"])
	assert.Equal(t, "prune", lines[1]["tool"])
	assert.Equal(t, float64(403), lines[1]["status"])
	assert.Equal(t, "E_FORBIDDEN", lines[1]["code"])

	assert.Equal(t, "forests", lines[2]["tool"])
	assert.Equal(t, "", lines[2]["principal"], "no key, no principal")
	assert.Equal(t, float64(401), lines[2]["status"])
	for _, l := range lines {
		assert.NotContains(t, l, "authorization")
		b, _ := json.Marshal(l)
		assert.NotContains(t, string(b), keyRead, "keys are never logged")
		assert.NotContains(t, string(b), "tide", "bodies are never logged")
	}
}

func TestIngestAnswersWithLocation(t *testing.T) {
	st := newStation(t, nil)
	r := st.post(keyFull, "ingest", `{"files":`+files(1)+`,"dest":"operations"}`)
	require.Equal(t, http.StatusAccepted, r.status, r.body)
	loc := r.header.Get("Location")
	id := jobOf(t, r)["id"].(string)
	assert.Equal(t, "/v1/forests/mare-alta/jobs/"+id, loc)
	assert.Equal(t, id, jobOf(t, st.do(http.MethodGet, loc, keyFull, ""))["id"], "the Location reads the job")

	waited := st.post(keyFull, "ingest", `{"files":`+files(1)+`,"dest":"operations","wait":true}`)
	for waited.status == http.StatusConflict { // the first batch still running
		waited = st.post(keyFull, "ingest", `{"files":`+files(1)+`,"dest":"operations","wait":true}`)
	}
	require.Equal(t, http.StatusOK, waited.status, waited.body)
	assert.Empty(t, waited.header.Get("Location"), "a finished job is the answer itself")
}
