// SPDX-License-Identifier: Apache-2.0

// Command ext-org is an example extension: a converter for Emacs
// Org-mode files, a format the engine does not read. It is one Go value
// (orgExt) served as a vine-ext/1 executable by sdk.Serve; a host could
// compile the same value in with ext.Register.
//
// Build it into a tree beside its manifest and install the tree:
//
//	go build -o /tmp/org/main ./examples/ext-org
//	cp examples/ext-org/manifest.json examples/ext-org/LICENSE /tmp/org/
//	vine ext install /tmp/org --acknowledge
//	vine ext enable org --forest DIR
//	vine adopt notes/ --forest DIR     # .org files now become notes
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

// orgExt is the extension: its manifest is the file beside it, so the
// value and the installed tree can never disagree.
type orgExt struct{}

func (orgExt) Manifest() ext.Manifest {
	m, err := ext.ParseManifest(manifestJSON)
	if err != nil {
		panic(err)
	}
	return *m
}

func (orgExt) Register(api *ext.API) error {
	return api.Converter("org", func(ctx context.Context, path string) (*ext.Conversion, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		keep, _ := api.Config(ctx)["keep_todo"].(bool)
		title, md := Convert(string(data), keep)
		return &ext.Conversion{Kind: "markdown", Title: title, Markdown: md}, nil
	})
}

func main() {
	if err := sdk.Serve(orgExt{}); err != nil {
		fmt.Fprintln(os.Stderr, "ext-org:", err)
		os.Exit(1)
	}
}
