// SPDX-License-Identifier: Apache-2.0

package catalog_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/catalog"
)

// The catalog stores what its caller derived from the markdown; it parses
// nothing itself. Get answers a node's row and its declared edges, and
// InEdges the edges seen from their destination.
func ExampleCatalog() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "catalog-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	c, err := catalog.Open(ctx, filepath.Join(tmp, "catalog.db"), catalog.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	err = c.Upsert(ctx,
		catalog.Record{ID: "_index", Kind: "branch", Type: "branch", Title: "Port authority", Confidence: 1},
		catalog.Record{ID: "storm-drill", Kind: "note", Type: "note", Title: "Storm drill", Confidence: 1,
			Parent: "_index", Trail: []string{"_index"}, Outline: []string{"Warning", "Moorings"},
			Edges: []catalog.Edge{{Rel: "related-to", Dst: "radio-schedule", Confidence: 1}}},
		catalog.Record{ID: "radio-schedule", Kind: "note", Type: "note", Title: "Radio schedule", Confidence: 1,
			Parent: "_index", Trail: []string{"_index"}},
	)
	if err != nil {
		log.Fatal(err)
	}

	rec, ok, err := c.Get(ctx, "storm-drill")
	if err != nil || !ok {
		log.Fatal(ok, err)
	}
	fmt.Println(rec.Title, rec.Trail, rec.Outline, rec.Edges)
	in, _ := c.InEdges(ctx, "radio-schedule")
	fmt.Println(in)
	st, _ := c.Stats(ctx)
	fmt.Printf("%+v\n", st)
	// Output:
	// Storm drill [_index] [Warning Moorings] [{related-to radio-schedule 1}]
	// [{storm-drill related-to 1}]
	// {Nodes:3 Branches:1 Edges:1 Moves:0}
}
