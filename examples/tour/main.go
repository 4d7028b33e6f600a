// SPDX-License-Identifier: Apache-2.0

// Command tour builds a sample forest in a temporary directory and walks
// through what the engine can do, printing each call and its JSON result.
// It needs nothing installed: the forest, its git repository and its
// SQLite catalog are all embedded.
//
//	go run ./examples/tour
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/sample"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "vine-tour-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	step("Init: a new, empty forest")
	res, err := vine.Init(ctx, filepath.Join(tmp, "empty"), "Scratch forest", nil)
	if err != nil {
		return err
	}
	res.Root = "<tmp>/empty"
	show(res)

	step("The sample forest (the Maré Alta cooperative), built by package sample")
	dir := filepath.Join(tmp, "mare-alta")
	mare, err := sample.Build(ctx, dir)
	if err != nil {
		return err
	}
	fmt.Printf("%d nodes in %d branches, %d declared links\n", len(mare.Nodes), len(mare.Branches), mare.Links)

	step("Open (writable: takes the writer lock, indexes an empty catalog)")
	v, err := vine.Open(ctx, dir, nil)
	if err != nil {
		return err
	}
	defer v.Close()

	step("Validate")
	rep, err := v.Validate(ctx)
	if err != nil {
		return err
	}
	show(map[string]int{"nodes": rep.Nodes, "errors": rep.Errors, "warnings": rep.Warnings})

	step("Reindex")
	idx, err := v.Reindex(ctx)
	if err != nil {
		return err
	}
	show(idx)

	step("A second writer is refused while the first holds the lock")
	if _, err := vine.Open(ctx, dir, nil); err != nil {
		fmt.Println(string(vine.AsError("open", err).Body()))
	}

	step("Registry: the directory holding both forests")
	reg, err := vine.NewRegistry(tmp, &vine.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer reg.Close()
	show(reg.List())

	if err := callPrimitives(ctx, v, mare); err != nil {
		return err
	}
	for _, f := range []func() error{
		func() error { return scopedKey(ctx, v) },
		func() error { return adoptTree(ctx, v, tmp) },
		func() error { return health(ctx, v) },
		func() error { return vectors(ctx, v) },
	} {
		if err := f(); err != nil {
			return err
		}
	}
	// A snapshot takes the writer lock: release ours first.
	if err := v.Close(); err != nil {
		return err
	}
	return travel(ctx, dir, tmp)
}

// callPrimitives shows every served primitive through Call, the way the
// CLI and the adapters reach them.
func callPrimitives(ctx context.Context, v *vine.Vine, mare *sample.Forest) error {
	for _, c := range tourCalls(mare) {
		if _, ok := vine.LookupSignature(c.name); !ok {
			continue
		}
		step(fmt.Sprintf("%s %s", c.name, c.args))
		out, err := v.Call(ctx, c.name, []byte(c.args))
		if err != nil {
			fmt.Println(string(vine.AsError(c.name, err).Body()))
			continue
		}
		show(out)
	}
	return nil
}

type call struct{ name, args string }

func tourCalls(mare *sample.Forest) []call {
	return []call{
		{"locate", `{"query": "storm alert thresholds for the buoys", "k": 3}`},
		{"sniff", `{"terms": ["Itapuã", "radio"], "k": 3}`},
		{"harvest", `{"query": "why did the ice plant stop in July?", "k": 2}`},
		{"look", fmt.Sprintf(`{"id": %q}`, "projects/tidewatch/_index")},
		{"move", `{"id": "concepts/swell", "direction": "both"}`},
		{"pick", fmt.Sprintf(`{"id": %q, "section": "Chapter 2"}`, mare.Large)},
		{"scan", `{"parent_id": "events/_index", "fields": ["id", "title", "created"]}`},
		{"calendar", `{"granularity": "year"}`},
		{"coverage", `{}`},
		{"query", fmt.Sprintf(`{"id": %q, "sql": "SELECT account, ROUND(SUM(amount), 2) AS total FROM ledger GROUP BY account ORDER BY total"}`, mare.Dataset)},
		{"query", fmt.Sprintf(`{"id": %q, "sql": "DELETE FROM ledger"}`, mare.Dataset)},
		{"plant", `{"node": {"id": "operations/night-watch", "type": "note", "title": "Night watch", "parent": "operations/_index",
			"summary": "Night watch rota for the harbour office: two people, 22:00-06:00, radio on channel 16.",
			"body": "## Rota\n\nAna and Tomás, Mondays to Thursdays."}}`},
		{"graft", `{"id": "operations/night-watch", "patch": {"append_section": {"header": "Weekends", "body": "João covers Friday to Sunday."}}}`},
		{"history", `{"id": "operations/night-watch"}`},
		{"plant", `{"node": {"id": "operations/x", "type": "memo", "title": "X", "summary": "Refused: memo is not a declared type.", "parent": "operations/_index"}}`},
		{"close_session", `{"success": true, "answer_nodes": ["operations/night-watch"]}`},
		{"look", `{"id": "no/such/node"}`},
	}
}

func step(title string) { fmt.Printf("\n== %s\n", title) }

func show(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Println("(unprintable:", err, ")")
	}
}
