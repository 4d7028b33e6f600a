// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/monkeyllm/vine"
)

// TimingObserver is the vine.Observer that feeds Server-Timing: it adds
// each engine call's duration to the REST request that made it, so the
// header's vine figure is the engine's own time and host is the rest.
// Put it in the vine.Options of the served Registry and of the readers
// Options.OpenReader makes; without it vine reads 0 and host carries the
// whole span. Next, when set, is told every event as well.
type TimingObserver struct {
	Next vine.Observer
}

// Observe implements vine.Observer. It is O(1) and never blocks.
func (o TimingObserver) Observe(ctx context.Context, e vine.Event) {
	if t, ok := ctx.Value(timingKey{}).(*timing); ok {
		t.vine.Add(int64(e.Duration))
	}
	if o.Next != nil {
		o.Next.Observe(ctx, e)
	}
}

type timingKey struct{}

// timing is one request's clock: the span since authentication and the
// engine time the observer reported inside it.
type timing struct {
	start time.Time
	vine  atomic.Int64 // nanoseconds
}

// header renders the clocks (spec 08 §10): vine, then host as the
// remainder of the span floored at 0, milliseconds to 3 decimals. It
// names nothing but clocks.
func (t *timing) header() string {
	span := time.Since(t.start)
	engine := time.Duration(t.vine.Load())
	host := max(span-engine, 0)
	return fmt.Sprintf("vine;dur=%.3f, host;dur=%.3f", ms(engine), ms(host))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
