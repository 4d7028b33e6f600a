// SPDX-License-Identifier: Apache-2.0

package snapshot_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/snapshot"
)

// A forest goes into one .forest file and comes back as a new forest,
// history, payloads and all.
func Example() {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "snapshot-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "harbour")
	if err := plantHarbour(ctx, src); err != nil {
		log.Fatal(err)
	}

	created, err := snapshot.Create(ctx, src, snapshot.CreateOptions{OutDir: filepath.Join(work, "backups")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d payloads packed, %d omitted\n", filepath.Ext(created.File), created.Payloads, created.PayloadsOmitted)

	restored, err := snapshot.Restore(ctx, created.File, filepath.Join(work, "harbour-copy"), snapshot.RestoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d nodes, %d payloads restored, %d missing\n",
		filepath.Base(restored.Forest), restored.Nodes, restored.RestoredPayloads, restored.PayloadsMissing)
	// Output:
	// .forest: 1 payloads packed, 0 omitted
	// harbour-copy: 5 nodes, 1 payloads restored, 0 missing
}

// plantHarbour makes a forest at dir with the public API: a branch, a
// note and a dataset whose SQLite payload the snapshot packs.
func plantHarbour(ctx context.Context, dir string) error {
	if _, err := vine.Init(ctx, dir, "Harbour", nil); err != nil {
		return err
	}
	v, err := vine.Open(ctx, dir, nil)
	if err != nil {
		return err
	}
	defer v.Close()
	_, err = v.PlantBatch(ctx, []vine.NodeSpec{
		{ID: "harbour/_index", Type: "branch", Title: "Harbour", Parent: "_index",
			Summary: "Everything about running the harbour: drills, radio, tides."},
		{ID: "harbour/storm-drill", Type: "note", Title: "Storm drill", Parent: "harbour/_index",
			Summary: "What every crew does when the storm warning sounds."},
	}, vine.PlantOptions{})
	if err != nil {
		return err
	}
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "harbour/tides", Type: "dataset", Title: "Tide table",
		Parent: "harbour/_index", Summary: "High and low water at the harbour mouth for March 2026.",
		Schema: []vine.TableSpec{{Name: "tides", Columns: []vine.ColumnSpec{{Name: "day", Type: "TEXT"}}}},
		Rows:   map[string][][]any{"tides": {{"2026-03-14"}}}}, vine.PlantOptions{})
	return err
}
