// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
)

func TestAnswerStoreAdmin(t *testing.T) {
	ts := newTestStation(t, func(o *Options) {
		o.Answer = func(store func(context.Context, *vine.Vine) answer.StoreOptions) (*answer.Answerer, error) {
			silent := answer.ModelFunc(func(context.Context, []answer.Message, int) (*answer.Reply, error) {
				return &answer.Reply{}, nil
			})
			return answer.New(silent, &answer.Options{StoreSettings: store}), nil
		}
	})
	owner := ts.owner()
	reader := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "reader", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read"}}}).str("api_key")

	got := ts.call("GET", "/v1/admin/cache?forest="+forestID, owner, nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	assert.JSONEq(t, `{"forest":"mare-alta","settings":{"enabled":true,"max_entries":500,"ttl_hours":null},"stats":{"held":0,"hits":0,"misses":0}}`, got.body)

	for _, c := range []struct {
		key    string
		body   map[string]any
		status int
		msg    string
	}{
		{owner, map[string]any{}, 400, "parameter 'forest' is required"},
		{owner, map[string]any{"forest": "nowhere"}, 404, "unknown forest"},
		{reader, map[string]any{"forest": forestID}, 403, "admin"},
		{owner, map[string]any{"forest": forestID, "max_entries": 0}, 400, "at least 1"},
		{owner, map[string]any{"forest": forestID, "max_entries": 2.5}, 400, "integer"},
		{owner, map[string]any{"forest": forestID, "ttl_hours": -1}, 400, "positive number"},
		{owner, map[string]any{"forest": forestID, "enabled": "no"}, 400, "true or false"},
	} {
		r := ts.call("POST", "/v1/admin/cache", c.key, c.body)
		assert.Equal(t, c.status, r.status, "%v: %s", c.body, r.body)
		assert.Contains(t, r.body, c.msg)
	}

	set := ts.call("POST", "/v1/admin/cache", owner, map[string]any{"forest": forestID, "enabled": false, "max_entries": 10, "ttl_hours": 24, "clear": true})
	require.Equal(t, http.StatusOK, set.status, set.body)
	assert.Contains(t, set.body, `"settings":{"enabled":false,"max_entries":10,"ttl_hours":24}`)
	assert.Contains(t, set.body, `"cleared":true`)
	v, err := ts.s.forests.Forest(context.Background(), forestID)
	require.NoError(t, err)
	assert.Equal(t, answer.StoreOptions{Disabled: true, MaxEntries: 10, TTL: 24 * time.Hour},
		ts.s.StoreSettings(context.Background(), v), "what the Answerer applies on its next call")
	back := ts.call("POST", "/v1/admin/cache", owner, map[string]any{"forest": forestID, "ttl_hours": nil})
	assert.Contains(t, back.body, `"settings":{"enabled":false,"max_entries":10,"ttl_hours":null}`, "only the fields sent change")
}
