// SPDX-License-Identifier: Apache-2.0

package gardener_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
)

// exampleForest makes a forest and a source tree in a temporary
// directory; the caller removes it.
func exampleForest(files map[string]string) (v *vine.Vine, source, tmp string) {
	tmp, err := os.MkdirTemp("", "gardener-example")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := vine.Init(ctx, filepath.Join(tmp, "forest"), "Handbook", nil); err != nil {
		log.Fatal(err)
	}
	v, err = vine.Open(ctx, filepath.Join(tmp, "forest"), nil)
	if err != nil {
		log.Fatal(err)
	}
	source = filepath.Join(tmp, "docs")
	for rel, text := range files {
		p := filepath.Join(source, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return v, source, tmp
}

// Adopt mirrors a folder of documents into the forest: folders become
// branches, files become passports, each its own commit.
func ExampleGardener_Adopt() {
	v, source, tmp := exampleForest(map[string]string{
		"back-end/291-provider-budget.md": "# Provider budget\n\nHosting costs 12,400 USD a month in 2026.\n",
		"back-end/queues.txt":             "The job queue retries three times.\n",
		"archive/old.xyz":                 "no converter claims this",
	})
	defer os.RemoveAll(tmp)
	defer v.Close()

	rep, err := gardener.New(v, nil).Adopt(context.Background(), source, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("planted:", rep.Planted)
	fmt.Println("branches:", rep.Branches)
	fmt.Println("unsupported:", rep.Unsupported)

	hit, err := v.Locate(context.Background(), "BE-291", vine.LocateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("locate BE-291:", hit.Results[0].ID)
	// Output:
	// planted: [back-end/291-provider-budget back-end/queues]
	// branches: [back-end/_index]
	// unsupported: [archive/old.xyz]
	// locate BE-291: back-end/291-provider-budget
}

// A CurateHook changes drafts before they are planted: here every
// document of the finance folder gets a tag and a summary prefix. A hook
// that fails is skipped and reported; it never stops the batch.
func ExampleCurateHook() {
	v, source, tmp := exampleForest(map[string]string{
		"finance/q1-report.md": "# Q1 report\n\nRevenue grew 8% over the quarter.\n",
		"ops/pager.md":         "# Pager\n\nThe pager rotates weekly.\n",
	})
	defer os.RemoveAll(tmp)
	defer v.Close()

	finance := gardener.CurateHook(func(ctx context.Context, d *gardener.Draft) error {
		if !strings.HasPrefix(d.SourcePath, "finance/") {
			return nil
		}
		d.Tags = append(d.Tags, "finance")
		d.Summary = "Finance: " + d.Summary
		return nil
	})
	g := gardener.New(v, &gardener.Options{Hooks: []gardener.NamedHook{{Name: "finance", Hook: finance}}})
	if _, err := g.Adopt(context.Background(), source, ""); err != nil {
		log.Fatal(err)
	}
	d, err := v.Look(context.Background(), "finance/q1-report", vine.LookOptions{})
	if err != nil {
		log.Fatal(err)
	}
	out, _ := d.MarshalJSON()
	fmt.Println(strings.Contains(string(out), `"summary":"Finance: Revenue grew 8% over the quarter."`))
	fmt.Println(strings.Contains(string(out), `"finance"`))
	// Output:
	// true
	// true
}
