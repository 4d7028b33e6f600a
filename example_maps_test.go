// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"fmt"
	"log"

	"github.com/monkeyllm/vine"
)

// Graph is what a console draws: the region's passports and the declared
// edges between them, seen through a policy. Degrees count only the
// edges in the answer, so a hidden neighbour is never counted.
func ExampleScoped_Graph() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	sc, err := v.Scoped(vine.Policy{Allow: []string{"harbour"}, Caps: []vine.Capability{vine.CapRead}})
	if err != nil {
		log.Fatal(err)
	}
	g, err := sc.Graph(ctx, vine.MapOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range g.Nodes {
		fmt.Println(n.ID, n.Kind, n.Degree)
	}
	for _, e := range g.Edges {
		fmt.Println(e.Src, e.Rel, e.Dst)
	}
	// Output:
	// harbour/_index branch 0
	// harbour/radio-schedule note 1
	// harbour/storm-drill note 1
	// harbour/tides note 0
	// harbour/storm-drill related-to harbour/radio-schedule
}
