// SPDX-License-Identifier: Apache-2.0

// Command ext-titleboost is an example extension for the ranking seam:
// after harvest has built its items and before it applies its budget,
// items whose title holds every word of the question move to the front
// (stable: harvest's own order is kept within each group). It may
// reorder, never invent: the engine discards any id it was not given,
// and names the extension in the answer and its trace.
//
//	go build -o /tmp/titleboost/main ./examples/ext-titleboost
//	cp examples/ext-titleboost/manifest.json examples/ext-titleboost/LICENSE /tmp/titleboost/
//	vine ext install /tmp/titleboost --acknowledge --enable-on DIR
package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/sdk"
)

//go:embed manifest.json
var manifestJSON []byte

type titleBoost struct{}

func (titleBoost) Manifest() ext.Manifest {
	m, err := ext.ParseManifest(manifestJSON)
	if err != nil {
		panic(err)
	}
	return *m
}

func (titleBoost) Register(api *ext.API) error {
	return api.Ranking("title_first", func(ctx context.Context, query string, items []ext.Ranked) ([]string, error) {
		minWord := 3
		if f, ok := api.Config(ctx)["min_word"].(float64); ok && f >= 1 {
			minWord = int(f)
		}
		return TitleFirst(query, items, minWord), nil
	})
}

func main() {
	if err := sdk.Serve(titleBoost{}); err != nil {
		fmt.Fprintln(os.Stderr, "ext-titleboost:", err)
		os.Exit(1)
	}
}
