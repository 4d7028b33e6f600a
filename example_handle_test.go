// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
)

// Init makes a new forest: the master index, the dialect schema, a git
// repository and its first commit. Open then serves it.
func ExampleInit() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "vine-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	res, err := vine.Init(ctx, filepath.Join(tmp, "kb"), "Port authority", &vine.InitOptions{Now: exampleNow})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Title)
	entries, _ := os.ReadDir(res.Root)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// Port authority
	// .git
	// .gitignore
	// _index.md
	// _meta
}

// Open serves an existing forest. ReadOnly needs no git repository and
// refuses every write with E_READONLY; the zero Options open it writable.
func ExampleOpen() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "vine-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "kb")
	if _, err := vine.Init(ctx, dir, "Port authority", nil); err != nil {
		log.Fatal(err)
	}

	v, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	d, err := v.Look(ctx, "_index", vine.LookOptions{Fields: []string{"title"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Title)
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "x", Type: "note", Title: "X", Parent: "_index",
		Summary: "A note the read-only handle will refuse."}, vine.PlantOptions{})
	fmt.Println(vine.CodeOf(err))
	// Output:
	// Port authority
	// E_READONLY
}

// Call is the wire surface every transport uses: a primitive by name,
// its arguments as JSON checked against the signature table, and a typed
// result whose JSON form is the specification's.
func ExampleVine_Call() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	out, err := v.Call(ctx, "look", []byte(`{"id": "harbour/tides", "fields": ["title", "summary"]}`))
	if err != nil {
		log.Fatal(err)
	}
	wire, _ := json.Marshal(out)
	fmt.Println(string(wire))

	// A parameter the signature does not declare is refused, not ignored.
	_, err = v.Call(ctx, "look", []byte(`{"id": "harbour/tides", "depth": 2}`))
	fmt.Println(vine.CodeOf(err))
	// Output:
	// {"id":"harbour/tides","title":"Tide table","summary":"High and low water at the harbour mouth for March 2026."}
	// E_SCHEMA
}

// Reindex rebuilds the derived catalog from the markdown files, the
// source of truth: after edits made outside the engine, or to repair.
func ExampleVine_Reindex() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	res, err := v.Reindex(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("nodes:", res.Nodes, "branches:", res.Branches, "edges:", res.Edges)
	// Output:
	// nodes: 6 branches: 2 edges: 1
}

// Validate walks every file and reports findings by level; a forest is
// valid when Errors is 0.
func ExampleVine_Validate() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	rep, err := v.Validate(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("nodes:", rep.Nodes, "errors:", rep.Errors, "warnings:", rep.Warnings)
	// Output:
	// nodes: 6 errors: 0 warnings: 0
}

// Scoped serves the forest through a Policy: a node outside the allowed
// prefixes answers exactly as a node that does not exist, and a missing
// capability answers E_FORBIDDEN.
func ExampleVine_Scoped() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "payroll", Type: "note", Title: "Payroll", Parent: "_index",
		Summary: "Salaries of the harbour crew, month by month."}, vine.PlantOptions{})
	if err != nil {
		log.Fatal(err)
	}

	sc, err := v.Scoped(vine.Policy{Allow: []string{"harbour/"}, Caps: []vine.Capability{vine.CapRead}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sc.InScope("harbour/tides"), sc.InScope("payroll"))
	_, err = sc.Call(ctx, "look", []byte(`{"id": "payroll"}`))
	fmt.Println(vine.CodeOf(err))
	_, err = sc.Call(ctx, "prune", []byte(`{"id": "harbour/tides"}`))
	fmt.Println(vine.CodeOf(err))
	// Output:
	// true false
	// E_NOT_FOUND
	// E_FORBIDDEN
}

// History lists the commits that changed a node, newest first, with the
// action each commit's subject names.
func ExampleVine_History() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()
	_, err = v.Graft(ctx, "harbour/storm-drill", vine.GraftPatch{
		AppendSection: &vine.SectionEdit{Header: "Drills", Body: "Practice on the first Monday of the month."}})
	if err != nil {
		log.Fatal(err)
	}

	h, err := v.History(ctx, "harbour/storm-drill", vine.HistoryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range h.Entries {
		fmt.Println(e.At[:10], e.Action, e.Message) // At is RFC 3339 in the clock's zone
	}
	// Output:
	// 2026-03-14 graft graft(harbour/storm-drill): append 'Drills'
	// 2026-03-14 plant plant(batch): 3 nodes
}

// Coverage says what the forest holds at all: nodes per top-level
// branch, per type, per source, and what has no date.
func ExampleVine_Coverage() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	rep, err := v.Coverage(ctx, vine.CoverageOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("total:", rep.Total, "system:", rep.System, "undated:", rep.Undated)
	for _, r := range rep.Roots {
		fmt.Println("root:", r.ID, r.Nodes)
	}
	for _, t := range rep.Types {
		fmt.Println("type:", t.Value, t.Nodes)
	}
	// Output:
	// total: 6 system: 1 undated: 0
	// root: harbour/_index 4
	// type: note 3
	// type: branch 2
	// type: dataset 1
}

// Calendar counts nodes per period; each bucket's Since and Until are the
// exact window that reads back its nodes.
func ExampleVine_Calendar() {
	ctx := context.Background()
	v, done, err := newExampleForest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	cal, err := v.Calendar(ctx, vine.CalendarOptions{Scope: "harbour", Granularity: vine.GranularityDay})
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range cal.Buckets {
		fmt.Println(b.Period, b.Nodes, b.Since, b.Until)
	}
	// Output:
	// 2026-03-14 4 2026-03-14 2026-03-14
}
