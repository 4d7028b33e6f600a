// SPDX-License-Identifier: Apache-2.0

package station

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/audit"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

// The governance routes of 09 §6, §7 and §9. Every one refuses an
// anonymous caller (401, by the surface) and a caller that is admin
// nowhere after its key's mask (403); what each reads is narrowed to the
// caller's reach, and every credential act needs the caller to
// administer the target fully (the J.2.2 escalation rule).

// routes are the Station's host routes, served by the REST surface.
func (s *Server) routes() []rest.Route {
	return append([]rest.Route{
		{Method: "POST", Path: "/v1/auth/setup", Op: "auth.setup", Summary: "create the owner, once (09 §4)", Handler: s.setup},
		{Method: "POST", Path: "/v1/auth/login", Op: "auth.login", Summary: "a 12-hour session for a password", Handler: s.login},
		{Method: "POST", Path: "/v1/auth/pair", Op: "auth.pair", Summary: "a masked key for a browser extension", Handler: s.pair},
		{Method: "GET", Path: "/v1/admin/keys", Op: "admin.keys", Summary: "API keys of the principals you fully administer", Auth: true, Handler: s.admin(s.listKeys)},
		{Method: "POST", Path: "/v1/admin/keys", Op: "admin.key", Summary: "mint a key, or revoke one", Auth: true, Handler: s.admin(s.changeKeys)},
		{Method: "POST", Path: "/v1/admin/grant", Op: "admin.grant", Summary: "set a principal's grant on a forest", Auth: true, Handler: s.admin(s.grant)},
		{Method: "POST", Path: "/v1/admin/password", Op: "admin.password", Summary: "set or clear a principal's password", Auth: true, Handler: s.admin(s.password)},
		{Method: "GET", Path: "/v1/admin/principals", Op: "admin.principals", Summary: "principals holding your forests", Auth: true, Handler: s.admin(s.principals)},
		{Method: "GET", Path: "/v1/admin/people", Op: "admin.people", Summary: "people of your forests, whole", Auth: true, Handler: s.admin(s.people)},
		{Method: "POST", Path: "/v1/admin/people", Op: "admin.people", Summary: "onboard or change a person in one request", Auth: true, Handler: s.admin(s.changePeople)},
		{Method: "GET", Path: "/v1/admin/cache", Op: "admin.cache", Summary: "a forest's answer store: settings and statistics", Auth: true, Handler: s.admin(s.cacheStatus)},
		{Method: "POST", Path: "/v1/admin/cache", Op: "admin.cache", Summary: "change a forest's answer store settings, or clear it", Auth: true, Handler: s.admin(s.changeCache)},
		{Method: "GET", Path: "/v1/admin/audit", Op: "admin.audit", Summary: "the audit trail of your forests", Auth: true, Handler: s.admin(s.auditTrail)},
	}, slices.Concat(s.shareRoutes(), s.webhookRoutes(), s.modelRoutes(), s.extensionRoutes(), s.extCallRoutes())...)
}

// adminCall is an authenticated governance request.
type adminCall struct {
	w     http.ResponseWriter
	r     *http.Request
	who   *keys.Principal
	quiet bool // a step of POST /v1/admin/people, which writes one row for all
}

// note audits a governance act of the caller, unless it is a step of a
// request that writes its own row.
func (s *Server) note(c adminCall, forest, action string, args map[string]any, result record.Result) {
	s.noteVia(c, forest, action, "", args, result)
}

// noteVia is note for an act an extension (id via) was in the path of.
func (s *Server) noteVia(c adminCall, forest, action, via string, args map[string]any, result record.Result) {
	if !c.quiet {
		s.governVia(c.r, c.who.Name, forest, action, via, args, result)
	}
}

// admin gates a governance route: the caller must hold admin on some
// forest, or the owner bit, after its key's mask.
func (s *Server) admin(h func(adminCall)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		who := rest.Caller(r.Context())
		ok, err := s.reg.IsAdmin(r.Context(), who.Name, "", who.Mask)
		if err != nil {
			s.api.Refuse(w, "admin", err)
			return
		}
		if !ok {
			s.api.Refuse(w, "admin", &vine.Error{Code: vine.EForbidden, Message: "requires the 'admin' capability",
				Hint: "this key administers no forest"})
			return
		}
		h(adminCall{w: w, r: r, who: who})
	}
}

