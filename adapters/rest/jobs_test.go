// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/monkeyllm/vine/internal/testforest"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/gardener"
)

// gate holds every curated draft until released: a batch made slow on
// purpose, to be seen running.
type gate struct {
	once    sync.Once
	release chan struct{}
	entered chan struct{}
}

func newGate() *gate { return &gate{release: make(chan struct{}), entered: make(chan struct{}, 64)} }

func (g *gate) hook(ctx context.Context, _ *gardener.Draft) error {
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return nil
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

func files(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`{"name":"note-%d.md","text":"# Note %d\n\nHarbour notes number %d."}`, i, i, i))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func jobOf(t *testing.T, r reply) map[string]any {
	t.Helper()
	var m struct {
		Job map[string]any `json:"job"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.body), &m), r.body)
	require.NotNil(t, m.Job, r.body)
	return m.Job
}

func TestIngestWaitsWhenAsked(t *testing.T) {
	st := newStation(t, nil)
	before := testforest.Head(t, st.dir)
	r := st.post(keyFull, "ingest", `{"files":`+files(2)+`,"dest":"operations","wait":true}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	j := jobOf(t, r)
	assert.Regexp(t, `^ing-[0-9a-f]{8}$`, j["id"])
	assert.Equal(t, "done", j["state"])
	assert.Equal(t, "upload", j["mode"])
	assert.Equal(t, float64(2), j["done"])
	assert.Equal(t, float64(2), j["total"])
	assert.Nil(t, j["current"])
	rep := j["report"].(map[string]any)
	assert.Len(t, rep["planted"], 2)
	assert.Equal(t, before, rep["commit_before"])
	assert.Equal(t, testforest.Head(t, st.dir), rep["commit"])
	assert.NotEqual(t, before, rep["commit"])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, j["finished"])
	planted := rep["planted"].([]any)[0].(string)
	assert.True(t, strings.HasPrefix(planted, "operations/"), planted)
	ok(t, st.post(keyRead, "look", `{"id":"`+planted+`"}`))

	got := ok(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs/"+j["id"].(string), keyFull, ""))
	assert.Equal(t, "done", got["job"].(map[string]any)["state"])
	list := ok(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs", keyFull, ""))
	assert.Len(t, list["jobs"], 1)
	assert.Nil(t, list["truncated"])
}

func TestIngestRunsAsAJob(t *testing.T) {
	g := newGate()
	st := newStation(t, func(o *rest.Options) {
		o.Gardener = &gardener.Options{Hooks: []gardener.NamedHook{{Name: "gate", Hook: g.hook}}}
	})
	t.Cleanup(g.open)
	r := st.post(keyFull, "ingest", `{"files":`+files(3)+`,"dest":"operations"}`)
	require.Equal(t, http.StatusAccepted, r.status, r.body)
	j := jobOf(t, r)
	id := j["id"].(string)
	assert.Equal(t, "running", j["state"])
	assert.Equal(t, float64(3), j["total"])
	<-g.entered

	running := jobOf(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs/"+id, keyFull, ""))
	assert.Equal(t, "running", running["state"])
	assert.NotNil(t, running["current"], "the document in hand")
	assert.Equal(t, "curate", running["stage"])

	e := envelope(t, st.post(keyFull, "ingest", `{"files":`+files(1)+`}`), http.StatusConflict, vine.ELocked)
	assert.Contains(t, e["message"], id, "a second batch names the running one")
	ok(t, st.post(keyRead, "locate", `{"query":"tide"}`)) // reads go on meanwhile

	cancel := jobOf(t, st.do(http.MethodPost, "/v1/forests/mare-alta/jobs/"+id+"/cancel", keyFull, ""))
	assert.Equal(t, "running", cancel["state"], "honoured at the next step boundary")
	g.open()
	final := waitJob(t, st, id)
	assert.Equal(t, "cancelled", final["state"])
	assert.Equal(t, float64(1), final["done"], "the document in hand finished whole; no other began")
	assert.Len(t, final["report"].(map[string]any)["planted"], 1)

	again := jobOf(t, st.do(http.MethodPost, "/v1/forests/mare-alta/jobs/"+id+"/cancel", keyFull, ""))
	assert.Equal(t, "cancelled", again["state"], "cancelling a finished job changes nothing")
	r = st.post(keyFull, "ingest", `{"files":`+files(1)+`,"wait":true}`)
	assert.Equal(t, http.StatusOK, r.status, "the forest is free again: %s", r.body)
}

func waitJob(t *testing.T, st *station, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		j := jobOf(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs/"+id, keyFull, ""))
		if j["state"] != "running" {
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s never finished", id)
	return nil
}

func TestIngestRefusals(t *testing.T) {
	st := newStation(t, nil)
	b64 := base64.StdEncoding.EncodeToString([]byte("# Bytes\n\nSent as base64."))
	cases := []struct {
		name, key, body string
		status          int
		code            vine.Code
		message         string
	}{
		{"unknown mode", keyFull, `{"mode":"compost"}`, http.StatusBadRequest, vine.ESchema, "expected one of upload, adopt, sync, compose"},
		{"upload without files", keyFull, `{}`, http.StatusBadRequest, vine.ESchema, "needs parameter 'files'"},
		{"text and b64", keyFull, `{"files":[{"name":"a.md","text":"x","b64":"` + b64 + `"}]}`, http.StatusBadRequest, vine.ESchema, "files[0] needs exactly one"},
		{"bad b64", keyFull, `{"files":[{"name":"a.md","b64":"not base64!"}]}`, http.StatusBadRequest, vine.ESchema, "files[0] 'b64' is not standard base64"},
		{"unknown entry key", keyFull, `{"files":[{"name":"a.md","text":"x","colour":"red"}]}`, http.StatusBadRequest, vine.ESchema, "unknown key 'colour'"},
		{"absolute name", keyFull, `{"files":[{"name":"/etc/x.md","text":"x"}]}`, http.StatusBadRequest, vine.ESchema, "absolute"},
		{"no ingest cap", keyRead, `{"files":` + files(1) + `}`, http.StatusForbidden, vine.EForbidden, "ingest needs the ingest capability"},
		{"adopt without admin", keyScoped, `{"mode":"adopt","path":"/tmp"}`, http.StatusForbidden, vine.EForbidden, "needs the admin capability"},
		{"adopt without roots", keyFull, `{"mode":"adopt","path":"/tmp"}`, http.StatusForbidden, vine.EForbidden, "MONKEYLLM_INGEST_ROOTS"},
		{"scoped without dest", keyScoped, `{"files":` + files(1) + `}`, http.StatusBadRequest, vine.ESchema, "'dest' is required"},
		{"scoped dest outside", keyScoped, `{"files":` + files(1) + `,"dest":"people"}`, http.StatusForbidden, vine.EForbidden, "outside this key's grant"},
		{"scoped dest denied", keyScoped, `{"files":` + files(1) + `,"dest":"projects/lighthouse/_index"}`, http.StatusForbidden, vine.EForbidden, "outside this key's grant"},
		{"scoped sync", keyDeny, `{"mode":"sync"}`, http.StatusForbidden, vine.EForbidden, "needs the admin capability"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testforest.Unchanged(t, st.dir, func() {
				e := envelope(t, st.post(c.key, "ingest", c.body), c.status, c.code)
				assert.Contains(t, e["message"], c.message)
			})
		})
	}
	list := ok(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs", keyFull, ""))
	assert.Empty(t, list["jobs"], "a refused batch leaves no job")
}

func TestScopedIngestAndJobVisibility(t *testing.T) {
	st := newStation(t, nil)
	r := st.post(keyScoped, "ingest", `{"files":[{"name":"shift.md","b64":"`+
		base64.StdEncoding.EncodeToString([]byte("# Shift\n\nNight shift plan."))+`"}],"dest":"operations/","wait":true}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	j := jobOf(t, r)
	assert.Equal(t, "done", j["state"])
	planted := j["report"].(map[string]any)["planted"].([]any)
	require.Len(t, planted, 1)
	assert.True(t, strings.HasPrefix(planted[0].(string), "operations/"))

	id := j["id"].(string)
	ok(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs/"+id, keyScoped, ""))
	ok(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs/"+id, keyFull, "")) // the whole forest's admin sees every job
	e := envelope(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs/"+id, keyDeny, ""), http.StatusNotFound, vine.ENotFound)
	assert.Equal(t, "job not found: "+id, e["message"], "another principal's job reads as unknown")
	assert.Empty(t, ok(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs", keyDeny, ""))["jobs"])
	envelope(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs", keyRead, ""), http.StatusForbidden, vine.EForbidden)
	envelope(t, st.do(http.MethodGet, "/v1/forests/mare-alta/jobs/ing-00000000", keyFull, ""), http.StatusNotFound, vine.ENotFound)

	// A name already recorded for a node the key cannot see would refresh
	// that node: refused, naming the file only.
	full := st.post(keyFull, "ingest", `{"files":[{"name":"roster.md","text":"# Roster\n\nWho sails."}],"dest":"people","wait":true}`)
	require.Equal(t, http.StatusOK, full.status, full.body)
	testforest.Unchanged(t, st.dir, func() {
		e := envelope(t, st.post(keyScoped, "ingest", `{"files":[{"name":"roster.md","text":"# Roster\n\nChanged."}],"dest":"operations"}`),
			http.StatusBadRequest, vine.ESchema)
		assert.Contains(t, e["message"], `files[0] name "roster.md" is taken`)
		assert.NotContains(t, e["message"].(string)+e["hint"].(string), "people/")
	})
}
