// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"math"
	"net/http"
	"strconv"
	"sync"

	"golang.org/x/time/rate"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// RateLimit bounds each key's requests: a token bucket per principal
// (by name: every key of one principal shares it), refilled at PerSecond
// and holding Burst.
type RateLimit struct {
	// PerSecond is the sustained rate; zero or less disables the limit.
	PerSecond float64
	// Burst is how many requests may arrive at once; zero means
	// max(1, PerSecond).
	Burst int
}

// limiter holds one bucket per principal. Buckets are never forgotten:
// principals are the keys file's, a bounded set.
type limiter struct {
	every rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newLimiter(rl *RateLimit) *limiter {
	if rl == nil || rl.PerSecond <= 0 {
		return nil
	}
	burst := rl.Burst
	if burst <= 0 {
		burst = max(1, int(rl.PerSecond))
	}
	return &limiter{every: rate.Limit(rl.PerSecond), burst: burst, buckets: map[string]*rate.Limiter{}}
}

// allow takes a token from who's bucket, or answers the refusal and sets
// Retry-After to the whole seconds until one is due. A nil limiter
// allows everything.
func (l *limiter) allow(w http.ResponseWriter, who *keys.Principal) *vine.Error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	b, ok := l.buckets[who.Name]
	if !ok {
		b = rate.NewLimiter(l.every, l.burst)
		l.buckets[who.Name] = b
	}
	l.mu.Unlock()
	r := b.Reserve()
	d := r.Delay()
	if d == 0 {
		return nil
	}
	r.Cancel() // a refused request spends nothing
	secs := max(1, int(math.Ceil(d.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return &vine.Error{Code: vine.EForbidden, Message: "too many requests for this key",
		Hint: "retry after " + strconv.Itoa(secs) + "s (Retry-After); the server's operator sets the rate per key"}
}
