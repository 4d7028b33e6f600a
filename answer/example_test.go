// SPDX-License-Identifier: Apache-2.0

package answer_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
)

// sampleForest plants a small forest in a temporary directory with the
// public API: two projects, one note each.
func sampleForest() (*vine.Vine, func()) {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "answer-example-")
	if err != nil {
		log.Fatal(err)
	}
	dir := filepath.Join(tmp, "kb")
	if _, err := vine.Init(ctx, dir, "Port authority", nil); err != nil {
		log.Fatal(err)
	}
	v, err := vine.Open(ctx, dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	branch := func(id, parent, title, summary string) vine.NodeSpec {
		return vine.NodeSpec{ID: id, Type: "branch", Parent: parent, Title: title, Summary: summary}
	}
	_, err = v.PlantBatch(ctx, []vine.NodeSpec{
		branch("projects/_index", "_index", "Projects", "The harbour's running projects, one branch each."),
		branch("projects/tidewatch/_index", "projects/_index", "Tidewatch", "Storm and tide alerts for the fishing fleet."),
		{ID: "projects/tidewatch/alert-thresholds", Type: "note", Title: "Alert thresholds",
			Parent:  "projects/tidewatch/_index",
			Summary: "Storm alert thresholds: when Tidewatch raises an alert and who receives it.",
			Body:    "## Thresholds\n\nHs above 2.5 m for 30 minutes, or a rise of 1 m in an hour.\n"},
		branch("projects/lighthouse/_index", "projects/_index", "Lighthouse", "Night navigation beacons for small boats."),
		{ID: "projects/lighthouse/pilot-results", Type: "note", Title: "Lighthouse pilot results",
			Parent:  "projects/lighthouse/_index",
			Summary: "Pilot results May-Oct 2026: night trips, incidents, beacon failures.",
			Body:    "## Results\n\n212 night trips, zero incidents, 3 beacon failures.\n"},
	}, vine.PlantOptions{})
	if err != nil {
		log.Fatal(err)
	}
	return v, func() { v.Close(); os.RemoveAll(tmp) }
}

// A sweep: one harvest, one model call. The model here is scripted; a
// real host binds answer.LlamaCpp(client).
func ExampleAnswerer_Sweep() {
	v, done := sampleForest()
	defer done()
	model := answer.ModelFunc(func(_ context.Context, msgs []answer.Message, _ int) (*answer.Reply, error) {
		if !strings.Contains(msgs[1].Content, "projects/tidewatch/alert-thresholds") {
			return &answer.Reply{Content: "The material does not say.", FinishReason: "stop"}, nil
		}
		return &answer.Reply{FinishReason: "stop", Content: "Hs above 2.5 m for 30 minutes, or a 1 m rise in an hour.\n\n" +
			"Alert thresholds [projects/tidewatch/alert-thresholds]"}, nil
	})
	a := answer.New(model, &answer.Options{Binding: answer.Binding{Provider: "llamacpp", Model: "qwen3-4b"}})
	defer a.Close()

	ctx := context.Background()
	res, err := a.Sweep(ctx, v, "What are the storm alert thresholds of Tidewatch?", answer.Params{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.SplitN(res.Answer, "\n", 2)[0])
	fmt.Println("cited:", res.AnswerNodes)
	fmt.Println("bundle:", len(res.Evidence), "items")

	again, err := a.Sweep(ctx, v, "what are the storm alert thresholds of tidewatch?", answer.Params{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("served from the store:", again.Cached)
	// Output:
	// Hs above 2.5 m for 30 minutes, or a 1 m rise in an hour.
	// cited: [projects/tidewatch/alert-thresholds]
	// bundle: 3 items
	// served from the store: true
}

// A walk: the model explores with the read primitives, one call per hop,
// then answers. OnHop sees each hop as it lands.
func ExampleAnswerer_Walk() {
	v, done := sampleForest()
	defer done()
	replies := []string{
		`{"tool": "sniff", "args": {"terms": ["212 night trips"]}}`,
		`{"tool": "pick", "args": {"id": "projects/lighthouse/pilot-results"}}`,
		`{"tool": "answer", "args": {"text": "212 night trips with zero incidents [projects/lighthouse/pilot-results]", ` +
			`"answer_nodes": ["projects/lighthouse/pilot-results"]}}`,
	}
	turn := 0
	model := answer.ModelFunc(func(context.Context, []answer.Message, int) (*answer.Reply, error) {
		turn++
		return &answer.Reply{Content: replies[turn-1], FinishReason: "stop"}, nil
	})
	a := answer.New(model, nil)
	defer a.Close()

	res, err := a.Walk(context.Background(), v, "How did the Lighthouse pilot go?", answer.Params{
		Hops:  4,
		OnHop: func(h answer.Hop) { fmt.Printf("hop %d: %s %s ok=%v\n", h.N, h.Tool, h.ID, h.OK) },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Answer)
	fmt.Println("evidence:", res.Evidence, "turns:", res.Turns)
	// Output:
	// hop 1: sniff  ok=true
	// hop 2: pick projects/lighthouse/pilot-results ok=true
	// 212 night trips with zero incidents [projects/lighthouse/pilot-results]
	// evidence: [projects/lighthouse/pilot-results] turns: 3
}
