// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/monkeyllm/vine"
)

// The tour of the package: make a forest, open it, plant a node, then
// find and read it the way a model does, each step costing more and
// saying more (locate, look, pick).
func Example() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "vine-example-")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "kb")

	if _, err := vine.Init(ctx, dir, "Team knowledge", nil); err != nil {
		fmt.Println(err)
		return
	}
	v, err := vine.Open(ctx, dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Close()

	_, err = v.Plant(ctx, vine.NodeSpec{ID: "runbook", Type: "note", Title: "Runbook", Parent: "_index",
		Summary: "How to restart the service: three steps, two minutes.",
		Body:    "## Restart\n\nStop the worker, then the queue; start them in reverse order.\n"},
		vine.PlantOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}

	found, _ := v.Locate(ctx, "restart the service", vine.LocateOptions{})
	hit := found.Results[0]
	fmt.Println("locate:", hit.ID, hit.BodyTokens, "tokens")
	d, _ := v.Look(ctx, hit.ID, vine.LookOptions{})
	fmt.Println("look:", d.Title, d.Outline)
	sec, _ := v.Pick(ctx, hit.ID, vine.PickOptions{Section: d.Outline[0]})
	fmt.Println("pick:", sec.Body)

	rep, _ := v.Validate(ctx)
	fmt.Println("errors:", rep.Errors)
	// Output:
	// locate: runbook 19 tokens
	// look: Runbook [Restart]
	// pick: ## Restart
	//
	// Stop the worker, then the queue; start them in reverse order.
	// errors: 0
}

// Every refusal is a *vine.Error carrying a stable code: branch on the
// code with errors.Is, read the rest with errors.As.
func ExampleError() {
	ctx := context.Background()
	_, err := vine.Open(ctx, os.TempDir()+"/surely-not-a-forest", nil)
	if errors.Is(err, vine.ENotFound) {
		fmt.Println("no forest there")
	}
	var e *vine.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Code.HTTPStatus())
	}
	// Output:
	// no forest there
	// E_NOT_FOUND 404
}

// Read a question the way the engine compares words: fold it, split it
// into words, and drop the grammar.
func ExampleIsStopword() {
	var words []string
	for _, w := range strings.FieldsFunc(vine.Fold("Quais são os alertas de tempestade?"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) >= 2 && !vine.IsStopword(w) {
			words = append(words, w)
		}
	}
	fmt.Println(words)
	// Output:
	// [sao os alertas de tempestade]
}

// One read of a node's body serves several reads of it: sniff it term by
// term, then pick the section the rare term is in.
func ExampleVine_ReadBody() {
	ctx := context.Background()
	v, done, err := plantedExampleForest(ctx, `{"node": {"id": "runbook", "type": "note", "title": "Runbook",
		"summary": "How to restart the service and what to check after.", "parent": "_index",
		"body": "## Restart\n\nStop the worker, then the queue.\n\n## Check\n\nThe queue depth must fall below 40."}}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()

	body, err := v.ReadBody(ctx, "runbook")
	if err != nil {
		fmt.Println(err)
		return
	}
	hits, _ := body.SniffEach([]string{"worker", "depth"})
	for _, h := range hits {
		fmt.Println(h.MatchCount, *h.Matches[0].Section)
	}
	sec, _ := body.Pick(vine.PickOptions{Section: *hits[1].Matches[0].Section})
	fmt.Println(sec.Body)
	// Output:
	// 1 Restart
	// 1 Check
	// ## Check
	//
	// The queue depth must fall below 40.
}

// plantedExampleForest makes a new forest in a temporary folder and
// plants spec in it; done closes it and removes the folder.
func plantedExampleForest(ctx context.Context, spec string) (v *vine.Vine, done func(), err error) {
	tmp, err := os.MkdirTemp("", "vine-example-")
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(tmp, "kb")
	if _, err := vine.Init(ctx, dir, "Team knowledge", nil); err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	if v, err = vine.Open(ctx, dir, nil); err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	done = func() {
		v.Close()
		os.RemoveAll(tmp)
	}
	if _, err := v.Call(ctx, "plant", []byte(spec)); err != nil {
		done()
		return nil, nil, err
	}
	return v, done, nil
}
