// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine"
)

// exampleNow is the fixed clock of the examples: noon local time, so the
// calendar date written to nodes is the same in every time zone.
func exampleNow() time.Time { return time.Date(2026, 3, 14, 12, 0, 0, 0, time.Local) }

// harbourNodes is the small forest most examples read: a branch with two
// notes, one linking the other. harbourTides, planted after them, is a
// dataset born from a declared schema (a birth is always a plant of its own).
var harbourNodes = []vine.NodeSpec{
	{ID: "harbour/_index", Type: "branch", Title: "Harbour", Parent: "_index",
		Summary: "Everything about running the harbour: drills, radio, tides."},
	{ID: "harbour/storm-drill", Type: "note", Title: "Storm drill", Parent: "harbour/_index",
		Summary: "What every crew does when the storm warning sounds.",
		Tags:    []string{"safety"},
		Body: "## Warning\n\nThe siren sounds three times; crews stop loading.\n\n" +
			"## Moorings\n\nDouble every mooring line and close the breakwater gate.\n\n" +
			"## All clear\n\nThe harbour master calls the all clear on channel 16.",
		Links: []vine.Link{{Rel: "related-to", Target: "harbour/radio-schedule"}}},
	{ID: "harbour/radio-schedule", Type: "note", Title: "Radio schedule", Parent: "harbour/_index",
		Summary: "Which channel the harbour master answers on, hour by hour.",
		Body:    "## Channels\n\nChannel 16 for calls and distress, channel 12 for berthing."},
}

var harbourTides = vine.NodeSpec{ID: "harbour/tides", Type: "dataset", Title: "Tide table", Parent: "harbour/_index",
	Summary: "High and low water at the harbour mouth for March 2026.",
	Schema: []vine.TableSpec{{Name: "tides", Columns: []vine.ColumnSpec{
		{Name: "day", Type: "TEXT"}, {Name: "high", Type: "TEXT"}, {Name: "metres", Type: "REAL"}}}},
	Rows: map[string][][]any{"tides": {
		{"2026-03-14", "06:12", 3.4}, {"2026-03-14", "18:31", 3.6}, {"2026-03-15", "06:55", 3.2}}}}

// newExampleForest makes a forest in a temporary folder with the fixed
// clock, through the public API only (Init, Open, PlantBatch, Plant), and
// plants harbourNodes and harbourTides in it; done closes it and removes
// the folder.
func newExampleForest(ctx context.Context) (v *vine.Vine, done func(), err error) {
	return newExampleForestWith(ctx, nil)
}

// newExampleForestWith is newExampleForest opening the forest with opts;
// a nil opts.Now is the fixed clock.
func newExampleForestWith(ctx context.Context, opts *vine.Options) (v *vine.Vine, done func(), err error) {
	o := vine.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = exampleNow
	}
	tmp, err := os.MkdirTemp("", "vine-example-")
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(tmp, "kb")
	if _, err := vine.Init(ctx, dir, "Port authority", &vine.InitOptions{Now: exampleNow}); err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	if v, err = vine.Open(ctx, dir, &o); err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	done = func() {
		v.Close()
		os.RemoveAll(tmp)
	}
	if _, err := v.PlantBatch(ctx, harbourNodes, vine.PlantOptions{}); err != nil {
		done()
		return nil, nil, err
	}
	if _, err := v.Plant(ctx, harbourTides, vine.PlantOptions{}); err != nil {
		done()
		return nil, nil, err
	}
	return v, done, nil
}
