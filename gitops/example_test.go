// SPDX-License-Identifier: Apache-2.0

package gitops_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/gitops"
)

// Every write of the engine is one commit whose subject names the action
// (the part before "("), so a node's history is its git log. A host adds
// the principal as a trailer.
func ExampleRepo() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "gitops-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	repo, err := gitops.Init(dir)
	if err != nil {
		log.Fatal(err)
	}
	when := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	write := func(body string, msg gitops.Message, opt gitops.Options) {
		if err := os.WriteFile(filepath.Join(dir, "storm-drill.md"), []byte(body), 0o644); err != nil {
			log.Fatal(err)
		}
		if _, err := repo.Commit(ctx, msg, []string{"storm-drill.md"}, nil, opt); err != nil {
			log.Fatal(err)
		}
	}

	write("# Storm drill\n", gitops.Message{Subject: gitops.PlantSubject("storm-drill", "Storm drill", "agent")},
		gitops.Options{When: when})
	write("# Storm drill\n\n## Moorings\n", gitops.Message{
		Subject: gitops.GraftSubject("storm-drill", gitops.PatchSummary{Append: []string{"Moorings"}})},
		gitops.Options{When: when.Add(time.Hour), Trailers: []gitops.Trailer{{Key: gitops.PrincipalKey, Value: "ana"}}})

	entries, err := repo.Log(ctx, "storm-drill.md", 10, false)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Printf("%s %s by=%q %s\n", e.When.Format(time.RFC3339), e.Action, e.By, e.Subject)
	}
	// Output:
	// 2026-03-14T13:00:00Z graft by="ana" graft(storm-drill): append 'Moorings'
	// 2026-03-14T12:00:00Z plant by="" plant(storm-drill): Storm drill [source=agent]
}
