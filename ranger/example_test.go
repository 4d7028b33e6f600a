// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/ranger"
)

// A Ranger run on a small forest: a proposed link between two nodes that
// successful hunts keep warming is promoted, the Landmarks list the most
// woven nodes, and the health report counts what is still unconfirmed.
func Example() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "ranger-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "tides")
	day := func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }

	if _, err := vine.Init(ctx, dir, "Tides", &vine.InitOptions{Now: day}); err != nil {
		log.Fatal(err)
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Now: day})
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	proposal := 0.3
	for _, n := range []vine.NodeSpec{
		{ID: "tide", Summary: "Tide: the twice-daily rise and fall of the sea, driven by the moon."},
		{ID: "swell", Summary: "Swell: long waves raised by distant storms, period 10-20 s.",
			Links: []vine.Link{{Rel: "related-to", Target: "tide", Confidence: &proposal}}},
		{ID: "storm", Summary: "Storm surge: wind-driven sea rise on top of the tide.",
			Links: []vine.Link{{Rel: "related-to", Target: "tide"}}},
	} {
		n.Type, n.Title, n.Parent, n.Body = "note", n.ID, "_index", "# "+n.ID
		if _, err := v.Plant(ctx, n, vine.PlantOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	for range 2 { // two successful hunts answered by both ends
		if _, err := v.CloseSession(ctx, true, []string{"swell", "tide"}); err != nil {
			log.Fatal(err)
		}
	}

	r, err := ranger.New(v, ranger.WithClock(day), ranger.WithoutGC())
	if err != nil {
		log.Fatal(err)
	}
	rep, err := r.Run(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("promoted:", rep.Links.Promoted)
	fmt.Println("landmarks:", rep.Landmarks.Landmarks, "changed:", rep.Landmarks.Changed)
	fmt.Println("uncertain links:", rep.Health.UncertainLinks)
	fmt.Println("gc:", rep.GC)
	// Output:
	// promoted: [swell related-to->tide]
	// landmarks: 3 changed: true
	// uncertain links: map[0.8:1]
	// gc: skipped
}
