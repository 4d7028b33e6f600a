// SPDX-License-Identifier: Apache-2.0

package ingestreq_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
)

func TestBatchesOnePerForest(t *testing.T) {
	b := ingestreq.NewBatches()
	require.NoError(t, b.Reserve("f", "job-1", "wait"))
	err := b.Reserve("f", "job-2", "wait for it")
	assert.Equal(t, vine.ELocked, vine.CodeOf(err))
	assert.ErrorContains(t, err, "job job-1 is running on this forest")
	require.NoError(t, b.Reserve("g", "job-3", ""), "another forest is free")
	b.Release("f", "job-2") // not the holder: nothing changes
	assert.Equal(t, "job-1", b.Running("f"))
	b.Release("f", "job-1")
	assert.Empty(t, b.Running("f"))
	require.NoError(t, b.Reserve("f", "job-4", ""))
}

func TestBatchesRace(t *testing.T) {
	b := ingestreq.NewBatches()
	var won atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if b.Reserve("f", string(rune('a'+i)), "") == nil {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), won.Load(), "exactly one batch holds a forest")
}
