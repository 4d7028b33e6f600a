// SPDX-License-Identifier: Apache-2.0

package recordtest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine/adapters/internal/recordtest"
	"github.com/monkeyllm/vine/adapters/record"
)

var _ record.Recorder = (*recordtest.Trail)(nil)

// TestTrailKeepsEveryRow: rows recorded at once are all kept, and All
// hands out a copy the trail does not write through.
func TestTrailKeepsEveryRow(t *testing.T) {
	var tr recordtest.Trail
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { tr.Record(context.Background(), record.Call{Primitive: "look"}) })
	}
	wg.Wait()
	rows := tr.All()
	assert.Len(t, rows, 8)
	rows[0].Primitive = "changed"
	tr.Record(context.Background(), record.Call{Primitive: "plant"})
	assert.Equal(t, "look", tr.All()[0].Primitive)
	assert.Equal(t, "plant", tr.All()[8].Primitive)
}
