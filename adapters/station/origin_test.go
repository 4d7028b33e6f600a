// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/gittest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// A replica's health carries its origin: the commit it follows, its own
// head and the lag.
func TestHealthCarriesTheOrigin(t *testing.T) {
	ctx := context.Background()
	src, _ := testforest.Fixture(t)
	url := gittest.FileURL(gittest.Bare(t))
	w, err := vine.Open(ctx, src, nil)
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.SetRemote(ctx, "origin", url))
	pushed, err := w.Push(ctx, vine.RemoteOptions{})
	require.NoError(t, err)

	replica := filepath.Join(t.TempDir(), "replica")
	_, err = vine.Clone(ctx, url, replica, vine.RemoteOptions{})
	require.NoError(t, err)
	v, err := vine.Open(ctx, replica, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer v.Close()
	_, err = v.FollowOnce(ctx, vine.RemoteOptions{})
	require.NoError(t, err)

	ts := newTestStation(t, func(o *Options) { o.Origin = v.Origin })
	h := ts.call("GET", "/v1/health", "", nil)
	require.Equal(t, 200, h.status, h.body)
	origin, ok := h.json["origin"].(map[string]any)
	require.True(t, ok, h.body)
	assert.Equal(t, pushed.Commit, origin["commit"])
	assert.Equal(t, pushed.Commit, origin["head"])
	assert.Contains(t, origin, "lag_seconds")

	plain := newTestStation(t, nil)
	assert.NotContains(t, plain.call("GET", "/v1/health", "", nil).json, "origin", "no follower, no origin")
}
