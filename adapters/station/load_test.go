// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/audit"
)

// TestAuditUnderLoad runs 50 clients against a Station with audit on,
// for 60 s under VINE_TEST_LONG=1 (.ci/run) and 2 s otherwise, and
// checks that every call was audited exactly once and no row was dropped.
// The latencies are logged, never asserted: speed is for benchmarks.
func TestAuditUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("50 clients against a Station")
	}
	span := 2 * time.Second
	if os.Getenv("VINE_TEST_LONG") == "1" {
		span = 60 * time.Second
	}
	ts := newTestStation(t, nil)
	owner := ts.owner()
	a := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "load", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read"}}})
	require.Equal(t, http.StatusOK, a.status, a.body)
	key := a.str("api_key")

	ctx, cancel := context.WithTimeout(context.Background(), span)
	defer cancel()
	var calls, failures atomic.Int64
	var mu sync.Mutex
	var laps []time.Duration
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for range 50 {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequest("POST", ts.url+"/v1/forests/"+forestID+"/look", strings.NewReader(`{"id":"concepts/tide"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				start := time.Now()
				res, err := client.Do(req)
				if err != nil {
					failures.Add(1)
					continue
				}
				res.Body.Close()
				lap := time.Since(start)
				calls.Add(1)
				if res.StatusCode != http.StatusOK {
					failures.Add(1)
				}
				mu.Lock()
				laps = append(laps, lap)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Zero(t, failures.Load())
	ts.settle()
	assert.Zero(t, ts.s.audit.Dropped(), "no audit row was dropped")
	page, err := ts.s.audit.Query(context.Background(), audit.Scope{Owner: true},
		audit.Filter{Principal: "load", Primitive: "look", Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, calls.Load(), page.Totals.Calls, "every call audited exactly once")
	slices.Sort(laps)
	t.Logf("%d calls from 50 clients in %v; p50 %v, p95 %v", calls.Load(), span,
		laps[len(laps)/2], laps[len(laps)*95/100])
}
