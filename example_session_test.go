// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"fmt"
	"log"

	"github.com/monkeyllm/vine"
)

// A session is one hunt: its reads are traced, and closing it with
// success leaves heat on the answer and the indexes above it, which the
// next locate ranks by.
func ExampleVine_CloseSession() {
	v, done, err := newExampleForest(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	defer done()
	ctx := vine.WithSession(context.Background(), "hunt-1")

	res, err := v.Locate(ctx, "storm drill", vine.LocateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := v.Pick(ctx, res.Results[0].ID, vine.PickOptions{Section: "Moorings"}); err != nil {
		log.Fatal(err)
	}
	out, err := v.CloseSession(ctx, true, []string{"harbour/storm-drill"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Session, out.Outcome.Success, out.Outcome.AnswerNodes)

	ids := []string{"_index", "harbour/_index", "harbour/storm-drill", "harbour/radio-schedule"}
	heat, err := v.Trails().Heat(context.Background(), ids, "")
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range ids {
		fmt.Printf("%s %.2f\n", id, heat[id])
	}
	// Output:
	// hunt-1 true [harbour/storm-drill]
	// _index 0.10
	// harbour/_index 0.10
	// harbour/storm-drill 0.10
	// harbour/radio-schedule 0.00
}
