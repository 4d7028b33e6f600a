// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"maps"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// The content events of the event catalogue (spec 08 §11, J.16) that the
// engine emits itself: one per node a write created, changed, removed or
// moved, handed to Options.OnEvent after the write committed and the
// writer was released. Delivery (webhooks, streams) is the host's.

// The names of the content events the engine emits.
const (
	EventNodePlanted      = "node.planted"
	EventBranchCreated    = "branch.created"
	EventDatasetCreated   = "dataset.created"
	EventNodeGrafted      = "node.grafted"
	EventNodePruned       = "node.pruned"
	EventNodeTransplanted = "node.transplanted"
	EventDatasetChanged   = "dataset.changed"
)

// HookEvent is one entry of the event catalogue (08 §11) as Options.OnEvent
// receives it. It is named apart from Event, the per-call report an
// Observer receives, because it is a different thing: an act that
// happened, told to the world outside, where Event is a call told to the
// heat layer.
//
// Data is rationed (J.16.1): it carries what an audit row would — ids,
// types, parents, counts, commits — and never a body, snippet, SQL
// statement or row. Meta holds the title and summary only when the act
// itself held them (a plant does, a graft never); a host hands them on
// only to receivers that opted in.
type HookEvent struct {
	// Name is the catalogue token, e.g. "node.planted".
	Name string
	// Forest is the forest's directory name, its id in a Registry; ""
	// for events that belong to no forest.
	Forest string
	// Principal is the caller the write's commit was stamped with
	// (WithPrincipal), "" for a local call.
	Principal string
	// At is when the act succeeded, UTC.
	At time.Time
	// Data is the event's rationed payload (08 §11).
	Data map[string]any
	// Meta is the title and summary the act held, or nil.
	Meta *EventMeta
}

// EventMeta is the metadata an event may carry to receivers that opted in
// (include_metadata): the node's title and summary, nothing else.
type EventMeta struct {
	Title   string
	Summary string
}

// listening reports whether anybody receives events, so a write with no
// listener builds none.
func (t *txn) listening() bool { return t.v.onEvent != nil }

// emit queues an event; the write's release hands it on once the write
// committed.
func (t *txn) emit(ctx context.Context, name string, data map[string]any, meta *EventMeta) {
	if !t.listening() {
		return
	}
	t.events = append(t.events, HookEvent{Name: name, Forest: filepath.Base(t.v.root.Dir()),
		Principal: principalOf(ctx), At: t.v.now().UTC(), Data: data, Meta: meta})
}

// flushEvents hands a committed write's events to the hook. It runs after
// the writer is released, so a slow hook never holds a write; a panicking
// hook is logged, never the write's failure.
func (t *txn) flushEvents() {
	if !t.committed || len(t.events) == 0 {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			t.v.log.Error("event hook panicked; the write stands", "panic", r)
		}
	}()
	for _, e := range t.events {
		t.v.onEvent(e)
	}
	t.events = nil
}

// principalOf is the principal trailer ctx carries, "" when none.
func principalOf(ctx context.Context) string {
	p := ""
	for _, tr := range gitops.TrailersFrom(ctx) {
		if tr.Key == gitops.PrincipalKey {
			p = tr.Value
		}
	}
	return p
}

// emitPlanted queues node.planted for every node a plant created, with
// branch.created or dataset.created beside it.
func (t *txn) emitPlanted(ctx context.Context, created []*forest.Node, sha string) {
	if !t.listening() {
		return
	}
	for _, n := range created {
		meta := &EventMeta{Title: n.Title(), Summary: n.Summary()}
		data := map[string]any{"node": n.ID, "type": n.Type(), "parent": forest.ParentIndex(n.ID),
			"source": n.Source(), "commit": sha}
		t.emit(ctx, EventNodePlanted, data, meta)
		switch n.Type() {
		case "branch":
			t.emit(ctx, EventBranchCreated, maps.Clone(data), meta)
		case "dataset":
			t.emit(ctx, EventDatasetCreated, maps.Clone(data), meta)
		}
	}
}

// graftOperations names the operations a patch carries, never their
// content.
func graftOperations(p GraftPatch) []string {
	ops := []string{}
	add := func(present bool, name string) {
		if present {
			ops = append(ops, name)
		}
	}
	add(len(p.SetFrontmatter) > 0, "set_frontmatter")
	add(len(p.AddLinks) > 0, "add_links")
	add(len(p.RemoveLinks) > 0, "remove_links")
	add(p.AppendSection != nil, "append_section")
	add(p.ReplaceSection != nil, "replace_section")
	add(p.ReplaceBody != nil, "replace_body")
	return ops
}
