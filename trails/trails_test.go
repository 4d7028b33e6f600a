// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "trails.db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDepositAndHeat(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := time.Unix(1_800_000_000, 0)
	require.NoError(t, s.Deposit(ctx, "", []string{"a", "b", "a"}, DefaultDeposit, now))
	require.NoError(t, s.Deposit(ctx, "", []string{"a"}, 0.95, now))
	require.NoError(t, s.Deposit(ctx, "s1", []string{"b"}, 0.4, now))

	h, err := s.Heat(ctx, []string{"a", "b", "cold"}, "")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"a": 1, "b": 0.1}, h, "duplicates deposit once; heat caps at 1")

	h, err = s.Heat(ctx, []string{"b"}, "s1")
	require.NoError(t, err)
	assert.Equal(t, 0.3, h["b"], "persistent + 0.5 × session")

	h, err = s.Heat(ctx, []string{"b"}, "s2")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"b": 0.1}, h, "another session's heat is not this one's")
}

func TestHeatReadsManyIDsInChunks(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = "n/" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	require.NoError(t, s.Deposit(ctx, "", ids, 0.2, time.Now()))
	h, err := s.Heat(ctx, ids, "")
	require.NoError(t, err)
	assert.Len(t, h, len(ids))
}

func TestRekeyKeepsTheHotterRow(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := time.Now()
	require.NoError(t, s.Deposit(ctx, "", []string{"old"}, 0.5, now))
	require.NoError(t, s.Deposit(ctx, "", []string{"new"}, 0.2, now))
	require.NoError(t, s.Rekey(ctx, "old", "new"))
	h, err := s.Heat(ctx, []string{"old", "new"}, "")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"new": 0.5}, h)
}

func ev(prim, id string, out int) Event {
	e := Event{Session: "s", Primitive: prim, TokensOut: out}
	if id != "" {
		e.ID = &id
	}
	return e
}

// The vectors of Part D §3.2.
func TestMeasure(t *testing.T) {
	events := []Event{ev("locate", "", 10), ev("pick", "a", 20), ev("locate", "", 10), ev("pick", "b", 5), ev("pick", "c", 5)}
	m, shout := Measure(events, true, []string{"c"})
	require.NotNil(t, m.TrailLen)
	assert.Equal(t, 4, *m.TrailLen)
	require.NotNil(t, m.HopsToBanana)
	assert.Equal(t, 0, *m.HopsToBanana)
	assert.Equal(t, []string{"c"}, shout)
	assert.Equal(t, 50, m.TokensToBanana)
	assert.Equal(t, 5, m.Calls)

	m, shout = Measure([]Event{ev("locate", "", 1), ev("pick", "t", 1)}, true, []string{"t"})
	assert.Equal(t, 1, *m.TrailLen)
	assert.Empty(t, shout)

	m, shout = Measure([]Event{ev("look", "x", 1), ev("move", "x", 1), ev("look", "y", 1)}, false, []string{"z"})
	assert.Nil(t, m.HopsToBanana)
	assert.Nil(t, m.TrailLen)
	assert.Empty(t, shout, "failure suggests nothing")

	_, shout = Measure(events, false, []string{"c"})
	assert.Empty(t, shout)
}

func TestTracerAppendsJSONLinesAndCloses(t *testing.T) {
	dir := t.TempDir()
	tr := NewTracer(dir)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			assert.NoError(t, tr.Append(Event{Session: "hunt1", Primitive: "look", TokensOut: i}))
		})
	}
	wg.Wait()
	assert.Len(t, tr.Events("hunt1"), 20)
	out, err := tr.Close("hunt1", true, []string{"a"}, time.Now())
	require.NoError(t, err)
	assert.Equal(t, 20, out.Metrics.Calls)

	f, err := os.Open(filepath.Join(dir, "hunt1.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		lines++
	}
	assert.Equal(t, 21, lines, "20 events and the close")

	assert.Error(t, tr.Append(Event{Session: "../escape"}), "a session id never names a path outside traces/")
	assert.False(t, ValidSession(".."))
	assert.Len(t, NewSession(), 12)
}

func TestHotListsWhatHeatReadsWithinALimit(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := time.Unix(1_800_000_000, 0)
	require.NoError(t, s.Deposit(ctx, "", []string{"a", "b"}, 0.2, now))
	require.NoError(t, s.Deposit(ctx, "s1", []string{"b", "c"}, 0.4, now))

	for _, tc := range []struct {
		session string
		limit   int
		ok      bool
	}{
		{"", 2, true}, {"", 1, false}, {"s1", 4, true}, {"s1", 3, false}, {"other", 2, true},
	} {
		hot, ok, err := s.Hot(ctx, tc.session, tc.limit)
		require.NoError(t, err)
		require.Equal(t, tc.ok, ok, "%+v", tc)
		if !ok {
			continue
		}
		want, err := s.Heat(ctx, []string{"a", "b", "c", "cold"}, tc.session)
		require.NoError(t, err)
		assert.Equal(t, want, hot, "%+v", tc)
	}
}
