// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/sqlitefile"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/trails"
)

func TestSetHeatMode(t *testing.T) {
	ctx := context.Background()
	v, dir := writableFixture(t)
	m, err := v.HeatMode(ctx)
	require.NoError(t, err)
	assert.Equal(t, trails.Unconditioned, m, "the default")

	testforest.Unchanged(t, dir, func() {
		err = v.SetHeatMode(ctx, "warm")
	})
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, ESchema, e.Code)
	assert.Contains(t, e.Message, "'mode'")
	m, _ = v.HeatMode(ctx)
	assert.Equal(t, trails.Unconditioned, m, "a refused mode changes nothing")

	testforest.Unchanged(t, dir, func() { require.NoError(t, v.SetHeatMode(ctx, trails.Conditioned)) })
	ro := openT(t, dir, &Options{ReadOnly: true})
	m, err = ro.HeatMode(ctx)
	require.NoError(t, err)
	assert.Equal(t, trails.Conditioned, m, "recorded in the derived layer, seen by every handle")
	err = ro.SetHeatMode(ctx, trails.Unconditioned)
	require.True(t, errors.As(err, &e))
	assert.Equal(t, EReadOnly, e.Code)
}

// TestHuntHeatFollowsItsQuestion: a hunt's close lays its heat on the
// questions it asked; in conditioned mode a later question like them
// reads that heat, in locate and, through the hunt, in reads that ask
// nothing, while an unrelated one does not. Unconditioned reads every
// question alike.
func TestHuntHeatFollowsItsQuestion(t *testing.T) {
	ctx := context.Background()
	v, _ := writableFixture(t)
	const answer = "operations/radio-schedule"
	hunt := WithSession(ctx, "hunt-radio")
	_, err := v.Locate(hunt, "radio schedule bulletins", LocateOptions{})
	require.NoError(t, err)
	_, err = v.CloseSession(hunt, true, []string{answer})
	require.NoError(t, err)

	heatIn := func(session, query string) float64 {
		sctx := WithSession(ctx, session)
		if query != "" {
			_, err := v.Locate(sctx, query, LocateOptions{K: 1})
			require.NoError(t, err)
		}
		return v.heat.read(sctx, []string{answer})[answer] // as look, move and scan read it
	}
	for _, tc := range []struct {
		mode           trails.HeatMode
		related, other float64
	}{
		{trails.Unconditioned, 0.1, 0.1},
		{trails.Conditioned, 0.1, 0},
	} {
		require.NoError(t, v.SetHeatMode(ctx, tc.mode))
		assert.Equal(t, tc.related, heatIn("again-"+string(tc.mode), "radio schedule bulletins"), "%s: the same question", tc.mode)
		assert.Equal(t, tc.other, heatIn("other-"+string(tc.mode), "fuel logistics"), "%s: an unrelated question", tc.mode)
		assert.Equal(t, 0.1, heatIn("none-"+string(tc.mode), ""), "%s: a hunt that asked nothing reads node heat", tc.mode)
	}
}

// TestOriginalTrailsBehaveAsBefore: the reference forest written by the
// original, given a trails.db in the original's schema, ranks with its
// heat as before, and opening, locating, looking and moving leave that
// file's schema as the original wrote it.
func TestOriginalTrailsBehaveAsBefore(t *testing.T) {
	ctx := context.Background()
	dir := testforest.Reference(t)
	path := filepath.Join(dir, "_derived", "trails.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	db, err := sqlitefile.Open(path, "", nil)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.ExecContext(ctx, `CREATE TABLE heat(scope TEXT NOT NULL DEFAULT '', node_id TEXT NOT NULL,
		heat REAL NOT NULL DEFAULT 0, updated REAL NOT NULL, PRIMARY KEY(scope, node_id))`)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `INSERT INTO heat VALUES ('', 'concepts/aco', 0.5, 1780000000)`)
	require.NoError(t, err)
	schema := func() string {
		var s string
		require.NoError(t, db.QueryRowContext(ctx, `SELECT group_concat(name, ',') FROM sqlite_master`).Scan(&s))
		return s
	}
	before := schema()

	v := openT(t, dir, nil)
	hunt := WithSession(ctx, "reader")
	res, err := v.Locate(hunt, "ant colony optimization pheromone", LocateOptions{K: 3})
	require.NoError(t, err)
	require.NotEmpty(t, res.Results)
	assert.Equal(t, "concepts/aco", res.Results[0].ID)
	assert.Equal(t, 0.5, res.Results[0].Heat, "the original's heat ranks as before")
	_, err = v.Look(hunt, "concepts/_index", LookOptions{})
	require.NoError(t, err)
	_, err = v.Move(hunt, "concepts/aco", MoveOptions{})
	require.NoError(t, err)
	m, err := v.HeatMode(ctx)
	require.NoError(t, err)
	assert.Equal(t, trails.Unconditioned, m)
	assert.Equal(t, before, schema(), "reads add no table to the original's file")
}

// TestShortcutFortificationCarriesTheHunt: a graft that follows a hunt's
// close in its session fortifies the shortcut on that hunt's questions;
// the session's next question starts a topic of its own.
func TestShortcutFortificationCarriesTheHunt(t *testing.T) {
	ctx := context.Background()
	v, _ := writableFixture(t)
	const target = "concepts/beaufort-scale"
	hunt := WithSession(ctx, "hunt-wind")
	const question = "beaufort wind scale departure"
	_, err := v.Locate(hunt, question, LocateOptions{})
	require.NoError(t, err)
	asked := v.heat.topicOf(hunt)
	require.NotEmpty(t, asked)
	_, err = v.CloseSession(hunt, true, []string{target})
	require.NoError(t, err)
	_, err = v.Call(hunt, "graft", []byte(`{"id": "operations/departure-checklist", "patch": {"add_links": [
		{"rel": "discovered-shortcut", "target": "`+target+`"}]}}`))
	require.NoError(t, err)

	plain, err := v.heat.store.Heat(ctx, []string{target}, "")
	require.NoError(t, err)
	assert.Equal(t, 0.2, plain[target], "the close and the fortification")
	on, err := v.heat.store.HeatOn(ctx, []string{target}, "", asked)
	require.NoError(t, err)
	assert.Equal(t, 0.2, on[target], "both on the hunt's questions")
	off, err := v.heat.store.HeatOn(ctx, []string{target}, "", trails.TopicOf([]string{"fuel", "logistics"}))
	require.NoError(t, err)
	assert.Empty(t, off)

	_, err = v.Locate(hunt, "fuel logistics", LocateOptions{})
	require.NoError(t, err)
	assert.Equal(t, trails.TopicOf([]string{"fuel", "logistics"}), v.heat.topicOf(WithSession(ctx, "hunt-wind")),
		"after the close, the session's next question starts a new hunt")
}
