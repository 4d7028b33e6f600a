// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/answer"
)

// walkerPause, when set, is called before each turn of the walker.
var walkerPause func(turn int)

// walker answers every walk in three turns, whatever came before: a
// sniff, a pick, then the answer.
var walker = answer.ModelFunc(func(_ context.Context, msgs []answer.Message, _ int) (*answer.Reply, error) {
	turns := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			turns++
		}
	}
	if walkerPause != nil {
		walkerPause(turns)
	}
	replies := []string{
		`{"tool":"sniff","args":{"terms":["2.5"]}}`,
		`{"tool":"pick","args":{"id":"projects/tidewatch/alert-thresholds"}}`,
		`{"tool":"answer","args":{"text":"Above 2.5 m [projects/tidewatch/alert-thresholds]","answer_nodes":["projects/tidewatch/alert-thresholds"]}}`,
	}
	return &answer.Reply{Content: replies[min(turns, len(replies)-1)]}, nil
})

var registerAnswer sync.Once

// TestAnswerRunEvents watches a walk named by a run id: retrieval is not
// sent for a walk, every hop is, then done; another key sees nothing.
func TestAnswerRunEvents(t *testing.T) {
	registerAnswer.Do(func() {
		_, err := answer.Register(walker, nil)
		require.NoError(t, err)
	})
	st := newStation(t, nil)
	srv := httptest.NewServer(st.srv)
	defer srv.Close()

	got := make(chan []string, 1)
	watch := func(key string) {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/forests/"+forestID+"/answer/walk-1/events", nil)
		req.Host = localHost
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		var names []string
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				names = append(names, name)
			}
		}
		got <- names
	}
	// Nobody runs walk-1 yet: the stream closes at once.
	watch(keyFull)
	assert.Empty(t, <-got)

	// A walk paused after its first hop: the watcher sees that hop, the
	// walk goes on, and the watcher sees the second hop and done.
	release := make(chan struct{})
	walkerPause = func(turn int) {
		if turn == 1 {
			<-release
		}
	}
	defer func() { walkerPause = nil }()
	done := make(chan reply, 1)
	go func() {
		done <- st.post(keyFull, "answer", `{"question":"what are the storm alert thresholds?","hops":4,"run":"walk-1"}`)
	}()
	live := make(chan string, 16)
	go func() {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/forests/"+forestID+"/answer/walk-1/events", nil)
		req.Host = localHost
		req.Header.Set("Authorization", "Bearer "+keyFull)
		for {
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				close(live)
				return
			}
			sc := bufio.NewScanner(res.Body)
			saw := false
			for sc.Scan() {
				if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
					live <- name
					saw = true
				}
			}
			res.Body.Close()
			if saw {
				close(live)
				return
			}
			// The run had not started yet: ask again.
		}
	}()
	assert.Equal(t, "hop", <-live, "the first hop, while the walk waits")
	watch(keyRead)
	assert.Empty(t, <-got, "another key does not see the run")
	close(release)
	var rest []string
	for name := range live {
		rest = append(rest, name)
	}
	assert.Equal(t, []string{"hop", "done"}, rest)
	res := <-done
	require.Equal(t, http.StatusOK, res.status, res.body)
	assert.Contains(t, res.body, `"hops":[`)
	// The run is over: its stream closes at once, for its key and others.
	watch(keyFull)
	assert.Empty(t, <-got)
}
