// SPDX-License-Identifier: Apache-2.0

package harvest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/harvest"
)

// One sweep gives a model the evidence for a question: entry search and
// body search fused, each item served as its whole body or its matched
// sections, within one 4000-token wall.
func ExampleHarvest() {
	ctx := context.Background()
	v, done, err := drillForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := harvest.Harvest(ctx, harvest.Engine(v), "what do crews do when the siren sounds", harvest.Options{K: 1})
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
	// "## Warning\n\nThe siren sounds three times; crews stop loading and double the moorings.\n"
}

// Signature names the "harvest" primitive of the root's signature table,
// which every transport built on Vine.Call serves.
func ExampleSignature() {
	ctx := context.Background()
	v, done, err := drillForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	out, err := v.Call(ctx, harvest.Signature.Name, []byte(`{"query": "siren", "k": 1}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.(*harvest.Result).Results[0].ID)
	// Output:
	// harbour/storm-drill
}

// drillForest makes a forest holding one branch and two notes; done
// closes it and removes its folder.
func drillForest(ctx context.Context) (v *vine.Vine, done func(), err error) {
	tmp, err := os.MkdirTemp("", "harvest-example-")
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(tmp, "kb")
	if _, err = vine.Init(ctx, dir, "Port authority", nil); err == nil {
		v, err = vine.Open(ctx, dir, nil)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	done = func() {
		v.Close()
		os.RemoveAll(tmp)
	}
	_, err = v.PlantBatch(ctx, []vine.NodeSpec{
		{ID: "harbour/_index", Type: "branch", Title: "Harbour", Parent: "_index",
			Summary: "Everything about running the harbour: drills, radio, tides."},
		{ID: "harbour/storm-drill", Type: "note", Title: "Storm drill", Parent: "harbour/_index",
			Summary: "What every crew does when the storm warning sounds.",
			Body:    "## Warning\n\nThe siren sounds three times; crews stop loading and double the moorings."},
		{ID: "harbour/radio-schedule", Type: "note", Title: "Radio schedule", Parent: "harbour/_index",
			Summary: "Which channel the harbour master answers on, hour by hour.",
			Body:    "## Channels\n\nChannel 16 for calls and distress, channel 12 for berthing."},
	}, vine.PlantOptions{})
	if err != nil {
		done()
		return nil, nil, err
	}
	return v, done, nil
}
