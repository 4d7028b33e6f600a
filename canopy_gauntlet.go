// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"cmp"
	"context"
	"slices"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/internal/budget"
)

// Frontier marks a list the Gauntlet ordered (K.5): by proximity to the
// goal named in Toward, heat breaking near-ties.
type Frontier struct {
	Ranked bool   `json:"ranked"`
	Toward string `json:"toward"`
}

// frontierTowardMax caps the goal text echoed in a frontier, in tokens: a
// long question must not spend the budget of the list it ranked.
const frontierTowardMax = 64

// gauntlet is one call's resolved ranking, owned by the vector layer.
type gauntlet = canopy.Gauntlet

// gauntletFor resolves the Gauntlet of a look, move or scan call, or nil
// when it does not apply: opted out (off is false) or not resolved by the
// layer (see canopy.Layer.Gauntlet). A nil gauntlet leaves the call
// byte-identical to a forest without Canopy.
func gauntletFor(ctx context.Context, l *canopy.Layer, off *bool, toward string) *gauntlet {
	if off != nil && !*off {
		return nil
	}
	return l.Gauntlet(ctx, toward)
}

// frontierOf is the marker a response g ranked carries.
func frontierOf(g *gauntlet) *Frontier {
	return &Frontier{Ranked: true, Toward: budget.TruncateText(g.Toward, frontierTowardMax)}
}

// gauntletOrder sorts list by (-proximity, -heat), stably, so ties keep
// the order the list arrived in. Keys are computed once per item.
func gauntletOrder[T any](g *gauntlet, list []T, id func(T) string, heat func(T) float64) {
	type keyed struct {
		item       T
		prox, heat float64
	}
	ks := make([]keyed, len(list))
	for i, it := range list {
		ks[i] = keyed{item: it, prox: g.Proximity(id(it)), heat: heat(it)}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(b.prox, a.prox); c != 0 { // nearer first
			return c
		}
		return cmp.Compare(b.heat, a.heat) // then hotter
	})
	for i := range ks {
		list[i] = ks[i].item
	}
}
