// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// callShares are the parts of one traced call spent in the vector layer
// (Part D, spec 05): embedding the query, goal or toward text (memo
// hits included), and the dense half of hybrid entry search (vector scan,
// the rows it added, the fusion). Call installs a fresh one per call, so
// a call nested inside another keeps its own shares and the outer event
// never inherits them.
type callShares struct {
	embed, dense       atomic.Int64 // nanoseconds
	embedRan, denseRan atomic.Bool

	mu   sync.Mutex
	exts []string // extensions that changed the call's answer ("ext:<id>")
}

// addExtension names an extension that changed the call's answer, so
// its trace event says so (spec 11 §3, F.184).
func (s *callShares) addExtension(name string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.exts, name) {
		s.exts = append(s.exts, name)
	}
}

// extensions are the names addExtension recorded, nil when none.
func (s *callShares) extensions() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.exts)
}

type sharesKey struct{}

// withCallShares returns a context carrying fresh shares for one call.
func withCallShares(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharesKey{}, &callShares{})
}

// sharesOf returns the call's shares; nil (every method a no-op) outside
// a traced call.
func sharesOf(ctx context.Context) *callShares {
	s, _ := ctx.Value(sharesKey{}).(*callShares)
	return s
}

func (s *callShares) addEmbed(d time.Duration) {
	if s != nil {
		s.embed.Add(int64(d))
		s.embedRan.Store(true)
	}
}

func (s *callShares) addDense(d time.Duration) {
	if s != nil {
		s.dense.Add(int64(d))
		s.denseRan.Store(true)
	}
}

// embedSoFar is the embedding time recorded so far.
func (s *callShares) embedSoFar() time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(s.embed.Load())
}

// millis renders the shares for the trace event: milliseconds to three
// places, nil for a share that never ran, so events of calls that touched
// no vector stay byte-identical.
func (s *callShares) millis() (embed, dense *float64) {
	if s == nil {
		return nil, nil
	}
	ms := func(ns int64) *float64 {
		v := float64(time.Duration(ns).Microseconds()) / 1000
		return &v
	}
	if s.embedRan.Load() {
		embed = ms(s.embed.Load())
	}
	if s.denseRan.Load() {
		dense = ms(s.dense.Load())
	}
	return embed, dense
}
