// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/ext"
)

// The events seam (spec 11 §3): after an act succeeded, the extensions
// its forest enables hear exactly a webhook's rationed payload, with the
// title and summary the act held as metadata. Delivery is asynchronous
// through a bounded queue, so an event never slows or fails its act; a
// full queue drops the event and counts it (11 §12.11, decided here).
// Deployment events, which belong to no forest, are not delivered.

// extEventQueue is how many events may wait for delivery.
const extEventQueue = 1024

type extEvents struct {
	ch      chan vine.HookEvent
	dropped atomic.Int64
	wg      sync.WaitGroup

	mu     sync.RWMutex // held to send; taken whole to close
	closed bool
}

func (s *Server) startExtEvents() {
	s.extEv = &extEvents{ch: make(chan vine.HookEvent, extEventQueue)}
	s.extEv.wg.Add(1)
	go func() {
		defer s.extEv.wg.Done()
		for e := range s.extEv.ch {
			s.deliverExtEvent(e)
		}
	}()
}

func (s *Server) stopExtEvents() {
	if s.extEv == nil {
		return
	}
	s.extEv.mu.Lock()
	if !s.extEv.closed {
		s.extEv.closed = true
		close(s.extEv.ch)
	}
	s.extEv.mu.Unlock()
	s.extEv.wg.Wait()
}

// extEvent queues e for the extensions of its forest.
func (s *Server) extEvent(e vine.HookEvent) {
	if s.extEv == nil || e.Forest == "" {
		return
	}
	s.extEv.mu.RLock()
	defer s.extEv.mu.RUnlock()
	if s.extEv.closed {
		return
	}
	select {
	case s.extEv.ch <- e:
	default:
		if n := s.extEv.dropped.Add(1); n == 1 || n%100 == 0 {
			s.log.Warn("station: extension event queue full; events dropped", "dropped", n)
		}
	}
}

func (s *Server) deliverExtEvent(e vine.HookEvent) {
	params := map[string]any{"event": e.Name, "forest": e.Forest, "principal": e.Principal, "data": e.Data}
	if e.Meta != nil {
		params["metadata"] = map[string]string{"title": e.Meta.Title, "summary": e.Meta.Summary}
	}
	call := ext.Call{Forest: e.Forest, Principal: e.Principal}
	for _, w := range s.loadFor(e.Forest) {
		for _, h := range w.Manifest().Contributes.Events {
			if _, err := w.Call(context.Background(), call, ext.SeamEvents, h.HandlerName(), params); err != nil {
				s.log.Warn("station: extension events handler failed", "ext", w.ID(), "handler", h.HandlerName(), "event", e.Name, "err", err)
			}
		}
	}
}
