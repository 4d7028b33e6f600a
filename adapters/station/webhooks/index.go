// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"encoding/json"

	"github.com/monkeyllm/vine"
)

// index maps a stored scope and an event to the webhooks that take it:
// every enabled webhook not suspended for failing. A webhook suspended
// for authority stays, so a matching emission re-checks its owner and
// resumes it (09 §10, §17.4).
type index map[string]map[string][]string

// refresh rebuilds the index from the table; every webhook write calls
// it.
func (h *Hooks) refresh(ctx context.Context) error {
	rows, err := h.db.QueryContext(ctx, `SELECT id, scope, events FROM webhooks
		WHERE enabled = 1 AND (suspended IS NULL OR suspended NOT IN ('failing', '1'))`)
	if err != nil {
		return err
	}
	defer rows.Close()
	ix := index{}
	for rows.Next() {
		var id, scope, raw string
		if err := rows.Scan(&id, &scope, &raw); err != nil {
			return err
		}
		var events []string
		if json.Unmarshal([]byte(raw), &events) != nil {
			continue
		}
		if ix[scope] == nil {
			ix[scope] = map[string][]string{}
		}
		for _, e := range events {
			ix[scope][e] = append(ix[scope][e], id)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	h.index.Store(&ix)
	return nil
}

// match lists the webhooks an event goes to: a forest event to its
// forest's webhooks and the deployment's, a deployment event to the
// deployment's only. Two map lookups; nothing allocated when nobody
// subscribes.
func (ix index) match(e vine.HookEvent) []string {
	entry, ok := entryOf(e.Name)
	if !ok {
		return nil
	}
	var out []string
	if entry.Scope == ScopeForest && e.Forest != "" {
		out = ix[e.Forest][e.Name]
	}
	if dep := ix[Deployment][e.Name]; len(dep) > 0 {
		out = append(out[:len(out):len(out)], dep...)
	}
	return out
}

// Emit hands an event to every webhook that takes it, without waiting:
// it never fails and never blocks on delivery. Hosts pass it as
// vine.Options.OnEvent and call it for the events they own (doors,
// keys, grants, forests) after the act succeeded and was audited.
func (h *Hooks) Emit(e vine.HookEvent) {
	ix := h.index.Load()
	if ix == nil {
		return
	}
	ids := ix.match(e)
	if len(ids) == 0 {
		return
	}
	if e.At.IsZero() {
		e.At = h.now()
	}
	for _, id := range ids {
		h.enqueue(job{hook: id, ev: e, delivery: newID("whd-", 6), attempt: 1})
	}
}
