// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/monkeyllm/vine"
)

// body is a delivery's JSON (09 §10), compact, in this field order; the
// same bytes go out on every attempt.
type body struct {
	ID        string         `json:"id"`
	Event     string         `json:"event"`
	Forest    string         `json:"forest"`
	At        string         `json:"at"`
	Principal string         `json:"principal"`
	Data      map[string]any `json:"data"`
}

// render builds the body w may receive for e, or ok false when the event
// must not reach it: a node the owner's policy or the branches hide. An
// other id field the webhook may not see (a parent above its branches,
// the place a node moved from) is withheld as null. Metadata is added
// only when the webhook opted in and the act held it. No read is caused
// beyond the owner's grant.
func (h *Hooks) render(ctx context.Context, w stored, delivery string, e vine.HookEvent) ([]byte, bool, error) {
	data := maps.Clone(e.Data)
	if data == nil {
		data = map[string]any{}
	}
	if node, carries := data["node"]; carries && e.Forest != "" {
		s, ok, err := h.sightOf(ctx, w, e.Forest)
		if err != nil || !ok {
			return nil, false, err
		}
		id, _ := node.(string)
		if !s.sees(id) {
			return nil, false, nil
		}
		for _, f := range idFields {
			if other, _ := data[f].(string); other != "" && !s.sees(other) {
				data[f] = nil
			}
		}
	}
	if w.IncludeMetadata && e.Meta != nil {
		if e.Meta.Title != "" {
			data["title"] = e.Meta.Title
		}
		if e.Meta.Summary != "" {
			data["summary"] = e.Meta.Summary
		}
	}
	b, err := json.Marshal(body{ID: delivery, Event: e.Name, Forest: orDash(e.Forest), At: stamp(e.At),
		Principal: orDash(e.Principal), Data: data})
	return b, err == nil, err
}

// visible re-judges a rendered body at a later attempt: a node the owner
// no longer sees is not sent.
func (h *Hooks) visible(ctx context.Context, w stored, e vine.HookEvent) (bool, error) {
	node, carries := e.Data["node"].(string)
	if !carries || e.Forest == "" {
		return true, nil
	}
	s, ok, err := h.sightOf(ctx, w, e.Forest)
	if err != nil || !ok {
		return false, err
	}
	return s.sees(node), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
