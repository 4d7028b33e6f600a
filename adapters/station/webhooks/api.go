// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/station/destination"
)

// Listing answers GET /v1/forests/{forest}/webhooks.
type Listing struct {
	Webhooks []Webhook `json:"webhooks"`
	Events   []Entry   `json:"events"`
	Groups   []string  `json:"groups"`
	Scopes   []string  `json:"scopes"`
	Limits   Limits    `json:"limits"`
	Queue    Queue     `json:"queue"`
}

// Limits are the delivery limits the listing reports.
type Limits struct {
	Attempts       int `json:"attempts"`
	SuspendAfter   int `json:"suspend_after"`
	TimeoutSeconds int `json:"timeout_seconds"`
	MaxHeaders     int `json:"max_headers"`
	KeepDeliveries int `json:"keep_deliveries"`
}

// List is the webhooks of the caller's scopes and the catalogue of the
// widest scope held.
func (h *Hooks) List(ctx context.Context, c Caller) (Listing, error) {
	_, deployment, err := h.scopes(ctx, c)
	if err != nil {
		return Listing{}, err
	}
	scopes, _ := h.storedScopes(ctx, c)
	all, err := h.inScopes(ctx, scopes)
	if err != nil {
		return Listing{}, err
	}
	out := Listing{Webhooks: []Webhook{}, Events: catalogueFor(deployment), Groups: Groups,
		Scopes: []string{ScopeForest}, Queue: h.QueueState(),
		Limits: Limits{MaxAttempts, SuspendAfter, int(Timeout.Seconds()), MaxHeaders, KeepDeliveries}}
	if deployment {
		out.Scopes = append(out.Scopes, ScopeDeployment)
	}
	for _, w := range all {
		out.Webhooks = append(out.Webhooks, w.Webhook)
	}
	return out, nil
}

// Detail answers GET /v1/forests/{forest}/webhooks/{hook}.
type Detail struct {
	Webhook    Webhook    `json:"webhook"`
	Deliveries []Delivery `json:"deliveries"`
}

// visibleHook loads a webhook the caller may manage; any other answers
// "no such webhook", byte-identical to one that does not exist.
func (h *Hooks) visibleHook(ctx context.Context, c Caller, id string) (stored, error) {
	scopes, err := h.storedScopes(ctx, c)
	if err != nil {
		return stored{}, err
	}
	w, found, err := h.load(ctx, id)
	if err != nil {
		return stored{}, err
	}
	if !found || !slices.Contains(scopes, w.Scope) {
		return stored{}, errNoSuchWebhook()
	}
	return w, nil
}

// Get is one webhook and its newest deliveries (limit 1..100, default 50
// when 0).
func (h *Hooks) Get(ctx context.Context, c Caller, id string, limit int) (Detail, error) {
	w, err := h.visibleHook(ctx, c, id)
	if err != nil {
		return Detail{}, err
	}
	if limit <= 0 {
		limit = 50
	}
	d, err := h.deliveries(ctx, w.ID, min(limit, KeepDeliveries))
	return Detail{Webhook: w.Webhook, Deliveries: d}, err
}

// Saved answers a create (Secret set, shown once) or a replace.
type Saved struct {
	Webhook Webhook `json:"webhook"`
	Secret  string  `json:"secret,omitempty"`
}

// Save creates a webhook (no id in the body; created true) or replaces
// one: a replace clears the suspension and the fail streak and makes the
// caller the owner.
func (h *Hooks) Save(ctx context.Context, c Caller, raw []byte) (Saved, bool, error) {
	forest, deployment, err := h.scopes(ctx, c)
	if err != nil {
		return Saved{}, false, err
	}
	r, err := decodeRequest(raw)
	if err != nil {
		return Saved{}, false, err
	}
	if r.deployment && !deployment {
		return Saved{}, false, &vine.Error{Code: vine.EForbidden, Message: "a deployment webhook requires authority over every forest"}
	}
	if !r.deployment && !forest {
		return Saved{}, false, &vine.Error{Code: vine.EForbidden, Message: "requires the 'admin' capability on that forest"}
	}
	if _, err := destination.Check(ctx, r.url, h.opt.AllowPrivate, h.opt.Resolver); err != nil {
		return Saved{}, false, err
	}
	w := stored{headers: map[string]string{}}
	created := r.id == ""
	if created {
		w.ID, w.secret, w.Created = newID("wh-", 5), newSecret(), stamp(h.now())
	} else if w, err = h.visibleHook(ctx, c, r.id); err != nil {
		return Saved{}, false, err
	}
	w.Scope = c.Forest
	if r.deployment {
		w.Scope = Deployment
	}
	w.Owner, w.Label, w.URL, w.Events, w.Branches = c.Principal, r.label, r.url, r.events, r.branches
	w.headers = mergeHeaders(w.headers, r)
	w.IncludeMetadata, w.Enabled = r.includeMetadata, r.enabled
	if err := h.put(ctx, w); err != nil {
		return Saved{}, false, err
	}
	action := "replace"
	if created {
		action = "create"
	}
	h.audit(ctx, c.Principal, w.Scope, action, map[string]any{"webhook": w.ID, "host": hostOf(w.URL),
		"events": len(w.Events)}, record.OK)
	saved, _, err := h.load(ctx, w.ID)
	out := Saved{Webhook: saved.Webhook}
	if created {
		out.Secret = w.secret
	}
	return out, created, err
}

