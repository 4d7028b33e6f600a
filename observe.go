// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"time"
)

// Event is what one primitive call reports to the session layer: which
// primitive ran, the node it addressed (set only when its first parameter
// is a node id), the node ids it returned in order, how long it took, and
// the refusal code if it refused. The pheromone layer turns these into
// heat and traces; nothing is deposited by the read itself.
type Event struct {
	Session   string
	Primitive string
	NodeID    string
	Returned  []string
	Duration  time.Duration
	Code      Code
}

// Observer receives an Event after every primitive call made through a
// Vine. Observe is called synchronously on the caller's goroutine and must
// be safe for concurrent use; it must not block.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// HeatSource answers the current heat in [0, 1] of a set of nodes in one
// batched read (Part D). Absent ids have heat 0.
type HeatSource interface {
	Heat(ctx context.Context, ids []string) (map[string]float64, error)
}

// HeatLister is an optional interface of a HeatSource. Hot returns every
// node whose heat, as Heat reads it, is above zero, when there are at most
// limit of them; ok is false when there are more. Look uses it to show the
// hottest in-edges of a hub without reading the heat of every neighbour.
type HeatLister interface {
	Hot(ctx context.Context, limit int) (hot map[string]float64, ok bool, err error)
}

type sessionKey struct{}

// WithSession returns a context whose calls belong to the named session
// (Part D): traces and session heat are kept per session.
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// SessionOf returns the session a context carries, or "".
func SessionOf(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(string)
	return s
}

// heatListMin is the id count from which read first asks a HeatLister
// for every hot node.
const heatListMin = 8

// read reads heat for ids from the configured source; without one every
// node is cold. A long list goes to a HeatLister first: most nodes are
// cold, and when no more nodes are hot than ids were asked for, one
// short read of the hot ones answers them all, where a batched lookup
// pays for every id.
func (h *heatLayer) read(ctx context.Context, ids []string) map[string]float64 {
	if h.source == nil || len(ids) == 0 {
		return map[string]float64{}
	}
	if lister, ok := h.source.(HeatLister); ok && len(ids) >= heatListMin {
		if hot, ok, err := lister.Hot(ctx, len(ids)); err == nil && ok {
			out := make(map[string]float64, min(len(hot), len(ids)))
			for _, id := range ids {
				if h, ok := hot[id]; ok {
					out[id] = h
				}
			}
			return out
		}
	}
	heat, err := h.source.Heat(ctx, ids)
	if err != nil {
		h.log.Warn("heat read failed; ranking without heat", "err", err)
		return map[string]float64{}
	}
	return heat
}

// observe reports a finished call to the observer, if any.
func (h *heatLayer) observe(ctx context.Context, e Event) {
	if h.observer == nil {
		return
	}
	e.Session = SessionOf(ctx)
	h.observer.Observe(ctx, e)
}
