package vine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
)

// A new forest, opened, checked and written to through the wire surface.
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

	_, err = v.Call(ctx, "plant", []byte(`{"node": {"id": "runbook", "type": "note", "title": "Runbook",
		"summary": "How to restart the service: three steps, two minutes.", "parent": "_index"}}`))
	fmt.Println("planted:", err == nil)

	rep, _ := v.Validate(ctx)
	fmt.Println("errors:", rep.Errors)
	// Output:
	// planted: true
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
