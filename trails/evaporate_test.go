// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	day      = 24 * time.Hour
	halfLife = 30 * day
	ttl      = 24 * time.Hour
)

// heatRow is one row of the heat table as stored.
type heatRow struct {
	Heat    float64
	Updated float64
}

// rows dumps the whole table, keyed by scope + "|" + node id.
func rows(t *testing.T, s *Store) map[string]heatRow {
	t.Helper()
	rs, err := s.DB().Query("SELECT scope, node_id, heat, updated FROM heat")
	require.NoError(t, err)
	defer rs.Close()
	out := map[string]heatRow{}
	for rs.Next() {
		var scope, id string
		var r heatRow
		require.NoError(t, rs.Scan(&scope, &id, &r.Heat, &r.Updated))
		out[scope+"|"+id] = r
	}
	require.NoError(t, rs.Err())
	return out
}

func TestEvaporate(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	tests := []struct {
		name    string
		deposit float64       // persistent heat of node "n", deposited at t0
		after   time.Duration // when the pass runs, from t0
		want    Evaporation
		heat    float64 // expected heat of "n"; 0 = row deleted
	}{
		{"one half-life halves", 0.8, halfLife, Evaporation{Decayed: 1}, 0.4},
		{"two half-lives quarter", 0.8, 2 * halfLife, Evaporation{Decayed: 1}, 0.2},
		{"under dust is deleted", 0.015, halfLife, Evaporation{Removed: 1}, 0},
		{"exactly dust survives", 0.02, halfLife, Evaporation{Decayed: 1}, 0.01},
		{"same instant is untouched", 0.8, 0, Evaporation{}, 0.8},
		{"within the step is untouched", 0.8, EvaporationStep / 2, Evaporation{}, 0.8},
		{"a row from the future is untouched", 0.8, -day, Evaporation{}, 0.8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t)
			require.NoError(t, s.Deposit(ctx, "", []string{"n"}, tc.deposit, t0))
			now := t0.Add(tc.after)
			ev, err := s.Evaporate(ctx, now, halfLife, ttl)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ev)
			got, ok := rows(t, s)["|n"]
			if tc.heat == 0 {
				assert.False(t, ok, "row should be gone")
				return
			}
			require.True(t, ok)
			assert.InDelta(t, tc.heat, got.Heat, 1e-12)
			if tc.want.Decayed == 1 {
				assert.InDelta(t, float64(now.UnixNano())/1e9, got.Updated, 1e-6, "a decayed row is re-stamped")
			} else {
				assert.InDelta(t, float64(t0.UnixNano())/1e9, got.Updated, 1e-6, "an untouched row keeps its stamp")
			}
		})
	}
}

func TestEvaporateTwiceIsANoOp(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	t0 := time.Unix(1_800_000_000, 0)
	require.NoError(t, s.Deposit(ctx, "", []string{"a", "b"}, 0.6, t0))
	require.NoError(t, s.Deposit(ctx, "", []string{"cold"}, 0.011, t0))
	now := t0.Add(10 * day)

	first, err := s.Evaporate(ctx, now, halfLife, ttl)
	require.NoError(t, err)
	assert.Equal(t, Evaporation{Decayed: 2, Removed: 1}, first)
	after := rows(t, s)

	for _, again := range []time.Time{now, now.Add(300 * time.Millisecond)} {
		second, err := s.Evaporate(ctx, again, halfLife, ttl)
		require.NoError(t, err)
		assert.Equal(t, Evaporation{}, second)
		assert.Equal(t, after, rows(t, s), "a second pass right after the first changes no row")
	}
}

func TestEvaporateComposes(t *testing.T) {
	ctx := context.Background()
	a, b := openStore(t), openStore(t)
	t0 := time.Unix(1_800_000_000, 0)
	for _, s := range []*Store{a, b} {
		require.NoError(t, s.Deposit(ctx, "", []string{"n"}, 0.9, t0))
	}
	for _, d := range []time.Duration{5 * day, 11 * day, 23 * day} {
		_, err := a.Evaporate(ctx, t0.Add(d), halfLife, ttl)
		require.NoError(t, err)
	}
	_, err := b.Evaporate(ctx, t0.Add(23*day), halfLife, ttl)
	require.NoError(t, err)
	assert.InDelta(t, rows(t, b)["|n"].Heat, rows(t, a)["|n"].Heat, 1e-12,
		"three passes decay exactly as much as one over the same time")
}

func TestEvaporateClearsStaleSessions(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	t0 := time.Unix(1_800_000_000, 0)
	require.NoError(t, s.Deposit(ctx, "old-hunt", []string{"x"}, 0.5, t0))
	require.NoError(t, s.Deposit(ctx, "live-hunt", []string{"x"}, 0.5, t0.Add(20*time.Hour)))
	require.NoError(t, s.Deposit(ctx, "", []string{"x"}, 0.5, t0))

	ev, err := s.Evaporate(ctx, t0.Add(25*time.Hour), halfLife, ttl)
	require.NoError(t, err)
	assert.Equal(t, 1, ev.StaleSessionsCleared)
	assert.Equal(t, 1, ev.Decayed)
	got := rows(t, s)
	assert.NotContains(t, got, "old-hunt|x")
	assert.Contains(t, got, "live-hunt|x")
	assert.Equal(t, 0.5, got["live-hunt|x"].Heat, "session heat never decays, it expires")
	assert.Contains(t, got, "|x")
}

func TestEvaporateRefusesBadDurations(t *testing.T) {
	s := openStore(t)
	now := time.Unix(1_800_000_000, 0)
	_, err := s.Evaporate(context.Background(), now, 0, ttl)
	assert.ErrorContains(t, err, "half-life")
	_, err = s.Evaporate(context.Background(), now, halfLife, -time.Hour)
	assert.ErrorContains(t, err, "time-to-live")
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	st, err := s.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, HeatStats{}, st, "an empty store reports zeros")

	now := time.Unix(1_800_000_000, 0)
	require.NoError(t, s.Deposit(ctx, "", []string{"a"}, 0.3, now))
	require.NoError(t, s.Deposit(ctx, "", []string{"b"}, 0.12345, now))
	require.NoError(t, s.Deposit(ctx, "hunt", []string{"c"}, 1, now))
	st, err = s.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, HeatStats{Rows: 2, Max: 0.3, Mean: 0.2117}, st, "persistent rows only, four decimals")
}
