// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

// TestModelForChoosesPerForest: a host's per-forest binding answers for
// its forest, with its own model name and cap; a forest without one
// falls back to the Answerer's model, or is refused when there is none.
func TestModelForChoosesPerForest(t *testing.T) {
	ctx := context.Background()
	v, dir := open(t)
	bound := says(alertA)
	fallback := says("fallback")
	modelFor := func(_ context.Context, f *vine.Vine) (Model, Binding, bool) {
		if filepath.Base(f.Dir()) == filepath.Base(dir) {
			return bound, Binding{Provider: "lab", Model: "forest-model", MaxTokens: 700}, true
		}
		return nil, Binding{}, false
	}
	tests := []struct {
		name     string
		fallback Model
		modelFor func(context.Context, *vine.Vine) (Model, Binding, bool)
		want     string // the model that answers; "" refused
	}{
		{"the forest's binding", fallback, modelFor, "forest-model"},
		{"no binding: the Answerer's model", fallback, func(context.Context, *vine.Vine) (Model, Binding, bool) { return nil, Binding{}, false }, "scripted"},
		{"no binding, no model", nil, func(context.Context, *vine.Vine) (Model, Binding, bool) { return nil, Binding{}, false }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAnswerer(t, tt.fallback, &Options{ModelFor: tt.modelFor})
			res, err := a.Sweep(ctx, v, alertQ, Params{NoCache: true})
			if tt.want == "" {
				assert.Equal(t, vine.ESchema, vine.CodeOf(err))
				assert.ErrorContains(t, err, "no answer model is bound to this forest")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Model)
		})
	}
	assert.Equal(t, []int{700}, bound.caps, "the binding's cap")
}
