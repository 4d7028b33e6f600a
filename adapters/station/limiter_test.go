// SPDX-License-Identifier: Apache-2.0

package station

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// clock is a settable time for tests.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)} }

func TestFailureLimiterWindow(t *testing.T) {
	c := newClock()
	l := newFailureLimiter(c.now)
	key := "login\x00ana\x00203.0.113.9"
	for i := range doorFailures {
		assert.False(t, l.blocked(key), "failure %d is still allowed", i+1)
		l.fail(key)
	}
	assert.True(t, l.blocked(key), "the sixth attempt is refused before hashing")
	assert.False(t, l.blocked("login\x00ana\x00198.51.100.1"), "another host has its own window")
	c.advance(doorWindow - time.Second)
	assert.True(t, l.blocked(key), "the window is fixed, not sliding")
	c.advance(time.Second)
	assert.False(t, l.blocked(key), "a new window opens")
	l.fail(key)
	l.clear(key)
	assert.False(t, l.blocked(key))
}

func TestFailureLimiterIsBounded(t *testing.T) {
	c := newClock()
	l := newFailureLimiter(c.now)
	l.cap = 8
	for i := range 8 {
		l.fail(fmt.Sprint("k", i))
		c.advance(time.Second)
	}
	for range doorFailures - 1 {
		l.fail("k7")
	}
	l.fail("k8")
	assert.Len(t, l.windows, 8, "the map never grows past its cap")
	assert.NotContains(t, l.windows, "k0", "the oldest window went first")
	c.advance(doorWindow)
	l.fail("fresh")
	assert.Len(t, l.windows, 1, "expired windows are swept before anything live is evicted")
}
