// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/testforest"
)

// echoCurator answers every node with one fixed scent.
type echoCurator struct{ calls atomic.Int32 }

func (c *echoCurator) Curate(_ context.Context, in gardener.CurateInput) (*gardener.CurateOutput, error) {
	c.calls.Add(1)
	return &gardener.CurateOutput{Summary: "Recurated: " + in.Title + ".", Stats: gardener.CurateStats{LLMSummaries: 1}}, nil
}

func TestRecurateRoute(t *testing.T) {
	st := newStation(t, nil)
	body := `{"forest":"` + forestID + `","derive":["aliases"]}`
	got := ok(t, st.do(http.MethodPost, "/v1/admin/recurate", keyFull, body))
	assert.Equal(t, forestID, got["forest"])
	assert.Contains(t, got, "updated")

	testforest.Unchanged(t, st.dir, func() {
		e := envelope(t, st.do(http.MethodPost, "/v1/admin/recurate", keyFull, `{"forest":"`+forestID+`","derive":["scent"]}`),
			http.StatusBadRequest, vine.ESchema)
		assert.Contains(t, e["message"], "needs a bound model")
		e = envelope(t, st.do(http.MethodPost, "/v1/admin/recurate", keyFull, `{"forest":"`+forestID+`","derive":["origin"]}`),
			http.StatusBadRequest, vine.ESchema)
		assert.Contains(t, e["hint"], `accepted: ["aliases", "scent"]`)
		envelope(t, st.do(http.MethodPost, "/v1/admin/recurate", keyFull, `{"forest":"`+forestID+`"}`), http.StatusBadRequest, vine.ESchema)
		envelope(t, st.do(http.MethodPost, "/v1/admin/recurate", keyRead, body), http.StatusForbidden, vine.EForbidden)
		e = envelope(t, st.do(http.MethodPost, "/v1/admin/recurate", keyScoped, body), http.StatusForbidden, vine.EForbidden)
		assert.NotEmpty(t, e["message"])
	})
}

// TestRecurateRouteScent: a scent recurate runs as an ingest job
// (J.13.6.1): 202 with the job, whose total, the bill, is known before
// the first model call; the finished job lists every re-summarised node.
func TestRecurateRouteScent(t *testing.T) {
	cur := &echoCurator{}
	st := newStation(t, func(o *rest.Options) { o.Gardener = &gardener.Options{Curator: cur} })
	r := st.do(http.MethodPost, "/v1/admin/recurate", keyFull, `{"forest":"`+forestID+`","derive":["scent","aliases"]}`)
	require.Equal(t, http.StatusAccepted, r.status, r.body)
	started := jobOf(t, r)
	assert.Equal(t, "recurate", started["mode"])
	total := started["total"].(float64)
	assert.Positive(t, total, "the fixture has ingested nodes: the bill")
	assert.Contains(t, r.body, `"updated":`, "aliases ran while the caller waited")

	var done map[string]any
	require.Eventually(t, func() bool { // a wait for the job, not a measure of it
		done = jobOf(t, st.do(http.MethodGet, "/v1/forests/"+forestID+"/jobs/"+started["id"].(string), keyFull, ""))
		return done["state"] != "running"
	}, time.Minute, 10*time.Millisecond)
	require.Equal(t, "done", done["state"], done)
	report := done["report"].(map[string]any)
	assert.EqualValues(t, total, cur.calls.Load(), "every planned node was asked")
	updated, _ := report["updated"].([]any)
	assert.Len(t, updated, int(total), "each node the model re-summarised is committed")
	assert.Nil(t, report["rollup"], "a scent recurate leaves branches alone")
}

func TestRecurateRouteReadOnly(t *testing.T) {
	dir, man := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer reg.Close()
	srv := rest.New(reg, &rest.Options{Keys: testKeys()})
	defer srv.Close()
	st := &station{t: t, dir: dir, man: man, reg: reg, srv: srv}
	testforest.Unchanged(t, dir, func() {
		envelope(t, st.do(http.MethodPost, "/v1/admin/recurate", keyFull, `{"forest":"`+forestID+`","derive":["aliases"]}`),
			http.StatusForbidden, vine.EReadOnly)
	})
}

// An ingest job with a model Curator bound rolls up the branches at
// finish and says so in its report (J.8, J.9).
func TestIngestJobRollsUpWithABoundCurator(t *testing.T) {
	cur := &echoCurator{}
	st := newStation(t, func(o *rest.Options) { o.Gardener = &gardener.Options{Curator: cur} })
	r := st.post(keyFull, "ingest", `{"files":[{"name":"deck/rope.md","text":"# Rope\n\nRope care."}],"dest":"operations","wait":true}`)
	report := jobReportOf(t, r)
	assert.Equal(t, true, report["bound"])
	assert.Equal(t, true, report["curated"], "the Curator wrote the summary")
	roll, _ := report["rollup"].(map[string]any)
	require.NotNil(t, roll, "a rollup ran at finish: %s", r.body)
	curation, _ := report["curation"].(map[string]any)
	assert.Positive(t, curation["branch_fallbacks"], "no branch curator: the region summary, counted")

	plain := newStation(t, nil)
	r = plain.post(keyFull, "ingest", `{"files":[{"name":"deck/rope.md","text":"# Rope\n\nRope care."}],"dest":"operations","wait":true}`)
	report = jobReportOf(t, r)
	assert.Nil(t, report["rollup"], "no model bound, no rollup")
	assert.Equal(t, false, report["bound"])
}

func jobReportOf(t *testing.T, r reply) map[string]any {
	t.Helper()
	job, _ := ok(t, r)["job"].(map[string]any)
	report, _ := job["report"].(map[string]any)
	require.NotNil(t, report, r.body)
	return report
}