// body reads the JSON object of a governance POST.
func (c adminCall) body() (map[string]json.RawMessage, error) { return doorBody(c.r) }

// fully reports whether the caller may act on target's credentials.
func (s *Server) fully(c adminCall, target string) (bool, error) {
	return s.reg.AdministersFully(c.r.Context(), c.who.Name, target)
}

// notFully is the refusal of a credential act beyond the caller's reach.
func notFully(target string) *vine.Error {
	return &vine.Error{Code: vine.EForbidden, Message: fmt.Sprintf("'%s' holds forests you do not administer", target),
		Hint: "a key or password for them would reach further than your own authority; ask an administrator of every forest they hold"}
}

// manageable lists the principals the caller fully administers.
func (s *Server) manageable(c adminCall) ([]string, error) {
	all, err := s.reg.Principals(c.r.Context())
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, p := range all {
		ok, err := s.fully(c, p.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, p.ID)
		}
	}
	return out, nil
}

// listKeys serves GET /v1/admin/keys.
func (s *Server) listKeys(c adminCall) {
	ids, err := s.manageable(c)
	if err != nil {
		s.api.Refuse(c.w, "admin.keys", err)
		return
	}
	list, err := s.reg.ListKeys(c.r.Context(), ids)
	if err != nil {
		s.api.Refuse(c.w, "admin.keys", err)
		return
	}
	s.api.WriteJSON(c.w, "admin.keys", http.StatusOK, map[string]any{"keys": nonNil(list), "principals": ids})
}

// changeKeys serves POST /v1/admin/keys: {principal, label?,
// expires_in_days?} mints, {revoke: id} revokes; authority is checked
// before any effect.
func (s *Server) changeKeys(c adminCall) {
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, "admin.key", err)
		return
	}
	if id := text(m, "revoke"); id != "" {
		s.revokeKey(c, id)
		return
	}
	target := text(m, "principal")
	if target == "" {
		s.api.Refuse(c.w, "admin.key", &vine.Error{Code: vine.ESchema, Message: "principal is required"})
		return
	}
	minted, days, err := s.issueKey(c, target, text(m, "label"), m["expires_in_days"])
	if err != nil {
		s.api.Refuse(c.w, "admin.key", err)
		return
	}
	list, err := s.reg.ListKeys(c.r.Context(), []string{target})
	if err != nil {
		s.api.Refuse(c.w, "admin.key", err)
		return
	}
	s.api.WriteJSON(c.w, "admin.key", http.StatusOK, map[string]any{"api_key": minted.Secret, "principal": target,
		"keys": nonNil(list), "expires_in_days": days})
}

// issueKey mints an API key for target when the caller fully
// administers it, and audits the act either way.
func (s *Server) issueKey(c adminCall, target, label string, rawDays json.RawMessage) (registry.Minted, float64, error) {
	const action = "admin.key.issue"
	ok, err := s.fully(c, target)
	if err != nil {
		return registry.Minted{}, 0, err
	}
	if !ok {
		s.note(c, "", action, map[string]any{"target": target}, record.Refused)
		return registry.Minted{}, 0, notFully(target)
	}
	days, err := keyDays(rawDays)
	if err != nil {
		return registry.Minted{}, 0, err
	}
	if label == "" {
		label = "api"
	}
	minted, err := s.reg.Mint(c.r.Context(), target, registry.MintOptions{Label: label,
		ExpiresIn: time.Duration(days * float64(24*time.Hour))})
	if err != nil {
		return registry.Minted{}, 0, err
	}
	s.note(c, "", action, map[string]any{"target": target, "label": label,
		"prefix": minted.Key.Prefix, "expires_in_days": days}, record.OK)
	s.emit("key.issued", "", c.who.Name, map[string]any{"principal": target, "label": label,
		"prefix": minted.Key.Prefix, "expires_in_days": days})
	return minted, days, nil
}

// keyDays reads a key's life: absent is 90 days, past 365 is refused.
func keyDays(raw json.RawMessage) (float64, error) {
	days, err := pairDaysOf(raw)
	if err != nil {
		return 0, err
	}
	return days, nil
}

