// SPDX-License-Identifier: Apache-2.0

package quota_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/quota"
	"github.com/monkeyllm/vine/envelope"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func open(t *testing.T, c *clock) (*quota.Store, *sql.DB) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "station.db")
	db, err := sql.Open("sqlite3", "file:"+filepath.ToSlash(file)+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)&_txlock=immediate")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	s, err := quota.Open(context.Background(), db, &quota.Options{Now: c.now})
	require.NoError(t, err)
	return s, db
}

func usd(f float64) *float64 { return &f }

func TestWindow(t *testing.T) {
	at := time.Date(2026, 12, 31, 23, 15, 0, 0, time.FixedZone("X", 3600))
	tests := []struct {
		period, window, resets string
	}{
		{quota.Hour, "2026-12-31T22", "2026-12-31T23:00:00Z"},
		{quota.Day, "2026-12-31", "2027-01-01T00:00:00Z"},
		{quota.Month, "2026-12", "2027-01-01T00:00:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.period, func(t *testing.T) {
			w, resets := quota.Window(tc.period, at)
			assert.Equal(t, tc.window, w, "UTC windows")
			assert.Equal(t, tc.resets, resets.Format(time.RFC3339))
		})
	}
}

func TestSetRefusesByName(t *testing.T) {
	s, _ := open(t, &clock{t: time.Now()})
	tests := []struct {
		name    string
		ceiling float64
		period  string
		names   string
	}{
		{"a week is not a period", 1, "week", "'period'"},
		{"negative dollars", -1, "", "'ceiling'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Set(context.Background(), "listen", "acme", tc.ceiling, tc.period)
			var e *envelope.Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Equal(t, envelope.Schema, e.Code)
			assert.Contains(t, e.Message, tc.names)
		})
	}
	st, err := s.Get(context.Background(), "listen", "acme")
	require.NoError(t, err)
	assert.Nil(t, st.Ceiling, "a refused Set stores nothing")
	st, err = s.Set(context.Background(), "listen", "acme", 2, "")
	require.NoError(t, err)
	assert.Equal(t, quota.Month, st.Period, "month by default")
}

// TestCeilingAndRollover: calls are admitted until the window's dollars
// reach the ceiling, refused with every fact of the spec, and admitted
// again once the window rolls over (read, never swept).
func TestCeilingAndRollover(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 12, 5, 8, 59, 30, 0, time.UTC)}
	s, _ := open(t, c)
	_, err := s.Set(ctx, "listen", "acme", 0.01, quota.Hour)
	require.NoError(t, err)

	for range 2 {
		_, err := s.Admit(ctx, "listen", "acme")
		require.NoError(t, err)
		_, err = s.Charge(ctx, "listen", "acme", usd(0.006))
		require.NoError(t, err)
	}
	st, err := s.Admit(ctx, "listen", "acme")
	var e *envelope.Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, envelope.ExtQuota, e.Code)
	raw, _ := json.Marshal(e)
	assert.JSONEq(t, `{"code":"E_EXT_QUOTA","message":"extension listen has spent its ceiling of $0.01 per hour on forest acme",
		"hint":"the window 2026-12-05T08 rolls over at 2026-12-05T09:00:00Z; an administrator of the whole deployment may raise the ceiling (POST /v1/admin/extensions/quota)",
		"ext":"listen","forest":"acme","period":"hour","spent":0.012,"calls":2,"window":"2026-12-05T08","ceiling":0.01,"remaining":0,"retry_after":30}`, string(raw))
	assert.Equal(t, 30, st.RetryAfter(c.now()))

	other, err := s.Admit(ctx, "listen", "beta")
	require.NoError(t, err, "per forest")
	assert.Nil(t, other.Ceiling)

	c.set(time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC))
	st, err = s.Admit(ctx, "listen", "acme")
	require.NoError(t, err, "the next window admits")
	assert.Equal(t, "2026-12-05T09", st.Window)
	assert.Zero(t, st.Spent)
	assert.Zero(t, st.Calls)
	st, err = s.Charge(ctx, "listen", "acme", nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), st.Calls, "an unpriced call is counted")
	assert.Zero(t, st.Spent, "and costs nothing")
	assert.Equal(t, 0.01, *st.Remaining)
}

func TestZeroCeilingRefusesEveryCall(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t, &clock{t: time.Now()})
	_, err := s.Set(ctx, "listen", "acme", 0, quota.Day)
	require.NoError(t, err)
	_, err = s.Admit(ctx, "listen", "acme")
	assert.True(t, errors.Is(err, envelope.ExtQuota), "%v", err)
}

// TestMeteredWithoutCeiling: spend is kept before any ceiling is set, so
// a ceiling set later counts what the window already spent.
func TestMeteredWithoutCeiling(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t, &clock{t: time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)})
	_, err := s.Charge(ctx, "listen", "acme", usd(0.5))
	require.NoError(t, err)
	st, err := s.Get(ctx, "listen", "acme")
	require.NoError(t, err)
	assert.Equal(t, 0.5, st.Spent)
	assert.Nil(t, st.Remaining)
	st, err = s.Set(ctx, "listen", "acme", 0.5, "")
	require.NoError(t, err)
	assert.Equal(t, 0.0, *st.Remaining)
	_, err = s.Admit(ctx, "listen", "acme")
	assert.True(t, errors.Is(err, envelope.ExtQuota))
}

// TestMigrateIsAdditive: the table is added to a registry file that has
// other tables, twice without harm, and its rows survive a reopen.
func TestMigrateIsAdditive(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Now()}
	s, db := open(t, c)
	_, err := s.Charge(ctx, "listen", "acme", usd(0.25))
	require.NoError(t, err)
	again, err := quota.Open(ctx, db, &quota.Options{Now: c.now})
	require.NoError(t, err)
	st, err := again.Get(ctx, "listen", "acme")
	require.NoError(t, err)
	assert.Equal(t, 0.25, st.Spent)
}
