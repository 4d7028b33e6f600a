// SPDX-License-Identifier: Apache-2.0

package station

import (
	"encoding/json"
	"net/http"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/providers"
)

// Providers and model bindings (09 §8). Any admin lists providers;
// changing or testing one needs authority over every forest; a forest's
// bindings need admin on it. A forest's embed binding is its Canopy
// embedder: attached when the forest opens and again whenever the
// binding changes, so hybrid locate and the Gauntlet run on the bound
// model (unless the forest's gauntlet setting is off).

// modelRoutes are the provider and binding routes, appended to routes().
func (s *Server) modelRoutes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Path: "/v1/admin/providers", Op: "admin.providers", Summary: "the model providers, never a key", Auth: true, Handler: s.admin(s.listProviders)},
		{Method: "POST", Path: "/v1/admin/providers", Op: "admin.provider", Summary: "add or change a provider, or remove one", Auth: true, Handler: s.admin(s.changeProvider)},
		{Method: "POST", Path: "/v1/admin/providers/test", Op: "admin.provider.test", Summary: "list the models an endpoint advertises", Auth: true, Handler: s.admin(s.testProvider)},
		{Method: "GET", Path: "/v1/admin/models", Op: "admin.models", Summary: "a forest's model bindings and the bindable roles", Auth: true, Handler: s.admin(s.listBindings)},
		{Method: "POST", Path: "/v1/admin/models", Op: "admin.model.bind", Summary: "bind a role of a forest to a provider's model, or unbind it", Auth: true, Handler: s.admin(s.bindModel)},
	}
}

// listProviders serves GET /v1/admin/providers. Governs says whether
// this caller may change and test them, so a console can disable those
// controls with the reason: it cannot tell from the forests it sees,
// since governing needs admin on forests it may not see at all.
func (s *Server) listProviders(c adminCall) {
	list, err := s.models.List(c.r.Context())
	var governs bool
	if err == nil {
		governs, err = s.reg.GovernsDeployment(c.r.Context(), c.who.Name, c.who.Mask, s.forestIDs())
	}
	if err != nil {
		s.api.Refuse(c.w, "admin.providers", err)
		return
	}
	s.api.WriteJSON(c.w, "admin.providers", http.StatusOK, map[string]any{"providers": list, "governs": governs})
}

// governsProviders is the gate of a provider change or test.
func (s *Server) governsProviders(c adminCall) error {
	ok, err := s.reg.GovernsDeployment(c.r.Context(), c.who.Name, c.who.Mask, s.forestIDs())
	if err == nil && !ok {
		err = &vine.Error{Code: vine.EForbidden, Message: "managing providers requires authority over every forest",
			Hint: "ask the owner, or an administrator of every forest"}
	}
	return err
}

// changeProvider serves POST /v1/admin/providers {name, endpoint,
// api_key?} or {name, remove: true}; refusals are audited too.
func (s *Server) changeProvider(c adminCall) {
	const op = "admin.provider"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	name, endpoint, key, removed := text(m, "name"), text(m, "endpoint"), text(m, "api_key"), isTrue(m["remove"])
	args := map[string]any{"name": name, "endpoint": endpoint, "removed": removed, "key_supplied": key != ""}
	err = s.governsProviders(c)
	if err == nil && removed {
		err = s.models.Remove(c.r.Context(), name)
	} else if err == nil {
		err = s.models.Save(c.r.Context(), name, endpoint, key)
	}
	s.note(c, "", op, args, outcome(err))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.emit("provider.changed", "", c.who.Name, args)
	if removed {
		s.reattachAll(c.r.Context()) // its bindings went with it
	}
	s.listProviders(c)
}

// testProvider serves POST /v1/admin/providers/test {name?, endpoint?,
// api_key?}.
func (s *Server) testProvider(c adminCall) {
	const op = "admin.provider.test"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	req := providers.TestRequest{Name: text(m, "name"), Endpoint: text(m, "endpoint"), APIKey: text(m, "api_key")}
	var res providers.TestResult
	err = s.governsProviders(c)
	if err == nil {
		res, err = s.models.Test(c.r.Context(), req)
	}
	s.note(c, "", op, map[string]any{"name": req.Name, "endpoint": req.Endpoint, "ok": res.OK}, outcome(err))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, res)
}

type bindingsAnswer struct {
	Bindings []providers.Binding `json:"bindings"`
	Roles    []providers.Role    `json:"roles"`
}

// listBindings serves GET /v1/admin/models?forest=.
func (s *Server) listBindings(c adminCall) {
	forest := c.r.URL.Query().Get("forest")
	if err := s.adminOn(c, forest); err != nil {
		s.api.Refuse(c.w, "admin.models", err)
		return
	}
	s.answerBindings(c, "admin.models", forest)
}

func (s *Server) answerBindings(c adminCall, op, forest string) {
	b, err := s.models.Bindings(c.r.Context(), forest)
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, bindingsAnswer{Bindings: b, Roles: s.models.Roles()})
}

// bindModel serves POST /v1/admin/models {forest, role, provider, model,
// max_tokens?, reasoning?} or {forest, role, remove: true}.
func (s *Server) bindModel(c adminCall) {
	const op = "admin.model.bind"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	forest := text(m, "forest")
	if err := s.adminOn(c, forest); err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	b, removed, err := bindingOf(forest, m)
	if err == nil && removed {
		err = s.models.Unbind(c.r.Context(), forest, b.Role)
	} else if err == nil {
		err = s.models.Bind(c.r.Context(), b)
	}
	args := map[string]any{"role": b.Role, "provider": b.Provider, "model": b.Model, "removed": removed}
	s.note(c, forest, op, args, outcome(err))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.emit("model.bound", forest, c.who.Name, args)
	if b.Role == providers.RoleEmbed {
		s.reattach(c.r.Context(), forest)
	}
	s.answerBindings(c, op, forest)
}

// bindingOf reads a binding request's fields.
func bindingOf(forest string, m map[string]json.RawMessage) (b providers.Binding, removed bool, err error) {
	b = providers.Binding{Forest: forest, Role: text(m, "role"), Provider: text(m, "provider"), Model: text(m, "model"),
		Reasoning: text(m, "reasoning")}
	if raw, ok := m["max_tokens"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &b.MaxTokens) != nil || b.MaxTokens < 1 {
			return b, false, &vine.Error{Code: vine.ESchema, Message: "max_tokens must be a positive integer"}
		}
	}
	return b, isTrue(m["remove"]), nil
}

// outcome is a governance act's audit result: ok, or refused.
func outcome(err error) record.Result {
	if err != nil {
		return record.Refused
	}
	return record.OK
}
