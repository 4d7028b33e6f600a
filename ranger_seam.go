// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/trails"
)

// This file is the seam maintenance code (the Ranger, package ranger)
// writes through: host-only entry points with operator authority, never
// registered as primitives, so no wire surface reaches them.

// Editor stages the node rewrites of one Maintain call. It reads nodes as
// they are now, under the writer lock, so nothing changes between a read
// and the write built on it. An Editor is only valid inside the function
// passed to Maintain.
type Editor struct {
	v      *Vine
	today  string
	staged map[string]*forest.Node
	order  []string
}

// Maintain runs fn under the writer lock and commits what it staged as one
// audited commit with the given subject (a one-line subject of spec §4,
// e.g. gitops.RangerPruneSubject). Only the staged .md files are written;
// the catalog rows of the rewritten nodes are upserted and the nodes
// marked stale for the dense layer. Maintenance never creates or deletes
// a node. It is the Ranger's write path (H.2 promote and prune, H.7
// Landmarks): operator authority, no primitive, no principal trailer
// unless ctx carries one.
//
// When fn stages nothing, or only bytes equal to the files, nothing is
// written and sha is "". When fn fails, nothing is written and its error
// is returned. fn must not call write methods of v: the writer lock is
// held while it runs.
func (v *Vine) Maintain(ctx context.Context, subject string, fn func(*Editor) error) (sha string, err error) {
	t, release, err := v.beginWrite("maintain")
	if err != nil {
		return "", err
	}
	defer release()
	if strings.TrimSpace(subject) == "" || strings.ContainsAny(subject, "\r\n") {
		return "", envelope.New(envelope.Schema,
			fmt.Sprintf("maintain: subject %q is not one non-empty line", subject),
			"pass one of the commit subjects of spec §4, built with the gitops Subject helpers")
	}
	e := &Editor{v: v, today: v.today(), staged: map[string]*forest.Node{}}
	if err := fn(e); err != nil {
		return "", err
	}
	if len(e.order) == 0 {
		return "", nil
	}
	for _, id := range e.order {
		if err := t.put(e.staged[id]); err != nil {
			return "", err
		}
	}
	if sha, err = t.commit(ctx, subject); err != nil {
		return "", err
	}
	v.markStale(ctx, e.order...)
	return sha, nil
}

// Node returns a copy of the node as this call sees it: what an earlier
// Put of the same Maintain call staged, else the file as it is now. Change
// the copy and hand it to Put.
func (e *Editor) Node(id string) (*forest.Node, error) {
	if n, ok := e.staged[id]; ok {
		return cloneNode(n), nil
	}
	return e.current(id)
}

// current reads the file of an existing node, with the containment of a
// caller-supplied id.
func (e *Editor) current(id string) (*forest.Node, error) {
	path, err := e.v.root.Path(id)
	if err != nil {
		return nil, notFound(id)
	}
	data, err := forest.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, err
	}
	return e.v.parse(id, data)
}

// Put stages n as the new content of its existing node. id, type and
// created must be unchanged (E_READONLY otherwise), and the node must pass
// the write rules as a graft does, with the stored summary and tags
// grandfathered. When n's bytes equal the file's, Put stages nothing (and
// withdraws an earlier Put of the same node); otherwise updated is set to
// today's date, from the Vine's clock.
func (e *Editor) Put(n *forest.Node) error {
	if n == nil || n.Front == nil {
		return envelope.New(envelope.Schema, "maintain: Put needs a node with frontmatter",
			"read the node with Editor.Node, change the copy, then Put it")
	}
	old, err := e.current(n.ID)
	if err != nil {
		return err
	}
	if err := keepsIdentity(old, n); err != nil {
		return err
	}
	if bytes.Equal(old.Bytes(), n.Bytes()) {
		e.unstage(n.ID)
		return nil
	}
	next := cloneNode(n)
	next.Front.Set("updated", e.today)
	check := forest.WriteCheck{Dialect: e.v.Dialect(), Prior: old,
		StrictSummary: next.Summary() != old.Summary()}
	if err := forest.ValidateWrite(next, check); err != nil {
		return err
	}
	if _, ok := e.staged[n.ID]; !ok {
		e.order = append(e.order, n.ID)
	}
	e.staged[n.ID] = next
	return nil
}

// Today is the date Put stamps into updated: the Vine clock's local date.
func (e *Editor) Today() string { return e.today }

func (e *Editor) unstage(id string) {
	if _, ok := e.staged[id]; !ok {
		return
	}
	delete(e.staged, id)
	for i, got := range e.order {
		if got == id {
			e.order = append(e.order[:i], e.order[i+1:]...)
			break
		}
	}
}

// keepsIdentity refuses an edit that changes what a node is: its id,
// its type or its birth date.
func keepsIdentity(old, n *forest.Node) error {
	for _, key := range []string{"id", "type", "created"} {
		was, _ := old.Front.Get(key)
		now, _ := n.Front.Get(key)
		if fmt.Sprint(was) != fmt.Sprint(now) {
			return envelope.New(envelope.ReadOnly,
				fmt.Sprintf("maintain: %s cannot change %s (stored %v, got %v)", n.ID, key, was, now),
				"maintenance edits a node in place; id, type and created never change")
		}
	}
	return nil
}

func cloneNode(n *forest.Node) *forest.Node {
	return &forest.Node{ID: n.ID, Front: n.Front.Clone(), Body: n.Body}
}

// Trails is the forest's own heat store (_derived/trails.db), the one its
// session closes deposit into, whatever HeatSource ranks reads. It is
// derived state: maintenance may decay it, and losing it breaks nothing.
func (v *Vine) Trails() *trails.Store { return v.heat.store }

// GCAuto runs git's own auto-maintenance on the forest's repository
// (`git gc --auto`, H.8) and reports "ran" or "unavailable" (no git
// binary, or gc failed). It touches only .git: no commit, history,
// working tree or catalog change, and never a forced repack. A read-only
// Vine answers E_READONLY.
func (v *Vine) GCAuto(ctx context.Context) (string, error) {
	if err := v.writable("gc"); err != nil {
		return "", err
	}
	return v.repo.GCAuto(ctx), nil
}
