// SPDX-License-Identifier: Apache-2.0

package gardener_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/model"
)

// recipeConverter reads a host's own ".recipe" format: a first line
// naming the dish, then one ingredient per line.
type recipeConverter struct{}

func (recipeConverter) Extensions() []string { return []string{".recipe"} }

func (recipeConverter) Convert(ctx context.Context, path string) (*gardener.Conversion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	title := strings.TrimSuffix(filepath.Base(path), ".recipe")
	var body strings.Builder
	for first := true; sc.Scan(); first = false {
		if first {
			title = sc.Text()
			fmt.Fprintf(&body, "# %s\n\n## Ingredients\n\n", title)
			continue
		}
		fmt.Fprintf(&body, "- %s\n", sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return &gardener.Conversion{Kind: gardener.KindMarkdown, Title: title, Markdown: body.String()}, nil
}

// A host registers its converter once, before ingesting. Every Gardener
// in the process can then read the format, and SupportedFormats reports
// it; a command hook in the forest's config still outranks it.
func ExampleRegisterConverter() {
	gardener.RegisterConverter("recipes", recipeConverter{})

	formats := gardener.SupportedFormats(nil, nil)
	fmt.Println(".recipe:", formats[".recipe"])
	fmt.Println(".csv:", formats[".csv"])

	hooks := map[string]string{".recipe": `recipe2md "{input}" -o "{output}"`}
	fmt.Println(".recipe with a hook:", gardener.SupportedFormats(hooks, nil)[".recipe"])

	dir, err := os.MkdirTemp("", "recipes")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "caldo.recipe")
	if err := os.WriteFile(path, []byte("Caldo verde\nkale\npotatoes\nchouriço\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	conv, err := recipeConverter{}.Convert(context.Background(), path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(conv.Markdown)
	// Output:
	// .recipe: plugin:recipes
	// .csv: builtin
	// .recipe with a hook: hook
	// # Caldo verde
	//
	// ## Ingredients
	//
	// - kale
	// - potatoes
	// - chouriço
}

// SupportedFormats is the one answer to "what can this forest ingest":
// per extension, the origin of the converter tried first.
func ExampleSupportedFormats() {
	formats := gardener.SupportedFormats(map[string]string{".pdf": `pdf2md "{input}" -o "{output}"`}, nil)
	for _, ext := range []string{".pdf", ".docx", ".xlsx", ".png", ".xls"} {
		origin, ok := formats[ext]
		if !ok {
			origin = "unsupported"
		}
		fmt.Printf("%s %s\n", ext, origin)
	}
	// Output:
	// .pdf hook
	// .docx builtin
	// .xlsx builtin
	// .png builtin
	// .xls unsupported
}

// Formats is SupportedFormats in the list form surfaces send: with a
// vision model bound, the images are claimed via the describer, and
// audio stays with the built-in stub.
func ExampleFormats() {
	vision := model.DescriberFunc(func(ctx context.Context, prompt string, img model.Image, maxTokens int) (*model.Reply, error) {
		return &model.Reply{Content: "A harbour map.", FinishReason: "stop"}, nil
	})
	extras := []gardener.Converter{gardener.NewMediaDescriber(vision, nil)}
	for _, f := range gardener.Formats(nil, extras) {
		if f.Extension == ".png" || f.Extension == ".mp3" {
			fmt.Printf("%s via %s\n", f.Extension, f.Via)
		}
	}
	// Output:
	// .mp3 via builtin
	// .png via describer
}
