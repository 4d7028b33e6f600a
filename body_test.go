// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// A Body answers Pick and SniffEach exactly as the primitives do, and
// refuses what they refuse: a hidden node like an absent one, a bad
// option before anything else.
func TestBodyAnswersLikeThePrimitives(t *testing.T) {
	ctx := context.Background()
	v := readOnlyFixture(t)
	terms := []string{"storm", "Tidewatch", "buoy", "zzz-absent"}
	picks := []vine.PickOptions{{}, {Section: "Chapter 1"}, {Sections: []string{"Chapter 1", "Checklist 5"}},
		{Paged: true}, {Section: "No such section"}, {Section: "Chapter 1", Paged: true}}
	for _, id := range []string{"library/tidewatch-field-report-2", "projects/tidewatch/alert-thresholds",
		"projects/tidewatch/_index", "finance/ledger-2026", "/library/tidewatch-field-report-2/"} {
		body, err := v.ReadBody(ctx, id)
		require.NoError(t, err, id)
		rec, err := v.Record(ctx, strings.Trim(id, "/"))
		require.NoError(t, err, id)
		of, err := v.BodyOf(ctx, rec)
		require.NoError(t, err, id)
		assert.Equal(t, body, of, "%s: BodyOf a row reads what ReadBody reads", id)
		wantHits, wantErr := v.SniffEach(ctx, id, terms)
		gotHits, gotErr := body.SniffEach(terms)
		assert.Equal(t, wantErr, gotErr, id)
		assert.Equal(t, wantHits, gotHits, id)
		for _, opt := range picks {
			want, wantErr := v.Pick(ctx, id, opt)
			got, gotErr := body.Pick(opt)
			assert.Equal(t, vine.CodeOf(wantErr), vine.CodeOf(gotErr), "%s %+v", id, opt)
			assert.Equal(t, want, got, "%s %+v", id, opt)
		}
		_, err = body.SniffEach(nil)
		assert.Equal(t, vine.ESchema, vine.CodeOf(err), "empty terms")
	}

	sc, err := v.Scoped(tidewatchHidden)
	require.NoError(t, err)
	_, hidden := v.ReadBody(sc.Context(ctx), "projects/tidewatch/alert-thresholds")
	_, absent := v.ReadBody(sc.Context(ctx), "projects/no-such-node")
	require.Error(t, hidden)
	assert.Equal(t, vine.ENotFound, vine.CodeOf(hidden))
	assert.Equal(t, vine.CodeOf(absent), vine.CodeOf(hidden))
	redact := func(err error, id string) string {
		return strings.ReplaceAll(string(vine.AsError("pick", err).Body()), id, "<ID>")
	}
	assert.Equal(t, redact(absent, "projects/no-such-node"), redact(hidden, "projects/tidewatch/alert-thresholds"),
		"the refusal does not depend on whether the node exists")
}

// BodyOf trusts the row's fields but not its id: the id must be canonical,
// inside the forest and in scope.
func TestBodyOfChecksTheID(t *testing.T) {
	ctx := context.Background()
	v := readOnlyFixture(t)
	rec, err := v.Record(ctx, "projects/tidewatch/alert-thresholds")
	require.NoError(t, err)
	sc, err := v.Scoped(tidewatchHidden)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		id   string
	}{
		{"hidden by the policy", sc.Context(ctx), rec.ID},
		{"empty", ctx, ""},
		{"not canonical", ctx, "/" + rec.ID + "/"},
		{"padded", ctx, " " + rec.ID},
		{"escapes the forest", ctx, "../" + rec.ID},
		{"absolute", ctx, v.Dir() + "/" + rec.ID},
		{"into _derived", ctx, "_derived/catalog"},
	} {
		r := rec
		r.ID = tc.id
		_, err := v.BodyOf(tc.ctx, r)
		assert.Equal(t, vine.ENotFound, vine.CodeOf(err), tc.name)
	}
	_, err = v.BodyOf(ctx, rec)
	assert.NoError(t, err, "the row as read")
}

// tidewatchHidden lets a reader see projects except Tidewatch.
var tidewatchHidden = vine.Policy{Allow: []string{"projects"}, Deny: []string{"projects/tidewatch"},
	Caps: []vine.Capability{vine.CapRead}}

// readOnlyFixture opens a fresh copy of the fixture read-only.
func readOnlyFixture(t *testing.T) *vine.Vine {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(context.Background(), dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}
