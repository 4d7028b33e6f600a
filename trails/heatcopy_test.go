// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeatCopySeesEveryWriter: two stores on one file; heat deposited,
// rekeyed or cleared through one is read by the next call of the other,
// and the copy answers as the queries do.
func TestHeatCopySeesEveryWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trails.db")
	a, err := Open(ctx, path)
	require.NoError(t, err)
	defer a.Close()
	b, err := Open(ctx, path)
	require.NoError(t, err)
	defer b.Close()
	now := time.Unix(1_700_000_000, 0)
	ids := []string{"x", "y", "z", "w"}

	steps := []struct {
		name  string
		write func() error
		want  map[string]float64 // b's heat of ids in session "s"
	}{
		{"deposit", func() error { return a.Deposit(ctx, "", []string{"x", "y"}, 0.2, now) },
			map[string]float64{"x": 0.2, "y": 0.2}},
		{"session deposit", func() error { return a.Deposit(ctx, "s", []string{"y", "z"}, 0.4, now) },
			map[string]float64{"x": 0.2, "y": 0.4, "z": 0.2}},
		{"rekey", func() error { return a.Rekey(ctx, "x", "w") },
			map[string]float64{"w": 0.2, "y": 0.4, "z": 0.2}},
		{"clear session", func() error { return a.ClearScope(ctx, "s") },
			map[string]float64{"w": 0.2, "y": 0.2}},
		{"raw SQL", func() error {
			_, err := a.DB().ExecContext(ctx, `UPDATE heat SET heat = 0.9 WHERE node_id = 'y'`)
			return err
		}, map[string]float64{"w": 0.2, "y": 0.9}},
	}
	for _, st := range steps {
		for range 3 { // the copy is built on a read and served after
			_, err := b.Heat(ctx, ids, "s")
			require.NoError(t, err)
		}
		require.NoError(t, st.write(), st.name)
		got, err := b.Heat(ctx, ids, "s")
		require.NoError(t, err)
		assert.Equal(t, st.want, got, st.name)
		again, err := b.Heat(ctx, ids, "s")
		require.NoError(t, err)
		assert.Equal(t, st.want, again, "%s: from the copy", st.name)

		p, sq, err := b.read(ctx, "s", ids) // the query, for comparison
		require.NoError(t, err)
		c := b.current(ctx)
		require.NotNil(t, c, "%s: a small table is copied", st.name)
		assert.Equal(t, p, nonEmpty(c.scopes[""]), st.name)
		assert.Equal(t, sq, nonEmpty(c.scopes["s"]), st.name)

		hot, ok, err := b.Hot(ctx, "s", 10)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, st.want, hot, "%s: hot", st.name)
		_, ok, err = b.Hot(ctx, "s", 1)
		require.NoError(t, err)
		assert.False(t, ok, "%s: more hot rows than the limit", st.name)
	}
}

func nonEmpty(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}

// TestHeatCopyWaitsForReadsOnABigTable: after a change, a table of many
// rows is read by query until the reads since would have paid for a copy.
func TestHeatCopyWaitsForReadsOnABigTable(t *testing.T) {
	var m heatMisses
	m.built(2000, false)
	var mark [48]byte
	due := 0
	for range 10 {
		if m.due(mark) {
			break
		}
		due++
	}
	assert.Equal(t, 2000/heatCopyBuildRate, due)
	mark[0] = 1
	assert.False(t, m.due(mark), "a new mark starts the count again")
}