// Delete removes a webhook and its deliveries.
func (h *Hooks) Delete(ctx context.Context, c Caller, id string) error {
	w, err := h.visibleHook(ctx, c, id)
	if err != nil {
		return err
	}
	if err := h.remove(ctx, w.ID); err != nil {
		return err
	}
	h.audit(ctx, c.Principal, w.Scope, "delete", map[string]any{"webhook": w.ID, "host": hostOf(w.URL)}, record.OK)
	return nil
}

// Act runs an action on a webhook: {action: test|rotate|redeliver,
// delivery?}.
func (h *Hooks) Act(ctx context.Context, c Caller, id string, raw []byte) (any, error) {
	var m struct {
		Action   string `json:"action"`
		Delivery string `json:"delivery"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil, schema("invalid JSON body")
	}
	w, err := h.visibleHook(ctx, c, id)
	if err != nil {
		return nil, err
	}
	switch m.Action {
	case "test":
		return h.test(ctx, c, w)
	case "rotate":
		return h.rotate(ctx, c, w)
	case "redeliver":
		return h.redeliver(ctx, c, w, m.Delivery)
	}
	return nil, &vine.Error{Code: vine.ESchema, Message: "unknown action: " + m.Action, Hint: "One of: test, rotate, redeliver."}
}

// test sends webhook.test now and answers its delivery; it never
// suspends or resumes the webhook.
func (h *Hooks) test(ctx context.Context, c Caller, w stored) (any, error) {
	delivery := newID("whd-", 6)
	b, err := json.Marshal(body{ID: delivery, Event: TestEvent, Forest: w.Scope, At: stamp(h.now()),
		Principal: c.Principal, Data: map[string]any{"webhook": w.ID, "label": w.Label}})
	if err != nil {
		return nil, err
	}
	d := h.send(ctx, w, delivery, TestEvent, 1, b)
	h.audit(ctx, c.Principal, w.Scope, "test", map[string]any{"webhook": w.ID, "host": hostOf(w.URL), "ok": d.OK}, record.OK)
	return map[string]any{"delivery": d}, nil
}

// rotate replaces the signing secret and shows the new one once.
func (h *Hooks) rotate(ctx context.Context, c Caller, w stored) (any, error) {
	secret := newSecret()
	if _, err := h.db.ExecContext(ctx, "UPDATE webhooks SET secret = ? WHERE id = ?", secret, w.ID); err != nil {
		return nil, err
	}
	h.audit(ctx, c.Principal, w.Scope, "rotate", map[string]any{"webhook": w.ID, "host": hostOf(w.URL)}, record.OK)
	return Saved{Webhook: w.Webhook, Secret: secret}, nil
}

// redeliver re-sends a logged delivery's body unchanged as its next
// attempt, freshly timestamped and signed.
func (h *Hooks) redeliver(ctx context.Context, c Caller, w stored, delivery string) (any, error) {
	var last Delivery
	var b string
	err := h.db.QueryRowContext(ctx, `SELECT event, attempt, body FROM webhook_deliveries
		WHERE webhook = ? AND delivery = ? ORDER BY attempt DESC, rowid DESC LIMIT 1`, w.ID, delivery).Scan(&last.Event, &last.Attempt, &b)
	if err != nil || delivery == "" {
		return nil, &vine.Error{Code: vine.ENotFound, Message: "no such delivery"}
	}
	d := h.send(ctx, w, delivery, last.Event, last.Attempt+1, []byte(b))
	h.audit(ctx, c.Principal, w.Scope, "redeliver", map[string]any{"webhook": w.ID, "host": hostOf(w.URL),
		"delivery": delivery, "ok": d.OK}, record.OK)
	return map[string]any{"delivery": d}, nil
}
