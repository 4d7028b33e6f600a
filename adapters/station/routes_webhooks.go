// SPDX-License-Identifier: Apache-2.0

package station

import (
	"io"
	"net/http"
	"strconv"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/webhooks"
)

// The webhook routes of 09 §10, under a forest. Host only: never an MCP
// tool, nothing written into a forest. A forest the caller holds no grant
// on answers as the surface's unknown forest (§17.10); a granted forest
// without admin is the 403 of package webhooks, which owns the rest.

// webhookRoutes are the webhook routes, appended to routes().
func (s *Server) webhookRoutes() []rest.Route {
	const base = "/v1/forests/{forest}/webhooks"
	return []rest.Route{
		{Method: "GET", Path: base, Op: "webhooks", Summary: "a forest's webhooks and the event catalogue", Auth: true, Handler: s.webhooks(s.listWebhooks)},
		{Method: "POST", Path: base, Op: "webhook.save", Summary: "create a webhook (no id) or replace one (id)", Auth: true, Handler: s.webhooks(s.saveWebhook)},
		{Method: "GET", Path: base + "/{hook}", Op: "webhook", Summary: "one webhook and its newest deliveries (?limit)", Auth: true, Handler: s.webhooks(s.getWebhook)},
		{Method: "POST", Path: base + "/{hook}", Op: "webhook.action", Summary: "test, rotate or redeliver", Auth: true, Handler: s.webhooks(s.actWebhook)},
		{Method: "DELETE", Path: base + "/{hook}", Op: "webhook.delete", Summary: "remove a webhook and its deliveries", Auth: true, Handler: s.webhooks(s.deleteWebhook)},
	}
}

// maxWebhookBody bounds a webhook route's JSON body.
const maxWebhookBody = 64 << 10

// webhookCall is a request to a webhook route by a caller granted its
// forest.
type webhookCall struct {
	w      http.ResponseWriter
	r      *http.Request
	caller webhooks.Caller
}

// webhooks gates a webhook route on the forest: one that does not exist,
// or that the caller holds no grant on, is the unknown forest.
func (s *Server) webhooks(h func(webhookCall)) http.HandlerFunc {
	unknown := wire.NewForests(s.forests, "GET /v1/forests lists the forests this key may use")
	return func(w http.ResponseWriter, r *http.Request) {
		who := rest.Caller(r.Context())
		forest := r.PathValue("forest")
		_, granted := who.Policy(forest)
		if _, err := s.forests.Dir(forest); err != nil || !granted {
			s.api.Refuse(w, "webhooks", unknown.UnknownForest(who, forest))
			return
		}
		h(webhookCall{w: w, r: r, caller: webhooks.Caller{Principal: who.Name, Mask: who.Mask, Forest: forest}})
	}
}

func (c webhookCall) body() ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(c.r.Body, maxWebhookBody+1))
	if err != nil || len(b) > maxWebhookBody {
		return nil, &vine.Error{Code: vine.ESchema, Message: "invalid JSON body",
			Hint: "send a JSON object with Content-Type: application/json"}
	}
	return b, nil
}

// answer writes out, or the refusal.
func (s *Server) answerWebhook(c webhookCall, op string, status int, out any, err error) {
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, status, out)
}

func (s *Server) listWebhooks(c webhookCall) {
	out, err := s.hooks.List(c.r.Context(), c.caller)
	s.answerWebhook(c, "webhooks", http.StatusOK, out, err)
}

func (s *Server) getWebhook(c webhookCall) {
	limit, _ := strconv.Atoi(c.r.URL.Query().Get("limit"))
	out, err := s.hooks.Get(c.r.Context(), c.caller, c.r.PathValue("hook"), limit)
	s.answerWebhook(c, "webhook", http.StatusOK, out, err)
}

// saveWebhook answers 201 with the secret on a create, 200 on a replace.
func (s *Server) saveWebhook(c webhookCall) {
	b, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, "webhook.save", err)
		return
	}
	out, created, err := s.hooks.Save(c.r.Context(), c.caller, b)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.answerWebhook(c, "webhook.save", status, out, err)
}

func (s *Server) actWebhook(c webhookCall) {
	b, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, "webhook.action", err)
		return
	}
	out, err := s.hooks.Act(c.r.Context(), c.caller, c.r.PathValue("hook"), b)
	s.answerWebhook(c, "webhook.action", http.StatusOK, out, err)
}

func (s *Server) deleteWebhook(c webhookCall) {
	id := c.r.PathValue("hook")
	err := s.hooks.Delete(c.r.Context(), c.caller, id)
	s.answerWebhook(c, "webhook.delete", http.StatusOK, map[string]any{"id": id, "deleted": true}, err)
}
