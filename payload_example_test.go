package vine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/payload"
)

// A dataset whose payload lives outside the forest (here a file:// URI;
// s3:// works the same way) is fetched into the payload cache on its
// first query, or ahead of time with Prefetch.
func ExampleVine_Prefetch() {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "vine-prefetch-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	dir := filepath.Join(work, "mare-alta")
	if _, err := fixture.Build(ctx, dir); err != nil {
		log.Fatal(err)
	}
	// Keep the ledger in "cold storage": a copy outside the forest.
	data, err := os.ReadFile(filepath.Join(dir, "finance", "ledger-2026.db"))
	if err != nil {
		log.Fatal(err)
	}
	cold := filepath.Join(work, "cold-ledger.db")
	if err := os.WriteFile(cold, data, 0o644); err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(data)

	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payload.Registry{"file": payload.FileFetcher{Root: work}}})
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "finance/ledger-cold", Type: "dataset", Title: "Ledger (cold)",
		Parent: "finance/_index", Summary: "The 2026 ledger, kept in cold storage and read through the cache.",
		Payload:     (&url.URL{Scheme: "file", Path: filepath.ToSlash(cold)}).String(),
		PayloadType: "sqlite", PayloadHash: hex.EncodeToString(sum[:])}, vine.PlantOptions{})
	if err != nil {
		log.Fatal(err)
	}

	res, err := v.Prefetch(ctx, "finance")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("fetched:", res.Fetched, "errors:", len(res.Errors))
	rows, err := v.Query(ctx, "finance/ledger-cold", "SELECT count(*) FROM ledger")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows:", rows.Rows[0][0])
	// Output:
	// fetched: [finance/ledger-cold] errors: 0
	// rows: 330
}