// revokeKey revokes one key, authorising before the effect.
func (s *Server) revokeKey(c adminCall, id string) {
	const action = "admin.key.revoke"
	ctx := c.r.Context()
	target, err := s.reg.KeyOwner(ctx, id)
	if err != nil {
		s.api.Refuse(c.w, action, err)
		return
	}
	if ok, err := s.fully(c, target); err != nil || !ok {
		if err == nil {
			s.note(c, "", action, map[string]any{"target": target}, record.Refused)
			err = notFully(target)
		}
		s.api.Refuse(c.w, action, err)
		return
	}
	k, err := s.reg.RevokeKey(ctx, id)
	if err != nil {
		s.api.Refuse(c.w, action, err)
		return
	}
	s.note(c, "", action, map[string]any{"target": target, "prefix": k.Prefix}, record.OK)
	s.emit("key.revoked", "", c.who.Name, map[string]any{"principal": target, "prefix": k.Prefix})
	s.api.WriteJSON(c.w, action, http.StatusOK, map[string]any{"revoked": id, "principal": target})
}

// grantRequest is a grant as the routes take it.
type grantRequest struct {
	Forest string              `json:"forest"`
	Caps   []vine.Capability   `json:"caps"`
	Allow  []string            `json:"allow"`
	Deny   []string            `json:"deny"`
	Tables map[string][]string `json:"tables"`
}

// grant serves POST /v1/admin/grant {principal, forest, caps?, allow?,
// deny?, tables?, issue_key?}: the forest is required before any
// authorization (C.12 r6), then admin on it.
func (s *Server) grant(c adminCall) {
	const action = "admin.grant"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, action, err)
		return
	}
	var g grantRequest
	raw, _ := json.Marshal(m)
	if json.Unmarshal(raw, &g) != nil {
		s.api.Refuse(c.w, action, &vine.Error{Code: vine.ESchema, Message: "invalid grant",
			Hint: "caps, allow and deny are lists of strings; tables maps a dataset id to its tables"})
		return
	}
	target := text(m, "principal")
	if err := s.landGrant(c, target, g); err != nil {
		s.api.Refuse(c.w, action, err)
		return
	}
	out := map[string]any{"principal": target}
	if isTrue(m["issue_key"]) {
		minted, _, err := s.issueKey(c, target, "api", nil)
		if err != nil {
			s.api.Refuse(c.w, action, err)
			return
		}
		out["api_key"] = minted.Secret
	}
	grants, err := s.visibleGrants(c, target)
	if err != nil {
		s.api.Refuse(c.w, action, err)
		return
	}
	out["grants"] = grants
	s.api.WriteJSON(c.w, action, http.StatusOK, out)
}

// landGrant checks and stores one grant, auditing it on its forest.
func (s *Server) landGrant(c adminCall, target string, g grantRequest) error {
	const action = "admin.grant"
	if g.Forest == "" {
		return &vine.Error{Code: vine.ESchema, Message: "parameter 'forest' is required",
			Hint: "name it: \"forest\" in the JSON body"}
	}
	if target == "" {
		return &vine.Error{Code: vine.ESchema, Message: "principal is required"}
	}
	ok, err := s.reg.IsAdmin(c.r.Context(), c.who.Name, g.Forest, c.who.Mask)
	if err != nil {
		return err
	}
	if !ok {
		s.note(c, g.Forest, action, map[string]any{"target": target}, record.Refused)
		return &vine.Error{Code: vine.EForbidden, Message: "requires the 'admin' capability on that forest"}
	}
	allow := g.Allow
	if allow == nil {
		allow = []string{""}
	}
	stored, err := s.reg.SetGrant(c.r.Context(), target, registry.Grant{Forest: g.Forest, Caps: g.Caps,
		Allow: allow, Deny: g.Deny, Tables: g.Tables})
	if err != nil {
		return err
	}
	s.note(c, g.Forest, action, map[string]any{"target": target, "caps": stored.Caps}, record.OK)
	s.emit("grant.changed", g.Forest, c.who.Name, map[string]any{"principal": target, "caps": stored.Caps,
		"branches": len(stored.Allow)})
	return nil
}

