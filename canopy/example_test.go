// SPDX-License-Identifier: Apache-2.0

package canopy_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/catalog"
)

// Build an index of node texts with the deterministic Hash embedder and
// find the nodes nearest a question.
func ExampleBuild() {
	ctx := context.Background()
	e := canopy.NewHash("hash", 256)
	nodes := []canopy.Node{
		{ID: "concepts/tide", Title: "Tide", Summary: "Water rises and falls twice a day."},
		{ID: "events/storm", Title: "Storm", Summary: "A storm closed the harbour."},
		{ID: "sales/ledger", Title: "Ledger", Summary: "Fish sales by boat."},
	}
	ix, err := canopy.Build(ctx, e, nodes, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(canopy.Readiness(e, ix), ix.Len(), ix.Dim)

	q, _ := e.Embed(ctx, []string{"when did the storm close the harbour"})
	for _, h := range ix.Nearest(q[0], 1) {
		fmt.Println(h.ID)
	}
	// Output:
	// active 3 256
	// events/storm
}

// A status is what every surface reports about the layer.
func ExampleNewStatus() {
	s := canopy.NewStatus(canopy.NewHash("hash", 8), nil, 12)
	fmt.Println(s.State, s.Active, s.Stale)
	// Output:
	// no-index false 12
}

// A Layer is a forest's vector layer: it reads node texts from the
// catalog, keeps its index in its own directory and ranks toward a goal.
func ExampleLayer() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "canopy-example")
	defer os.RemoveAll(dir)
	cat, err := catalog.Open(ctx, filepath.Join(dir, "catalog.db"), catalog.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cat.Close()
	cat.Upsert(ctx,
		catalog.Record{ID: "concepts/tide", Kind: "note", Type: "concept", Title: "Tide", Summary: "Water rises and falls twice a day."},
		catalog.Record{ID: "events/storm", Kind: "note", Type: "event", Title: "Storm", Summary: "A storm closed the harbour."})

	l := canopy.NewLayer(filepath.Join(dir, "canopy"), &canopy.LayerOptions{Embedder: canopy.NewHash("hash", 256)})
	l.Attach(cat)
	if _, err := l.Build(ctx); err != nil {
		fmt.Println(err)
		return
	}
	ids, _ := l.Nearest(ctx, "when did the storm close the harbour", 1)
	fmt.Println(l.State(ctx), ids)
	// Output:
	// active [events/storm]
}
