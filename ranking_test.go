// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/internal/testforest"
)

// rankerFunc is a Ranker from a function.
type rankerFunc struct {
	name string
	fn   func(items []ext.Ranked) ([]string, error)
}

func (r rankerFunc) Name() string { return r.name }
func (r rankerFunc) Rank(_ context.Context, _ string, items []ext.Ranked) ([]string, error) {
	return r.fn(items)
}

func ids(items []vine.HarvestItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// TestRankingSeam is F.198: a ranker reorders and drops, cannot add, and
// the answer and its trace event name it; a failing ranker leaves the
// original order and names nothing.
func TestRankingSeam(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	const q = "tide sensor calibration"
	plain, err := v.Harvest(ctx, q, vine.HarvestOptions{K: 4})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(plain.Results), 3)
	assert.Empty(t, plain.Extensions)
	base := ids(plain.Results)

	reversed := slices.Clone(base)
	slices.Reverse(reversed)
	tests := []struct {
		name  string
		fn    func([]ext.Ranked) ([]string, error)
		want  []string
		named bool
	}{
		{"reorders", func(in []ext.Ranked) ([]string, error) { return reversed, nil }, reversed, true},
		{"drops", func(in []ext.Ranked) ([]string, error) { return base[:1], nil }, base[:1], true},
		{"cannot invent or repeat", func(in []ext.Ranked) ([]string, error) {
			return append([]string{"invented/node", base[1], base[1]}, base...), nil
		}, append([]string{base[1], base[0]}, base[2:]...), true},
		{"fails: the original order", func([]ext.Ranked) ([]string, error) { return nil, errors.New("boom") }, base, false},
		{"changes nothing: not named", func(in []ext.Ranked) ([]string, error) { return base, nil }, base, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v.SetRanker(rankerFunc{"ext:test", tc.fn})
			defer v.SetRanker(nil)
			session := "rank-" + strings.ReplaceAll(tc.name, " ", "-")
			session = strings.NewReplacer(":", "", ",", "").Replace(session)
			out, err := v.Call(vine.WithSession(ctx, session), "harvest", []byte(`{"query": "`+q+`", "k": 4}`))
			require.NoError(t, err)
			res := out.(*vine.HarvestResult)
			assert.Equal(t, tc.want, ids(res.Results))
			raw, err := os.ReadFile(filepath.Join(dir, "_derived", "traces", session+".jsonl"))
			require.NoError(t, err)
			var ev struct{ Extensions []string }
			require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(string(raw))), &ev))
			if tc.named {
				assert.Equal(t, []string{"ext:test"}, res.Extensions)
				assert.Equal(t, []string{"ext:test"}, ev.Extensions, "the trace event names the ranker")
			} else {
				assert.Empty(t, res.Extensions)
				assert.Empty(t, ev.Extensions)
			}
		})
	}
}