// visibleGrants are target's grants on the forests the caller
// administers.
func (s *Server) visibleGrants(c adminCall, target string) ([]registry.Grant, error) {
	reach, err := s.reg.Administered(c.r.Context(), c.who.Name)
	if err != nil {
		return nil, err
	}
	all, err := s.reg.Grants(c.r.Context(), target)
	if err != nil {
		return nil, err
	}
	out := []registry.Grant{}
	for _, g := range all {
		if reach.Has(g.Forest) {
			out = append(out, g)
		}
	}
	return out, nil
}

// password serves POST /v1/admin/password {principal, password}: an
// empty password clears the door.
func (s *Server) password(c adminCall) {
	const action = "admin.password"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, action, err)
		return
	}
	target := text(m, "principal")
	if target == "" {
		s.api.Refuse(c.w, action, &vine.Error{Code: vine.ESchema, Message: "principal is required"})
		return
	}
	if err := s.setPassword(c, target, text(m, "password")); err != nil {
		s.api.Refuse(c.w, action, err)
		return
	}
	s.api.WriteJSON(c.w, action, http.StatusOK, map[string]any{"principal": target, "has_password": text(m, "password") != ""})
}

// setPassword sets or clears target's password when the caller fully
// administers it, auditing the act.
func (s *Server) setPassword(c adminCall, target, pw string) error {
	const action = "admin.password"
	ok, err := s.fully(c, target)
	if err != nil {
		return err
	}
	if !ok {
		s.note(c, "", action, map[string]any{"target": target}, record.Refused)
		return &vine.Error{Code: vine.EForbidden, Message: "requires 'admin' on every forest that principal holds"}
	}
	if err := s.reg.SetPassword(c.r.Context(), target, pw); err != nil {
		s.note(c, "", action, map[string]any{"target": target}, record.Refused)
		return err
	}
	s.note(c, "", action, map[string]any{"target": target, "cleared": pw == ""}, record.OK)
	return nil
}

type principalView struct {
	registry.Principal
	Grants       int              `json:"grants"`
	GrantsDetail []registry.Grant `json:"grants_detail"`
}

// principals serves GET /v1/admin/principals: those holding a grant on a
// forest the caller administers, with those grants.
func (s *Server) principals(c adminCall) {
	all, err := s.reg.Principals(c.r.Context())
	if err != nil {
		s.api.Refuse(c.w, "admin.principals", err)
		return
	}
	out := []principalView{}
	for _, p := range all {
		grants, err := s.visibleGrants(c, p.ID)
		if err != nil {
			s.api.Refuse(c.w, "admin.principals", err)
			return
		}
		if len(grants) > 0 {
			out = append(out, principalView{Principal: p, Grants: len(grants), GrantsDetail: grants})
		}
	}
	s.api.WriteJSON(c.w, "admin.principals", http.StatusOK, map[string]any{"principals": out})
}

// auditTrail serves GET /v1/admin/audit: the rows of the forests the
// caller administers (every row for the owner past its mask), filtered,
// with totals and facets computed in SQL.
func (s *Server) auditTrail(c adminCall) {
	f, err := audit.ParseQuery(c.r.URL.Query())
	if err != nil {
		s.api.Refuse(c.w, "admin.audit", err)
		return
	}
	reach, err := s.reg.Administered(c.r.Context(), c.who.Name)
	if err != nil {
		s.api.Refuse(c.w, "admin.audit", err)
		return
	}
	scope := audit.Scope{Owner: reach.Every && c.who.IsOwner(), Forests: reach.Forests}
	if reach.Every && !scope.Owner {
		scope.Forests = s.forestIDs()
	}
	page, err := s.audit.Query(c.r.Context(), scope, f)
	if err != nil {
		s.api.Refuse(c.w, "admin.audit", err)
		return
	}
	s.api.WriteJSON(c.w, "admin.audit", http.StatusOK, page)
}

// forestIDs lists the forests served now.
func (s *Server) forestIDs() []string {
	out := []string{}
	for _, f := range s.forests.List().Forests {
		out = append(out, f.ID)
	}
	return out
}

// isTrue reports whether raw is JSON true.
func isTrue(raw json.RawMessage) bool {
	var b bool
	return json.Unmarshal(raw, &b) == nil && b
}

// nonNil keeps an empty listing a JSON list.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clip(s)
}
