// SPDX-License-Identifier: Apache-2.0

package station

import (
	"sync"
	"time"
)

// Failure window of the password doors and of share links (09 §4, §11):
// a fixed window per key, checked before any hashing, identical for
// known and unknown users.
const (
	doorFailures = 5
	doorWindow   = 60 * time.Second
	doorKeys     = 4096 // windows kept; past it, expired ones go, then the oldest
)

// failureLimiter counts failures per key in fixed windows. It lives in
// memory: a restart forgets it (failed logins are also audited, so the
// attempts survive there).
type failureLimiter struct {
	mu      sync.Mutex
	max     int
	window  time.Duration
	cap     int
	now     func() time.Time
	windows map[string]*failWindow
}

type failWindow struct {
	start    time.Time
	failures int
}

func newFailureLimiter(now func() time.Time) *failureLimiter {
	return &failureLimiter{max: doorFailures, window: doorWindow, cap: doorKeys, now: now,
		windows: map[string]*failWindow{}}
}

// blocked reports whether key has used up its failures in the current
// window.
func (l *failureLimiter) blocked(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || l.expired(w) {
		return false
	}
	return w.failures >= l.max
}

// fail counts one failure of key, opening a window when none is live.
func (l *failureLimiter) fail(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || l.expired(w) {
		if w == nil && len(l.windows) >= l.cap {
			l.evict()
		}
		w = &failWindow{start: l.now()}
		l.windows[key] = w
	}
	w.failures++
}

// clear forgets key after a success.
func (l *failureLimiter) clear(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.windows, key)
}

func (l *failureLimiter) expired(w *failWindow) bool { return l.now().Sub(w.start) >= l.window }

// evict makes room: every expired window first, then, if none was, the
// oldest one.
func (l *failureLimiter) evict() {
	var oldest string
	var at time.Time
	for k, w := range l.windows {
		if l.expired(w) {
			delete(l.windows, k)
			continue
		}
		if oldest == "" || w.start.Before(at) {
			oldest, at = k, w.start
		}
	}
	if len(l.windows) >= l.cap && oldest != "" {
		delete(l.windows, oldest)
	}
}
