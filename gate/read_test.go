// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadAll(t *testing.T) {
	t.Run("whole stream", func(t *testing.T) {
		got, err := ReadAll(context.Background(), strings.NewReader("PATH a\nEND_PATCH\n"), 0, 0)
		require.NoError(t, err)
		assert.Equal(t, "PATH a\nEND_PATCH\n", string(got))
	})
	t.Run("larger than one read buffer", func(t *testing.T) {
		want := strings.Repeat("0123456789abcdef", 10_000)
		got, err := ReadAll(context.Background(), strings.NewReader(want), time.Second, 1<<20)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	})
	t.Run("hang is an idle timeout", func(t *testing.T) {
		start := time.Now()
		got, err := ReadAll(context.Background(), io.MultiReader(strings.NewReader("PATH a\n"), hung(t)), 40*time.Millisecond, 0)
		require.ErrorIs(t, err, ErrIdleTimeout)
		assert.Nil(t, got, "the partial buffer is dropped")
		assert.Less(t, time.Since(start), 2*time.Second)
		assert.Contains(t, err.Error(), "7 bytes received")
	})
	t.Run("progress resets the idle timer", func(t *testing.T) {
		want := "PATH a\n" + strings.Repeat("x", 50) + "\nEND_PATCH\n"
		r := &dripReader{data: want, every: 8 * time.Millisecond} // ~0.5 s in all, 8 ms per byte
		got, err := ReadAll(context.Background(), r, 150*time.Millisecond, 0)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	})
	t.Run("context bounds the total", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		_, err := ReadAll(ctx, &dripReader{data: strings.Repeat("x", 100), every: 5 * time.Millisecond}, time.Second, 0)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("byte limit", func(t *testing.T) {
		_, err := ReadAll(context.Background(), strings.NewReader(strings.Repeat("x", 11)), time.Second, 10)
		require.ErrorIs(t, err, ErrTooLarge)
		got, err := ReadAll(context.Background(), strings.NewReader(strings.Repeat("x", 10)), time.Second, 10)
		require.NoError(t, err)
		assert.Len(t, got, 10)
	})
	t.Run("dropped connection", func(t *testing.T) {
		reset := errors.New("connection reset by peer")
		got, err := ReadAll(context.Background(), io.MultiReader(strings.NewReader("PATH a\n"), errReader{reset}), time.Second, 0)
		require.ErrorIs(t, err, reset)
		assert.Nil(t, got)
	})
}
