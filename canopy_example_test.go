// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/canopy"
)

// Bind an embedder, build the vector layer, and ask one locate call to
// fuse it into the ranking. Hybrid search is per call: binding the
// embedder alone changes no locate.
func ExampleVine_CanopyBuild() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "vine-canopy-example-")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "kb")
	if _, err := vine.Init(ctx, dir, "Harbour", nil); err != nil {
		fmt.Println(err)
		return
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Embedder: canopy.NewHash("hash", 256)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Close()
	_, err = v.Call(ctx, "plant", []byte(`{"node": {"id": "storm-drill", "type": "note", "title": "Storm drill",
		"summary": "What every crew does when the storm warning sounds.", "parent": "_index"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}

	built, err := v.CanopyBuild(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("vectors:", built.Nodes, built.Model, built.Dim) // the root, _meta/schema and the note

	res, err := v.Locate(ctx, "storm warning", vine.LocateOptions{Hybrid: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("hybrid:", *res.Hybrid, res.HybridReason, res.Results[0].ID)

	status, _ := v.CanopyStatus(ctx)
	fmt.Println("status:", status.State, status.Stale)
	// Output:
	// vectors: 3 hash 256
	// hybrid: true active storm-drill
	// status: active 0
}
