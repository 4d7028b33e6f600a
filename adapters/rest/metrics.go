// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the Prometheus collectors of one Server. Labels name
// routes, primitives, statuses, codes and lanes only: never a forest, a
// node or a key, so a scrape tells no more than health does.
type metrics struct {
	reg       *prometheus.Registry
	latency   *prometheus.HistogramVec // tool
	requests  *prometheus.CounterVec   // tool, status
	refusals  *prometheus.CounterVec   // code
	laneWaits *prometheus.HistogramVec // lane
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{reg: reg}
	m.latency = register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "vine_rest_request_duration_seconds", Help: "REST request latency by route or primitive.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16)}, []string{"tool"}))
	m.requests = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vine_rest_requests_total", Help: "REST requests by route or primitive and status."}, []string{"tool", "status"}))
	m.refusals = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vine_rest_refusals_total", Help: "REST refusals by envelope code."}, []string{"code"}))
	m.laneWaits = register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "vine_rest_lane_wait_seconds", Help: "Time a call waited for its lane: a free reader, or the forest's writer lock.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"lane"}))
	return m
}

// register adds c to reg, or returns the collector of the same
// description a previous Server registered there, so two servers on one
// registry share their counts instead of panicking. (The gauges read
// at scrape time, readers and jobs, then report the first server's.)
func register[C prometheus.Collector](reg *prometheus.Registry, c C) C {
	if err := reg.Register(c); err != nil {
		if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
			if prev, ok := are.ExistingCollector.(C); ok {
				return prev
			}
		}
	}
	return c
}

// watch adds the gauges read from the server's own state at each scrape:
// readers in use, and job records by state.
func (m *metrics) watch(l *lanes, js *jobs) {
	l.waited = func(lane string, d time.Duration) { m.laneWaits.WithLabelValues(lane).Observe(d.Seconds()) }
	m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "vine_rest_readers_in_use", Help: "Read-only instances running a call now."},
		func() float64 { return float64(l.inUse.Load()) }))
	m.reg.Register(jobsCollector{js})
}

// observe counts one finished exchange.
func (m *metrics) observe(x *exchange, d time.Duration) {
	tool := x.op
	if tool == "" {
		tool = "none" // refused before routing, or no route
	}
	m.latency.WithLabelValues(tool).Observe(d.Seconds())
	m.requests.WithLabelValues(tool, strconv.Itoa(x.status)).Inc()
	if x.code != "" {
		m.refusals.WithLabelValues(string(x.code)).Inc()
	}
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

var jobsDesc = prometheus.NewDesc("vine_rest_jobs", "Ingest job records kept in memory, by state.", []string{"state"}, nil)

// jobsCollector reports the job records at scrape time.
type jobsCollector struct{ js *jobs }

func (c jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc }

func (c jobsCollector) Collect(ch chan<- prometheus.Metric) {
	for state, n := range c.js.states() {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), state)
	}
}

// metricsRoute serves the registry without a key, like health.
func (s *Server) metricsRoute(w http.ResponseWriter, r *http.Request) {
	s.metrics.handler().ServeHTTP(w, r)
}
