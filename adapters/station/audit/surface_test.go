// SPDX-License-Identifier: Apache-2.0

package audit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/audit"
	"github.com/monkeyllm/vine/internal/testforest"
)

// restOver serves the fixture forest over REST with rec as its Recorder
// (nil: no audit), every caller the local owner.
func restOver(t testing.TB, reg *vine.Registry, rec *audit.Log) *rest.Server {
	t.Helper()
	o := &rest.Options{}
	if rec != nil {
		o.Recorder = rec
	}
	srv := rest.New(reg, o)
	t.Cleanup(func() { srv.Close() })
	return srv
}

func look(t testing.TB, srv http.Handler) int {
	r := httptest.NewRequest(http.MethodPost, "/v1/forests/mare-alta/look", strings.NewReader(`{"id":"concepts/tide"}`))
	r.Host = "localhost"
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w.Code
}

// TestLockedTrailDoesNotHoldCalls: with the registry file locked by
// another connection, REST calls with the Log as their Recorder are all
// answered before the lock is released (an audit write never slows the
// act); afterwards every call is a row or a counted drop.
func TestLockedTrailDoesNotHoldCalls(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	l, db, file := newLog(t, &audit.Options{Queue: 4, Batch: 2})
	srv := restOver(t, reg, l)
	release := holdWriteLock(t, file)
	const n = 20
	for range n {
		require.Equal(t, http.StatusOK, look(t, srv))
	}
	// Every response is out and the file is still locked.
	assert.Positive(t, l.Dropped(), "the queue overflowed instead of waiting")
	release()
	require.NoError(t, l.Close())
	assert.Equal(t, int64(n), count(t, db)+l.Dropped(), "one row per call, written or counted")
}

// BenchmarkAuditedCall measures what the audit adds to a REST call: the
// same look, alternately on a surface without a Recorder and on one
// recording into a Log over a registry file, each latency kept; it
// reports the p50 and p95 of both and the p95 added (target < 1 ms).
func BenchmarkAuditedCall(b *testing.B) {
	dir, _ := testforest.Fixture(b)
	reg, err := vine.NewRegistry(dir, nil)
	require.NoError(b, err)
	b.Cleanup(func() { reg.Close() })
	l, _, _ := newLog(b, nil)
	plain, audited := restOver(b, reg, nil), restOver(b, reg, l)
	look(b, plain) // open the forest outside the clock
	var off, on []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		srv, into := plain, &off
		if i%2 == 1 {
			srv, into = audited, &on
		}
		start := time.Now()
		if look(b, srv) != http.StatusOK {
			b.Fatal("look failed")
		}
		*into = append(*into, time.Since(start))
	}
	b.StopTimer()
	require.NoError(b, l.Flush(context.Background()))
	if len(on) == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(pct(off, 50)), "p50-off-ms")
	b.ReportMetric(ms(pct(on, 50)), "p50-on-ms")
	b.ReportMetric(ms(pct(off, 95)), "p95-off-ms")
	b.ReportMetric(ms(pct(on, 95)), "p95-on-ms")
	b.ReportMetric(ms(pct(on, 95)-pct(off, 95)), "p95-added-ms")
	b.ReportMetric(float64(l.Dropped()), "dropped")
}

// BenchmarkRecord is the cost a Recorder puts on the caller's goroutine.
func BenchmarkRecord(b *testing.B) {
	l, _, _ := newLog(b, nil)
	c := record.Call{Principal: "p", Forest: "f", Primitive: "look", Args: record.Args{"id": "concepts/tide"}, Result: record.OK}
	for b.Loop() {
		l.Record(context.Background(), c)
	}
	b.StopTimer()
	b.ReportMetric(float64(l.Dropped()), "dropped")
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// BenchmarkWriter is the writer's sustained rate: b.N rows queued at
// once (none dropped), timed until the last is committed.
func BenchmarkWriter(b *testing.B) {
	l, _, _ := newLog(b, &audit.Options{Queue: max(b.N, 1)})
	c := record.Call{Principal: "p", Forest: "f", Primitive: "look", Args: record.Args{"id": "concepts/tide"}, Result: record.OK}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		l.Record(context.Background(), c)
	}
	require.NoError(b, l.Flush(context.Background()))
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rows/s")
	b.ReportMetric(float64(l.Dropped()), "dropped")
}
