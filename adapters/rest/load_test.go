// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadReadersAndAWriter drives the server over loopback with 8
// concurrent readers and 1 writer, and fails on any error. It runs 3 s by
// default; VINE_LOAD=1 runs the 30 s of the issue and logs p50/p99 of the
// reads (go test -run TestLoad -v ./adapters/rest).
func TestLoadReadersAndAWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("a timed load")
	}
	d := 3 * time.Second
	if os.Getenv("VINE_LOAD") == "1" {
		d = 30 * time.Second
	}
	s, _ := pooled(t, 4)
	srv := httptest.NewServer(s)
	defer srv.Close()
	post := func(name, body string) (int, error) {
		resp, err := srv.Client().Post(srv.URL+"/v1/forests/mare-alta/"+name, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	reads := []struct{ name, body string }{
		{"locate", `{"query":"storm alert thresholds"}`},
		{"look", `{"id":"concepts/tide"}`},
		{"sniff", `{"terms":["radio"],"k":3}`},
		{"scan", `{"parent_id":"projects/_index"}`},
		{"pick", `{"id":"concepts/tide"}`},
	}
	stop := time.Now().Add(d)
	var mu sync.Mutex
	var lat []time.Duration
	var failures atomic.Int64
	var wg sync.WaitGroup
	for r := range 8 {
		wg.Go(func() {
			for i := r; time.Now().Before(stop); i++ {
				c := reads[i%len(reads)]
				start := time.Now()
				code, err := post(c.name, c.body)
				took := time.Since(start)
				if err != nil || code != http.StatusOK {
					failures.Add(1)
					t.Errorf("%s: %d %v", c.name, code, err)
					continue
				}
				mu.Lock()
				lat = append(lat, took)
				mu.Unlock()
			}
		})
	}
	writes := 0
	wg.Go(func() {
		for i := 0; time.Now().Before(stop); i++ {
			code, err := post("plant", fmt.Sprintf(`{"node":{"id":"concepts/load-%d","type":"concept","title":"Load %d",`+
				`"summary":"A node planted under load.","parent":"concepts/_index"}}`, i, i))
			if err != nil || code != http.StatusOK {
				failures.Add(1)
				t.Errorf("plant: %d %v", code, err)
				continue
			}
			writes++
		}
	})
	wg.Wait()
	require.Zero(t, failures.Load())
	require.NotEmpty(t, lat)
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	t.Logf("%s: %d reads (p50 %v, p99 %v), %d writes", d, len(lat), p(0.50), p(0.99), writes)
	assert.Positive(t, writes, "the writer made progress beside the readers")
}
