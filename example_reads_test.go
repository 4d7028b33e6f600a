// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"fmt"
	"log"

	"github.com/monkeyllm/vine"
)

// Locate is the way in: a ranked list of passports for a question, each
// with its trail and body size, so the caller knows what a look or a pick
// will cost before paying for it.
func ExampleVine_Locate() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.Locate(ctx, "storm warning crews", vine.LocateOptions{K: 3})
	if err != nil {
		log.Fatal(err)
	}
	for _, hit := range res.Results {
		fmt.Println(hit.ID, hit.Kind, hit.Trail, hit.BodyTokens)
	}
	fmt.Println("truncated:", res.Truncated)
	// Output:
	// harbour/storm-drill note [_index harbour/_index] 51
	// truncated: false
}

// Look reads a node's digest: passport, outline, edges both ways, within
// 500 tokens. It never returns the body.
func ExampleVine_Look() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	d, err := v.Look(ctx, "harbour/storm-drill", vine.LookOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Title, d.Created)
	fmt.Println("outline:", d.Outline)
	for _, e := range d.EdgesOut {
		fmt.Println("out:", e.Rel, e.Target)
	}
	// Output:
	// Storm drill 2026-03-14
	// outline: [Warning Moorings All clear]
	// out: related-to harbour/radio-schedule
}

// Move walks the edges of a node; in-edges carry the inverse rel, and
// Rel "children" lists a branch's children instead.
func ExampleVine_Move() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	nb, err := v.Move(ctx, "harbour/radio-schedule", vine.MoveOptions{Direction: vine.DirectionIn})
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range nb.Neighbors {
		fmt.Println(n.Direction, n.Rel, n.ID)
	}
	kids, err := v.Move(ctx, "harbour/_index", vine.MoveOptions{Rel: "children"})
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range kids.Neighbors {
		fmt.Println("child:", n.ID, n.Type)
	}
	// Output:
	// in related-to harbour/storm-drill
	// child: harbour/radio-schedule note
	// child: harbour/storm-drill note
	// child: harbour/tides dataset
}

// Pick reads the body: one section by name, several under one budget, or
// page by page with a cursor.
func ExampleVine_Pick() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	sec, err := v.Pick(ctx, "harbour/storm-drill", vine.PickOptions{Section: "moorings"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sec.Body)

	many, err := v.Pick(ctx, "harbour/storm-drill", vine.PickOptions{Sections: []string{"Warning", "Dinghies"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("picked:", len(many.Sections), "missing:", many.Missing)
	// Output:
	// ## Moorings
	//
	// Double every mooring line and close the breakwater gate.
	// picked: 1 missing: [Dinghies]
}

// Scan lists a branch: by heat, or as an enumeration in id order when
// After is set, with a cursor for the next page.
func ExampleVine_Scan() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	start := ""
	page, err := v.Scan(ctx, "harbour/_index", vine.ScanOptions{After: &start, Limit: 2, Fields: []string{"type", "title"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range page.Nodes {
		fmt.Println(it.ID, it.Type, it.Title)
	}
	fmt.Println("total:", page.Total, "next:", page.Next)
	// Output:
	// harbour/radio-schedule note Radio schedule
	// harbour/storm-drill note Storm drill
	// total: 3 next: harbour/storm-drill
}

// Sniff searches bodies for terms and answers where they occur, section
// by section, best node first.
func ExampleVine_Sniff() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.Sniff(ctx, []string{"channel 16"}, vine.SniffOptions{Scope: "harbour"})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Results {
		fmt.Println(h.ID, h.MatchCount, *h.Matches[0].Section)
	}
	fmt.Println("scanned:", res.ScannedNodes)
	// Output:
	// harbour/radio-schedule 1 Channels
	// harbour/storm-drill 1 All clear
	// scanned: 4
}

// SniffEach asks one node about several terms at once: one hit per term,
// in the order asked.
func ExampleVine_SniffEach() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	terms := []string{"siren", "breakwater", "lighthouse"}
	hits, err := v.SniffEach(ctx, "harbour/storm-drill", terms)
	if err != nil {
		log.Fatal(err)
	}
	for i, h := range hits {
		fmt.Println(terms[i], h.MatchCount)
	}
	// Output:
	// siren 1
	// breakwater 1
	// lighthouse 0
}

// LookBatch digests several nodes in one call; ids that name nothing are
// listed, not refused.
func ExampleVine_LookBatch() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.LookBatch(ctx, []string{"harbour/storm-drill", "harbour/lighthouse", "harbour/tides"},
		vine.LookOptions{Fields: []string{"title"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range res.Nodes {
		fmt.Println(d.ID, d.Title)
	}
	fmt.Println("missing:", res.Missing, "dropped:", res.Dropped)
	// Output:
	// harbour/storm-drill Storm drill
	// harbour/tides Tide table
	// missing: [harbour/lighthouse] dropped: []
}

// PickBatch reads several whole bodies under one budget, dropping whole
// nodes from the tail rather than slicing one.
func ExampleVine_PickBatch() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.PickBatch(ctx, []string{"harbour/radio-schedule", "harbour/lighthouse"}, vine.PickOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Nodes {
		fmt.Printf("%s: %q\n", c.ID, c.Body)
	}
	fmt.Println("missing:", res.Missing)
	// Output:
	// harbour/radio-schedule: "## Channels\n\nChannel 16 for calls and distress, channel 12 for berthing.\n"
	// missing: [harbour/lighthouse]
}

// Records reads catalog passports by id without opening a file; ids the
// catalog does not hold are absent from the map.
func ExampleVine_Records() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	recs, err := v.Records(ctx, []string{"harbour/tides", "harbour/lighthouse"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(recs), recs["harbour/tides"].Type, recs["harbour/tides"].Title)
	// Output:
	// 1 dataset Tide table
}

// Harvest gives a model the evidence for a question in one call, with no
// model of its own: entry search and body search fused, each item served
// as its whole body or its matched sections, within one 4000-token wall.
// Every transport serves it as the "harvest" primitive.
func ExampleVine_Harvest() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.Harvest(ctx, "what do crews do when the siren sounds", vine.HarvestOptions{K: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("terms:", res.Terms)
	for _, it := range res.Results {
		fmt.Println(it.ID, it.FoundBy)
		for _, b := range it.Content {
			fmt.Printf("%q\n", *b.Body)
		}
	}
	// Output:
	// terms: [crews siren sounds]
	// harbour/storm-drill [locate sniff]
	// "## Warning\n\nThe siren sounds three times; crews stop loading.\n\n## Moorings\n\nDouble every mooring line and close the breakwater gate.\n\n## All clear\n\nThe harbour master calls the all clear on channel 16.\n"
}
