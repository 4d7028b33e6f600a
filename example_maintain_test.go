// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gitops"
)

// Maintain is the operator's write path (the Ranger's): read nodes under
// the writer lock, stage rewrites, and land them as one commit under a
// subject of the forest's git layer. It never creates or deletes a node.
func ExampleVine_Maintain() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	subject := gitops.RangerPruneSubject("harbour/storm-drill", "related-to", "harbour/radio-schedule")
	sha, err := v.Maintain(ctx, subject, func(e *vine.Editor) error {
		n, err := e.Node("harbour/storm-drill")
		if err != nil {
			return err
		}
		n.Front.Delete("links")
		return e.Put(n)
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("committed:", sha != "")
	nb, _ := v.Move(ctx, "harbour/radio-schedule", vine.MoveOptions{Direction: vine.DirectionIn})
	fmt.Println("in-edges left:", len(nb.Neighbors))
	h, _ := v.History(ctx, "harbour/storm-drill", vine.HistoryOptions{Limit: 1})
	fmt.Println(h.Entries[0].Action, h.Entries[0].Message)
	// Output:
	// committed: true
	// in-edges left: 0
	// ranger ranger(prune): harbour/storm-drill related-to->harbour/radio-schedule
}

// OpenPayload opens a node's local payload after every gate, the bytes a
// host serves for the node; a node without one answers as an absent node.
func ExampleVine_OpenPayload() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	f, err := v.OpenPayload(ctx, "harbour/tides")
	if err != nil {
		log.Fatal(err)
	}
	header := make([]byte, 15)
	_, err = io.ReadFull(f, header)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %q %s\n", f.ID, header, f.MediaType)

	_, err = v.OpenPayload(ctx, "harbour/storm-drill")
	fmt.Println(vine.CodeOf(err))
	// Output:
	// harbour/tides "SQLite format 3" application/vnd.sqlite3
	// E_NOT_FOUND
}
