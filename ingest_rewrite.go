// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"errors"
	"reflect"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/trust"
)

// Rewrite is the Gardener's refresh write (G.8 §10.4–10.5): edit changes
// a copy of the stored node — passport fields only ingest maintains, such
// as source_hash, payload_hash and the generated body sections — and the
// result lands as one commit of that node's .md alone, under subject, with
// the catalog upserted and the node marked stale for the vector layer.
//
// It needs the trusted-ingest grant, which only code inside this module
// can construct; graft remains the write path for everyone else. The
// rewrite must pass the write checks (§2.6, tags already on the node
// grandfathered) and may not change id, type, created or summary: a
// refresh keeps the scent somebody approved. updated is stamped by the
// engine. When the edited bytes equal the stored ones (besides updated),
// nothing is written and the commit is "".
func (v *Vine) Rewrite(ctx context.Context, g trust.Grant, id, subject string, edit func(n *forest.Node) error) (string, error) {
	t, release, err := v.beginWrite("rewrite")
	if err != nil {
		return "", err
	}
	defer release()
	if !g.Adopted() {
		return "", envelope.New(envelope.Schema, "rewrite: needs the trusted-ingest grant",
			"change a node with graft; Rewrite is the Gardener's refresh path")
	}
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return "", err
	}
	old, err := v.files.node(rec)
	if err != nil {
		return "", err
	}
	n := &forest.Node{ID: old.ID, Front: old.Front.Clone(), Body: old.Body}
	if err := edit(n); err != nil {
		return "", err
	}
	if err := checkRewrite(old, n); err != nil {
		return "", err
	}
	if bytes.Equal(old.Bytes(), n.Bytes()) {
		return "", nil
	}
	n.Front.Set("updated", v.today())
	if err := forest.ValidateWrite(n, forest.WriteCheck{Dialect: v.Dialect(), Prior: old}); err != nil {
		return "", err
	}
	if err := t.put(n); err != nil {
		return "", err
	}
	sha, err := t.commit(ctx, subject)
	if err != nil {
		return "", err
	}
	v.markStale(ctx, n.ID)
	return sha, nil
}

// checkRewrite refuses edits a refresh must never make: the identity of
// the node, its birth date, and its curated summary (which its parent's
// index entry repeats).
func checkRewrite(old, n *forest.Node) error {
	if n.ID != old.ID {
		return errors.New("rewrite: the edit changed the node's id")
	}
	for _, key := range []string{"id", "type", "created", "summary"} {
		before, _ := old.Front.Get(key)
		after, _ := n.Front.Get(key)
		if !reflect.DeepEqual(before, after) {
			return envelope.New(envelope.Schema, "rewrite: a refresh may not change "+key+" of "+old.ID,
				"summary and title are curated; change them with graft")
		}
	}
	return nil
}
