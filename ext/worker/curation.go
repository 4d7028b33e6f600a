// SPDX-License-Identifier: Apache-2.0

package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/gardener"
)

// wireDraft is a draft as the curation seam passes it: the passport a
// new document is about to get, and its converted body.
type wireDraft struct {
	gardener.Draft
	Body string `json:"body"`
}

// CurateHooks are the extension's curation handlers as Gardener hooks,
// in manifest order, each named "ext:<id>/<name>" in a batch's errors.
// A handler answering nothing leaves the draft unchanged; what it may
// not change (id, parent, type, source) the Gardener restores.
func (w *Worker) CurateHooks() []gardener.NamedHook {
	var out []gardener.NamedHook
	for _, h := range w.man.Contributes.Curation {
		handler := h.HandlerName()
		out = append(out, gardener.NamedHook{Name: "ext:" + w.man.ID + "/" + h.Name,
			Hook: func(ctx context.Context, d *gardener.Draft) error { return w.curate(ctx, handler, d) }})
	}
	return out
}

func (w *Worker) curate(ctx context.Context, handler string, d *gardener.Draft) error {
	raw, err := w.Call(ctx, ext.CallOf(ctx), ext.SeamCuration, handler, map[string]any{"draft": wireDraft{*d, d.Body}})
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	next := wireDraft{Draft: *d, Body: d.Body}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&next); err != nil {
		return fmt.Errorf("the handler answered what is not a draft: %v", err)
	}
	next.Draft.Body = next.Body
	*d = next.Draft
	return nil
}
