// SPDX-License-Identifier: Apache-2.0

package sample_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/sample"
)

// Build the sample forest, open it and ask its dataset a question.
func ExampleBuild() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "sample-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)

	f, err := sample.Build(ctx, filepath.Join(tmp, "mare-alta"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d nodes in %d branches, %d declared links\n", len(f.Nodes), len(f.Branches), f.Links)

	v, err := vine.Open(ctx, f.Dir, nil)
	if err != nil {
		panic(err)
	}
	defer v.Close()
	if _, err := v.Reindex(ctx); err != nil {
		panic(err)
	}
	rows, err := v.Query(ctx, f.Dataset, "SELECT COUNT(*) FROM ledger")
	if err != nil {
		panic(err)
	}
	fmt.Println("ledger rows:", rows.Rows[0][0])
	// Output:
	// 93 nodes in 13 branches, 71 declared links
	// ledger rows: 330
}
