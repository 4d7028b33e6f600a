// SPDX-License-Identifier: Apache-2.0

package registry_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

var (
	rd, wr, qu, te = vine.CapRead, vine.CapWrite, vine.CapQuery, vine.CapTend
	in, ad, an     = vine.CapIngest, vine.CapAdmin, vine.CapAnswer
)

func caps(c ...vine.Capability) []vine.Capability { return append([]vine.Capability{}, c...) }

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// open opens a fresh registry in a temporary directory on clk (nil: a
// new clock), closed with the test.
func open(t *testing.T, opt *registry.Options) (*registry.Registry, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "station.db")
	return openAt(t, path, opt), path
}

func openAt(t *testing.T, path string, opt *registry.Options) *registry.Registry {
	t.Helper()
	r, err := registry.Open(context.Background(), path, opt)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// code is the refusal code of err, "" for none.
func code(err error) vine.Code { return vine.CodeOf(err) }

// message is the refusal message of err.
func message(t *testing.T, err error) string {
	t.Helper()
	require.Error(t, err)
	return vine.AsError("test", err).Message
}

// fmtSQL substitutes each %s of stmts in order (a tiny fmt.Sprintf that
// leaves other % signs of SQL alone).
func fmtSQL(stmts string, args ...string) string {
	for _, a := range args {
		stmts = strings.Replace(stmts, "%s", a, 1)
	}
	return stmts
}
