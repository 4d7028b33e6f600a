// SPDX-License-Identifier: Apache-2.0

package harvest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/harvest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// The sweep itself is tested in the root package, where it lives; these
// tests hold the deprecated names to what they stand for.

func openFixture(t *testing.T) *vine.Vine {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

// TestTheWrapperIsTheRootSweep: harvest.Harvest over harvest.Engine gives
// byte for byte what Vine.Harvest gives, and the wire call what both do.
func TestTheWrapperIsTheRootSweep(t *testing.T) {
	v := openFixture(t)
	ctx := context.Background()
	for _, q := range []string{"why was run 1045 discarded", "ledger fuel costs", "storm tide"} {
		old, err := harvest.Harvest(ctx, harvest.Engine(v), q, harvest.Options{K: 2})
		require.NoError(t, err, q)
		now, err := v.Harvest(ctx, q, vine.HarvestOptions{K: 2})
		require.NoError(t, err, q)
		a, _ := json.Marshal(old)
		b, _ := json.Marshal(now)
		assert.JSONEq(t, string(b), string(a), q)
	}
	assert.Equal(t, "harvest", harvest.Signature.Name)
	sig, ok := vine.LookupSignature("harvest")
	require.True(t, ok, "harvest is in the root's table without this package's help")
	assert.Equal(t, sig.Name, harvest.Signature.Name)
}

// TestMaxKFromTheOperator: the package's cap setter is the root's.
func TestMaxKFromTheOperator(t *testing.T) {
	v := openFixture(t)
	ctx := context.Background()
	harvest.SetMaxK("2")
	t.Cleanup(func() { harvest.SetMaxK("") })
	assert.Equal(t, 2, harvest.MaxK())
	assert.Equal(t, 2, vine.HarvestMaxK())
	res, err := v.Harvest(ctx, "cooperative members", vine.HarvestOptions{K: 50})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.Results), 2)

	harvest.SetMaxK("banana")
	_, err = harvest.Harvest(ctx, harvest.Engine(v), "cooperative members", harvest.Options{})
	assert.Equal(t, vine.ESchema, vine.CodeOf(err))
	assert.ErrorContains(t, err, harvest.MaxKEnv)
}
