// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heatOnly hides the HeatLister of a heat source, so look reads every
// in-edge and the heat of each: the reference for the sampled path.
type heatOnly struct{ HeatSource }

// A hub's in-edges are sampled (the first few in catalog order and every
// one from a hot node); look's digest and move's neighbours must be the
// ones reading them all gives.
func TestLookSamplesAHubsInEdgesExactly(t *testing.T) {
	ctx := context.Background()
	v, dir := writableFixture(t)
	const hub = "concepts/lora"
	var sources []string
	for batch := range 4 {
		var nodes []map[string]any
		for i := range 20 {
			id := fmt.Sprintf("operations/ref-%02d-%02d", batch, i)
			sources = append(sources, id)
			nodes = append(nodes, map[string]any{"id": id, "type": "note", "title": "Ref " + id,
				"summary": "A note that cites the radio concept.", "parent": "operations/_index",
				"links": []map[string]any{{"rel": "mentioned-in", "target": hub}}})
		}
		spec, err := json.Marshal(map[string]any{"node": nodes})
		require.NoError(t, err)
		_, err = v.Call(ctx, "plant", spec)
		require.NoError(t, err)
	}
	look := func(v *Vine) string {
		d, err := v.Look(ctx, hub, LookOptions{})
		require.NoError(t, err)
		out, err := json.Marshal(d)
		require.NoError(t, err)
		return string(out)
	}
	move := func(v *Vine) string {
		n, err := v.Move(ctx, hub, MoveOptions{Direction: DirectionBoth})
		require.NoError(t, err)
		out, err := json.Marshal(n)
		require.NoError(t, err)
		return string(out)
	}
	ref := openT(t, dir, &Options{ReadOnly: true, Heat: heatOnly{storeHeat{v.heat.store, &v.heat}}})
	reference := func() string { return look(ref) + move(ref) }
	both := func(v *Vine) string { return look(v) + move(v) }
	degree, err := v.cat.InDegree(ctx, hub)
	require.NoError(t, err)
	require.GreaterOrEqual(t, degree, sampleInDegree, "the hub is sampled")

	assert.Equal(t, reference(), both(v), "no heat: catalog order")
	// Heat on late sources, ties among them, and one hot node that does not
	// link to the hub.
	now := time.Now()
	require.NoError(t, v.heat.store.Deposit(ctx, "", []string{sources[70], sources[41]}, 0.3, now))
	require.NoError(t, v.heat.store.Deposit(ctx, "", []string{sources[55], sources[78], "people/lucia-andrade"}, 0.2, now))
	assert.Equal(t, reference(), both(v), "hot sources first, by heat, ties in catalog order")
}
