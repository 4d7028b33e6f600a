// SPDX-License-Identifier: Apache-2.0

package trails_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/trails"
)

// Heat is what walking leaves behind: a deposit on the nodes a successful
// session used, read back to rank the next search, fading with time.
func ExampleStore() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "trails-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	s, err := trails.Open(ctx, filepath.Join(tmp, "trails.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	ids := []string{"harbour/storm-drill", "harbour/radio-schedule"}
	if err := s.Deposit(ctx, "", ids, trails.DefaultDeposit, now); err != nil {
		log.Fatal(err)
	}
	if err := s.Deposit(ctx, "", ids[:1], trails.DefaultDeposit, now); err != nil {
		log.Fatal(err)
	}
	heat, err := s.Heat(ctx, append(ids, "harbour/tides"), "")
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range append(ids, "harbour/tides") {
		fmt.Printf("%s %.2f\n", id, heat[id])
	}
	// Output:
	// harbour/storm-drill 0.20
	// harbour/radio-schedule 0.10
	// harbour/tides 0.00
}
