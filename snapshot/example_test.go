package snapshot_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/internal/fixture"
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
	src := filepath.Join(work, "mare-alta")
	if _, err := fixture.Build(ctx, src); err != nil {
		log.Fatal(err)
	}

	created, err := snapshot.Create(ctx, src, snapshot.CreateOptions{OutDir: filepath.Join(work, "backups")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d payloads packed, %d omitted\n", filepath.Ext(created.File), created.Payloads, created.PayloadsOmitted)

	restored, err := snapshot.Restore(ctx, created.File, filepath.Join(work, "mare-alta-copy"), snapshot.RestoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d nodes, %d payloads restored, %d missing\n",
		filepath.Base(restored.Forest), restored.Nodes, restored.RestoredPayloads, restored.PayloadsMissing)
	// Output:
	// .forest: 4 payloads packed, 0 omitted
	// mare-alta-copy: 93 nodes, 4 payloads restored, 0 missing
}
