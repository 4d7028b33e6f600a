// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/payload"
)

// A dataset whose payload lives outside the forest (here a file:// URI;
// s3:// works the same way) is fetched into the payload cache on its
// first query, or ahead of time with Prefetch.
func ExampleVine_Prefetch() {
	ctx := context.Background()
	cold, err := os.MkdirTemp("", "vine-prefetch-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cold)
	v, done, err := newExampleForestWith(ctx, &vine.Options{
		Fetcher: payload.Registry{"file": payload.FileFetcher{Root: cold}}})
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	// Keep last year's tide table in "cold storage": a file outside the forest.
	pf, err := v.OpenPayload(ctx, "harbour/tides")
	if err != nil {
		log.Fatal(err)
	}
	data, err := io.ReadAll(pf)
	pf.Close()
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(cold, "tides-2025.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(data)
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "harbour/tides-2025", Type: "dataset", Title: "Tide table 2025",
		Parent: "harbour/_index", Summary: "Last year's tide table, kept in cold storage and read through the cache.",
		Payload:     (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String(),
		PayloadType: "sqlite", PayloadHash: hex.EncodeToString(sum[:])}, vine.PlantOptions{})
	if err != nil {
		log.Fatal(err)
	}

	res, err := v.Prefetch(ctx, "harbour")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("fetched:", res.Fetched, "errors:", len(res.Errors))
	rows, err := v.Query(ctx, "harbour/tides-2025", "SELECT count(*) FROM tides")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows:", rows.Rows[0][0])
	// Output:
	// fetched: [harbour/tides-2025] errors: 0
	// rows: 3
}
