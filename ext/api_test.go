// SPDX-License-Identifier: Apache-2.0

package ext_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext"
)

type nopBackend struct{}

func (nopBackend) Config(context.Context) map[string]any { return map[string]any{"unit": "g"} }
func (nopBackend) Complete(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("no model")
}
func (nopBackend) Transcribe(context.Context, string, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("no model")
}
func (nopBackend) CallVine(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}
func (nopBackend) Log(context.Context, slog.Level, string) {}

func rankingManifest() ext.Manifest {
	return ext.Manifest{ID: "ranker", Version: "1", License: "MIT", StationCompat: ">=0",
		Contributes: ext.Contributes{Ranking: []ext.HandlerSpec{{Name: "fresh_first", Handler: "fresh"}}}}
}

func TestSealChecksTheManifest(t *testing.T) {
	rank := func(context.Context, string, []ext.Ranked) ([]string, error) { return nil, nil }
	api := ext.NewAPI(rankingManifest(), nopBackend{})
	require.NoError(t, api.Ranking("fresh", rank))
	require.NoError(t, api.Seal())
	assert.ErrorIs(t, api.Ranking("late", rank), ext.ErrSealed)

	missing := ext.NewAPI(rankingManifest(), nopBackend{})
	assert.ErrorContains(t, missing.Seal(), `claims ranking handler "fresh"`)

	extra := ext.NewAPI(rankingManifest(), nopBackend{})
	require.NoError(t, extra.Ranking("fresh", rank))
	require.NoError(t, extra.Prompt("sneaky", func(context.Context, string, string, string) (string, error) { return "", nil }))
	assert.ErrorContains(t, extra.Seal(), `"sneaky" is not claimed`)

	dup := ext.NewAPI(rankingManifest(), nopBackend{})
	require.NoError(t, dup.Ranking("fresh", rank))
	assert.Error(t, dup.Ranking("fresh", rank))
}

func TestInvoke(t *testing.T) {
	api := ext.NewAPI(rankingManifest(), nopBackend{})
	require.NoError(t, api.Ranking("fresh", func(ctx context.Context, q string, rs []ext.Ranked) ([]string, error) {
		if ext.CallOf(ctx).Forest != "news" {
			return nil, errors.New("no call in ctx")
		}
		out := []string{}
		for i := len(rs) - 1; i >= 0; i-- {
			out = append(out, rs[i].ID)
		}
		return out, nil
	}))
	require.NoError(t, api.Seal())
	ctx := ext.WithCall(context.Background(), ext.Call{Forest: "news", Principal: "ada"})
	out, err := api.Invoke(ctx, ext.SeamRanking, "fresh", json.RawMessage(`{"query":"q","results":[{"id":"a"},{"id":"b"}]}`))
	require.NoError(t, err)
	assert.JSONEq(t, `["b","a"]`, string(out))

	_, err = api.Invoke(ctx, ext.SeamRanking, "fresh", json.RawMessage(`{"query":"q","extra":1}`))
	var he *ext.HandlerError
	require.ErrorAs(t, err, &he)
	assert.Contains(t, he.Message, `unknown field "extra"`, "a parameter the seam does not pass is refused")

	_, err = api.Invoke(ctx, ext.SeamRanking, "absent", nil)
	require.ErrorAs(t, err, &he)
}

func TestInvokeRecoversAPanic(t *testing.T) {
	m := rankingManifest()
	api := ext.NewAPI(m, nopBackend{})
	require.NoError(t, api.Ranking("fresh", func(context.Context, string, []ext.Ranked) ([]string, error) { panic("oops") }))
	_, err := api.Invoke(context.Background(), ext.SeamRanking, "fresh", nil)
	assert.ErrorContains(t, err, "panic: oops")
}

func TestDecodeConversion(t *testing.T) {
	c, err := ext.DecodeConversion(json.RawMessage(`{"kind":"markdown","title":"T","markdown":"# T"}`))
	require.NoError(t, err)
	assert.Equal(t, "# T", c.Markdown)
	_, err = ext.DecodeConversion(json.RawMessage(`{"kind":"markdown","summary":"x"}`))
	assert.ErrorContains(t, err, "unknown field", "an unknown field fails the claimant")
	_, err = ext.DecodeConversion(json.RawMessage(`{"kind":"video"}`))
	assert.Error(t, err)
}

func TestContractsCoverEverySeam(t *testing.T) {
	seams := map[ext.Seam]bool{}
	for _, c := range ext.Contracts() {
		assert.False(t, seams[c.Seam], "seam %s declared twice", c.Seam)
		seams[c.Seam] = true
		assert.NotEmpty(t, c.Summary)
		assert.Equal(t, c.Declarative, c.Params == nil, "%s: handlers take parameters, declarative seams none", c.Seam)
	}
	for _, s := range []ext.Seam{ext.SeamConverters, ext.SeamCuration, ext.SeamEvents, ext.SeamJobs, ext.SeamTools,
		ext.SeamRoutes, ext.SeamRanking, ext.SeamPrompt, ext.SeamRoles, ext.SeamPanel} {
		assert.True(t, seams[s], "seam %s has no contract", s)
	}
}

type compiledExt struct{ m ext.Manifest }

func (c compiledExt) Manifest() ext.Manifest      { return c.m }
func (c compiledExt) Register(api *ext.API) error { return nil }

func TestRegister(t *testing.T) {
	ok := compiledExt{ext.Manifest{ID: "compiled-one", Version: "1", License: "MIT", StationCompat: ">=0"}}
	ext.Register(ok)
	assert.Panics(t, func() { ext.Register(ok) }, "twice")
	assert.Panics(t, func() { ext.Register(nil) })
	assert.Panics(t, func() { ext.Register(compiledExt{ext.Manifest{ID: "X"}}) }, "invalid manifest")
	var ids []string
	for _, e := range ext.Registered() {
		ids = append(ids, e.Manifest().ID)
	}
	assert.Contains(t, ids, "compiled-one")
}
