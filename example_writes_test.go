// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
)

// Plant writes one new node, re-renders its parent's index and commits
// both. A dry run checks everything and writes nothing; IfAbsent makes a
// repeated plant harmless.
func ExampleVine_Plant() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	spec := vine.NodeSpec{ID: "harbour/fuel-dock", Type: "note", Title: "Fuel dock", Parent: "harbour/_index",
		Summary: "Opening hours of the fuel dock and who signs the delivery notes."}
	dry, err := v.Plant(ctx, spec, vine.PlantOptions{DryRun: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("dry run valid:", dry.Valid)
	res, err := v.Plant(ctx, spec, vine.PlantOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.ID, *res.Created, res.Trail)
	again, err := v.Plant(ctx, spec, vine.PlantOptions{IfAbsent: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created again:", *again.Created)
	// Output:
	// dry run valid: true
	// harbour/fuel-dock true [_index harbour/_index]
	// created again: false
}

// PlantBatch writes up to MaxBatchPlant nodes in one commit, or none of
// them: a branch and its first notes can arrive together.
func ExampleVine_PlantBatch() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.PlantBatch(ctx, []vine.NodeSpec{
		{ID: "crew/_index", Type: "branch", Title: "Crew", Parent: "_index",
			Summary: "Who works the harbour and how to reach them."},
		{ID: "crew/ana-ribeiro", Type: "entity", EntityKind: "person", Title: "Ana Ribeiro", Parent: "crew/_index",
			Summary: "Harbour master since 2019; answers on channel 16."},
	}, vine.PlantOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Count, "created:", res.Created)
	// Output:
	// 2 created: [crew/_index crew/ana-ribeiro]
}

// Graft edits a node in place: frontmatter, links and body in one
// commit. A body change without a new summary is flagged SummaryStale.
func ExampleVine_Graft() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.Graft(ctx, "harbour/radio-schedule", vine.GraftPatch{
		SetFrontmatter: []forest.Field{{Key: "tags", Value: []string{"radio"}}},
		AppendSection:  &vine.SectionEdit{Header: "Night watch", Body: "From 22:00 only channel 16 is staffed."},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("committed:", res.Commit != nil, "summary stale:", res.SummaryStale)

	d, _ := v.Look(ctx, "harbour/radio-schedule", vine.LookOptions{})
	fmt.Println(d.Tags, d.Outline)
	// Output:
	// committed: true summary stale: true
	// [radio] [Channels Night watch]
}

// Query runs one read-only SELECT against a dataset's SQLite payload and
// answers columns and rows, never objects.
func ExampleVine_Query() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	rows, err := v.Query(ctx, "harbour/tides", "SELECT day, high, metres FROM tides WHERE metres > 3.3 ORDER BY high")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rows.Columns)
	for _, r := range rows.Rows {
		fmt.Println(r...)
	}
	// Output:
	// [day high metres]
	// 2026-03-14 06:12 3.4
	// 2026-03-14 18:31 3.6
}

// Tend changes a dataset's rows with one INSERT, UPDATE or DELETE and
// records the payload's new hash in the passport.
func ExampleVine_Tend() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.Tend(ctx, "harbour/tides", "INSERT INTO tides VALUES ('2026-03-15', '19:14', 3.5)")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows affected:", res.RowsAffected)
	rows, _ := v.Query(ctx, "harbour/tides", "SELECT count(*) FROM tides")
	fmt.Println("rows now:", rows.Rows[0][0])
	// Output:
	// rows affected: 1
	// rows now: 4
}

// Prune removes a node; a node others link to is refused with
// E_ANCHORED unless Force drops those links in the same commit.
func ExampleVine_Prune() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	_, err = v.Prune(ctx, "harbour/radio-schedule", vine.PruneOptions{})
	fmt.Println(vine.CodeOf(err))
	res, err := v.Prune(ctx, "harbour/radio-schedule", vine.PruneOptions{Force: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pruned:", res.Pruned, "links dropped:", res.BacklinksRemoved)
	// Output:
	// E_ANCHORED
	// pruned: true links dropped: 1
}

// Transplant moves a node to a new id, rewrites the links that pointed at
// it and leaves a waymark: the old id answers E_MOVED.
func ExampleVine_Transplant() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.Transplant(ctx, "harbour/radio-schedule", "harbour/vhf-channels")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.MovedFrom, "->", res.ID, "links rewritten:", res.BacklinksRewritten)
	_, err = v.Look(ctx, "harbour/radio-schedule", vine.LookOptions{})
	fmt.Println(vine.CodeOf(err))
	// Output:
	// harbour/radio-schedule -> harbour/vhf-channels links rewritten: 1
	// E_MOVED
}

// View answers where a media node's image is and what it is; the caller
// reads the bytes from Dir (a transport sends them, never the path).
func ExampleVine_View() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	// A media payload sits in the branch's _assets folder before the plant.
	assets := filepath.Join(v.Dir(), "harbour", "_assets")
	if err := os.MkdirAll(assets, 0o755); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(filepath.Join(assets, "mouth.png"))
	if err != nil {
		log.Fatal(err)
	}
	png.Encode(f, image.NewGray(image.Rect(0, 0, 2, 2)))
	f.Close()
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "harbour/mouth-chart", Type: "media", Title: "Harbour mouth",
		Parent: "harbour/_index", Summary: "Chart of the harbour mouth with the two leading lights.",
		Payload: "_assets/mouth.png", PayloadType: "image"}, vine.PlantOptions{})
	if err != nil {
		log.Fatal(err)
	}

	res, err := v.View(ctx, "harbour/mouth-chart")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Path, res.MediaType)
	// Output:
	// harbour/_assets/mouth.png image/png
}
