// SPDX-License-Identifier: Apache-2.0

package convert_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/convert"
)

// recipes reads a host's own ".recipe" format: a first line naming the
// dish, then one ingredient per line. It links the standard library and
// this package only.
type recipes struct{}

func (recipes) Extensions() []string { return []string{".recipe"} }

func (recipes) Convert(ctx context.Context, path string) (*convert.Conversion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var title string
	var body strings.Builder
	for sc.Scan() {
		if title == "" {
			title = sc.Text()
			fmt.Fprintf(&body, "# %s\n\n", title)
			continue
		}
		fmt.Fprintf(&body, "- %s\n", sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return &convert.Conversion{Kind: convert.KindMarkdown, Title: title, Markdown: body.String()}, nil
}

// A converter names the extensions it reads and turns one file into a
// Conversion; the host registers it with gardener.RegisterConverter.
func Example() {
	var c convert.Converter = recipes{}

	dir, err := os.MkdirTemp("", "recipes")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "caldo.recipe")
	if err := os.WriteFile(path, []byte("Caldo verde\nkale\npotatoes\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	conv, err := c.Convert(context.Background(), path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Extensions(), conv.Kind, conv.Title)
	fmt.Print(conv.Markdown)
	// Output:
	// [.recipe] markdown Caldo verde
	// # Caldo verde
	//
	// - kale
	// - potatoes
}
