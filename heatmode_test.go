// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/trails"
)

func TestSetHeatMode(t *testing.T) {
	ctx := context.Background()
	v, dir := writableFixture(t)
	m, err := v.HeatMode(ctx)
	require.NoError(t, err)
	assert.Equal(t, trails.Unconditioned, m, "the default")

	testforest.Unchanged(t, dir, func() {
		err = v.SetHeatMode(ctx, "warm")
	})
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, ESchema, e.Code)
	assert.Contains(t, e.Message, "'mode'")
	m, _ = v.HeatMode(ctx)
	assert.Equal(t, trails.Unconditioned, m, "a refused mode changes nothing")

	testforest.Unchanged(t, dir, func() { require.NoError(t, v.SetHeatMode(ctx, trails.Conditioned)) })
	ro := openT(t, dir, &Options{ReadOnly: true})
	m, err = ro.HeatMode(ctx)
	require.NoError(t, err)
	assert.Equal(t, trails.Conditioned, m, "recorded in the derived layer, seen by every handle")
	err = ro.SetHeatMode(ctx, trails.Unconditioned)
	require.True(t, errors.As(err, &e))
	assert.Equal(t, EReadOnly, e.Code)
}

// TestHuntHeatFollowsItsQuestion: a hunt's close lays its heat on the
// questions it asked; in conditioned mode a later question like them
// reads that heat, in locate and, through the hunt, in reads that ask
// nothing, while an unrelated one does not. Unconditioned reads every
// question alike.
func TestHuntHeatFollowsItsQuestion(t *testing.T) {
	ctx := context.Background()
	v, _ := writableFixture(t)
	const answer = "operations/radio-schedule"
	hunt := WithSession(ctx, "hunt-radio")
	_, err := v.Locate(hunt, "radio schedule bulletins", LocateOptions{})
	require.NoError(t, err)
	_, err = v.CloseSession(hunt, true, []string{answer})
	require.NoError(t, err)

	heatIn := func(session, query string) float64 {
		sctx := WithSession(ctx, session)
		if query != "" {
			_, err := v.Locate(sctx, query, LocateOptions{K: 1})
			require.NoError(t, err)
		}
		return v.heat.read(sctx, []string{answer})[answer] // as look, move and scan read it
	}
	for _, tc := range []struct {
		mode           trails.HeatMode
		related, other float64
	}{
		{trails.Unconditioned, 0.1, 0.1},
		{trails.Conditioned, 0.1, 0},
	} {
		require.NoError(t, v.SetHeatMode(ctx, tc.mode))
		assert.Equal(t, tc.related, heatIn("again-"+string(tc.mode), "radio schedule bulletins"), "%s: the same question", tc.mode)
		assert.Equal(t, tc.other, heatIn("other-"+string(tc.mode), "fuel logistics"), "%s: an unrelated question", tc.mode)
		assert.Equal(t, 0.1, heatIn("none-"+string(tc.mode), ""), "%s: a hunt that asked nothing reads node heat", tc.mode)
	}
}
