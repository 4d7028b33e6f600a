// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/testforest"
)

// echoCurator answers every node with one fixed scent.
type echoCurator struct{ calls int }

func (c *echoCurator) Curate(_ context.Context, in gardener.CurateInput) (*gardener.CurateOutput, error) {
	c.calls++
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

func TestRecurateRouteScent(t *testing.T) {
	cur := &echoCurator{}
	st := newStation(t, func(o *rest.Options) { o.Gardener = &gardener.Options{Curator: cur} })
	got := ok(t, st.do(http.MethodPost, "/v1/admin/recurate", keyFull, `{"forest":"`+forestID+`","derive":["scent"]}`))
	assert.Positive(t, cur.calls, "the fixture has ingested nodes")
	assert.EqualValues(t, cur.calls, got["planned"], "every planned node was asked")
	updated, _ := got["updated"].([]any)
	assert.Len(t, updated, cur.calls, "each node the model re-summarised is committed")
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
