// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sync"

	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/harvest"
)

// Live answer events (spec 05 §6.11, J.10.12): a call to answer that
// names a run may be watched, by the same key, at GET
// /v1/forests/{forest}/answer/{run}/events, a server-sent event stream of
// retrieval (the response's harvest), each hop (the response's hops[n])
// and done. The events carry nothing the answer does not; emitting one
// never blocks the answer (the run keeps at most maxRunEvents); an
// unknown or finished run's stream closes at once; the stream is never
// the answer.

// maxRunEvents bounds what a run keeps for its watchers: retrieval, the
// largest hop budget and done, with room to spare.
const maxRunEvents = 32

// runName is what a run id may be.
var runName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// runEvent is one server-sent event.
type runEvent struct {
	name string
	data []byte
}

// run is one answer call being watched.
type run struct {
	mu     sync.Mutex
	events []runEvent
	done   bool
	wake   chan struct{} // closed and replaced on every event
}

func newRun() *run { return &run{wake: make(chan struct{})} }

// emit appends an event unless the run is full or done; it never waits.
func (r *run) emit(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || len(r.events) >= maxRunEvents {
		return
	}
	r.events = append(r.events, runEvent{name: name, data: data})
	close(r.wake)
	r.wake = make(chan struct{})
}

// finish appends done and closes the run.
func (r *run) finish() {
	r.emit("done", map[string]bool{"done": true})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	close(r.wake)
	r.wake = make(chan struct{})
}

// from returns the events from index i on, whether the run is done, and
// a channel closed at the next change.
func (r *run) from(i int) ([]runEvent, bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[min(i, len(r.events)):], r.done, r.wake
}

// runs are the answer calls being watched, by key digest, forest and run
// id, so only the key that started a run can watch it.
type runs struct {
	mu sync.Mutex
	m  map[string]*run
}

func runKey(secret, forest, id string) string {
	return keys.Digest(secret) + "\x00" + forest + "\x00" + id
}

// start registers a run for the duration of one call and returns the
// context carrying its observers and the function that ends it. A run id
// already in use by the same key is not watched twice: the later call
// runs unwatched.
func (rs *runs) start(ctx context.Context, secret, forest, id string) (context.Context, func()) {
	k := runKey(secret, forest, id)
	rs.mu.Lock()
	if rs.m == nil {
		rs.m = map[string]*run{}
	}
	if _, busy := rs.m[k]; busy {
		rs.mu.Unlock()
		return ctx, func() {}
	}
	r := newRun()
	rs.m[k] = r
	rs.mu.Unlock()
	ctx = answer.WithObservers(ctx, answer.Observers{
		OnRetrieval: func(h *harvest.Result) { r.emit("retrieval", h) },
		OnHop:       func(h answer.Hop) { r.emit("hop", h) },
	})
	return ctx, func() {
		r.finish()
		rs.mu.Lock()
		delete(rs.m, k)
		rs.mu.Unlock()
	}
}

// get is the run of that key, forest and id, nil when none runs.
func (rs *runs) get(secret, forest, id string) *run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.m[runKey(secret, forest, id)]
}

// answerRun is the run id an answer call's body names, "" when none (or
// when it is no valid id: the call's own validation then answers).
func answerRun(body []byte) string {
	var a struct {
		Run string `json:"run"`
	}
	if json.Unmarshal(body, &a) != nil || !runName.MatchString(a.Run) {
		return ""
	}
	return a.Run
}

// answerEvents serves GET /v1/forests/{forest}/answer/{run}/events.
func (s *Server) answerEvents(w http.ResponseWriter, r *http.Request) {
	const op = "answer-events"
	who := callerOf(r.Context())
	id, _, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	flush := func() { _ = rc.Flush() }
	flush()
	rn := s.runs.get(wire.Secret(r.Header), id, r.PathValue("run"))
	if rn == nil {
		return // unknown or finished: the stream closes at once
	}
	for i := 0; ; {
		events, done, wake := rn.from(i)
		for _, e := range events {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
		}
		i += len(events)
		flush()
		if done {
			return
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		}
	}
}
