// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/rest"
)

// sample reads one sample of a scrape, 0 when absent.
func sample(t *testing.T, scrape, series string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(scrape)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return v
}

func scrape(t *testing.T, st *station) string {
	t.Helper()
	r := st.do(http.MethodGet, "/v1/metrics", "", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	return r.body
}

func TestMetricsMove(t *testing.T) {
	reg := prometheus.NewRegistry()
	st := newStation(t, func(o *rest.Options) { o.Metrics = reg })
	before := scrape(t, st)
	assert.Equal(t, 0.0, sample(t, before, `vine_rest_requests_total{status="200",tool="locate"}`))

	for range 3 {
		ok(t, st.post(keyRead, "locate", `{"query":"tide"}`))
	}
	st.post(keyRead, "prune", `{"id":"concepts/tide"}`)
	st.post(keyFull, "look", `{"id":"concepts/no-such"}`)
	ok(t, st.post(keyFull, "look", `{"id":"concepts/tide"}`))
	jobOf(t, st.post(keyFull, "ingest", `{"files":`+files(1)+`,"dest":"operations","wait":true}`))

	after := scrape(t, st)
	assert.Equal(t, 3.0, sample(t, after, `vine_rest_requests_total{status="200",tool="locate"}`))
	assert.Equal(t, 3.0, sample(t, after, `vine_rest_request_duration_seconds_count{tool="locate"}`), "the latency histogram per primitive")
	assert.Greater(t, sample(t, after, `vine_rest_request_duration_seconds_sum{tool="locate"}`), 0.0)
	assert.Equal(t, 1.0, sample(t, after, `vine_rest_refusals_total{code="E_FORBIDDEN"}`))
	assert.Equal(t, 1.0, sample(t, after, `vine_rest_refusals_total{code="E_NOT_FOUND"}`))
	assert.GreaterOrEqual(t, sample(t, after, `vine_rest_lane_wait_seconds_count{lane="read"}`), 4.0, "every read waits for a reader, if only for nothing")
	assert.GreaterOrEqual(t, sample(t, after, `vine_rest_lane_wait_seconds_count{lane="write"}`), 1.0, "ingest takes the writer lock")
	assert.Equal(t, 1.0, sample(t, after, `vine_rest_jobs{state="done"}`))
	assert.Equal(t, 0.0, sample(t, after, `vine_rest_readers_in_use`), "none between calls")
	assert.Contains(t, after, "vine_rest_readers_in_use ")
	assert.NotContains(t, after, forestID, "no forest names a label")
	assert.NotContains(t, after, "concepts/", "no node names a label")

	// A host's own registry: its collectors are served beside the server's.
	own := prometheus.NewCounter(prometheus.CounterOpts{Name: "host_things_total", Help: "the host's own."})
	reg.MustRegister(own)
	own.Inc()
	assert.Equal(t, 1.0, sample(t, scrape(t, st), "host_things_total"))

	assert.Equal(t, http.StatusNotFound, newStation(t, nil).do(http.MethodGet, "/v1/metrics", "", "").status,
		"no metrics without the option")
}

func TestTwoServersShareARegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := newStation(t, func(o *rest.Options) { o.Metrics = reg })
	b := newStation(t, func(o *rest.Options) { o.Metrics = reg })
	ok(t, a.post(keyRead, "locate", `{"query":"tide"}`))
	ok(t, b.post(keyRead, "locate", `{"query":"tide"}`))
	assert.Equal(t, 2.0, sample(t, scrape(t, a), `vine_rest_requests_total{status="200",tool="locate"}`))
}
