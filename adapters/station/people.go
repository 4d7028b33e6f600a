// SPDX-License-Identifier: Apache-2.0

package station

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

// person is one entry of GET /v1/admin/people: everything the console
// shows of a principal, so it never assembles one from three routes.
type person struct {
	ID          string           `json:"id"`
	Kind        string           `json:"kind"`
	Created     string           `json:"created"`
	HasPassword bool             `json:"has_password"`
	Grants      []registry.Grant `json:"grants"`
	Manageable  bool             `json:"manageable"`
	Tokens      []registry.Key   `json:"tokens"`
	LiveTokens  int              `json:"live_tokens"`
	LastSeen    *string          `json:"last_seen"`
}

// people serves GET /v1/admin/people (09 §7): every principal holding a
// grant on a forest the caller administers, its grants there, and its
// keys when the caller may manage its credentials. The role presets ride
// along so the console's form offers the Station's own, never a copy.
func (s *Server) people(c adminCall) {
	const op = "admin.people"
	all, err := s.reg.Principals(c.r.Context())
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	out := []person{}
	for _, p := range all {
		pe, ok, err := s.personOf(c, p)
		if err != nil {
			s.api.Refuse(c.w, op, err)
			return
		}
		if ok {
			out = append(out, pe)
		}
	}
	reach, err := s.reg.Administered(c.r.Context(), c.who.Name)
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	forests := reach.Forests
	if reach.Every {
		forests = s.forestIDs()
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"people": out, "forests": nonNil(forests), "roles": registry.Roles()})
}

// personOf renders p for the caller; ok is false when p holds nothing
// the caller administers.
func (s *Server) personOf(c adminCall, p registry.Principal) (person, bool, error) {
	grants, err := s.visibleGrants(c, p.ID)
	if err != nil || len(grants) == 0 {
		return person{}, false, err
	}
	manageable, err := s.fully(c, p.ID)
	if err != nil {
		return person{}, false, err
	}
	pe := person{ID: p.ID, Kind: p.Kind, Created: p.Created, HasPassword: p.HasPassword, Grants: grants,
		Manageable: manageable, Tokens: []registry.Key{}, LiveTokens: p.Keys}
	if p.LastSeen != "" {
		pe.LastSeen = &p.LastSeen
	}
	if manageable {
		list, err := s.reg.ListKeys(c.r.Context(), []string{p.ID})
		if err != nil {
			return person{}, false, err
		}
		pe.Tokens = nonNil(list)
	}
	return pe, true, nil
}

// peopleOutcome is the answer of POST /v1/admin/people.
type peopleOutcome struct {
	Principal string        `json:"principal"`
	Applied   []string      `json:"applied"`
	Refused   []stepRefusal `json:"refused"`
	APIKey    string        `json:"api_key,omitempty"`
}

type stepRefusal struct {
	Step    string `json:"step"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Forest  string `json:"forest,omitempty"`
}

// refuse notes a step's refusal.
func (o *peopleOutcome) refuse(step, forest string, err error) {
	e := vine.AsError(step, err)
	o.Refused = append(o.Refused, stepRefusal{Step: step, Message: e.Message, Hint: e.Hint, Forest: forest})
}

// apply notes a step that landed, once.
func (o *peopleOutcome) apply(step string) {
	if !slices.Contains(o.Applied, step) {
		o.Applied = append(o.Applied, step)
	}
}

// changePeople serves POST /v1/admin/people {principal, grant?,
// revoke_access?, password?, issue_key?, revoke_keys?} (09 §7): the steps
// in their normative order, each checking its own rule, a refused step
// never abandoning the others; one audit row for the whole request.
func (s *Server) changePeople(c adminCall) {
	const op = "admin.people"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	target := text(m, "principal")
	if target == "" {
		s.api.Refuse(c.w, op, &vine.Error{Code: vine.ESchema, Message: "principal is required"})
		return
	}
	c.quiet = true
	o := &peopleOutcome{Principal: target, Applied: []string{}, Refused: []stepRefusal{}}
	if raw, ok := m["grant"]; ok {
		s.stepGrant(c, o, target, raw)
	}
	if raw, ok := m["revoke_access"]; ok {
		s.stepRevokeAccess(c, o, target, raw)
	}
	if raw, ok := m["password"]; ok {
		var pw *string
		if json.Unmarshal(raw, &pw) != nil {
			o.refuse("password", "", &vine.Error{Code: vine.ESchema, Message: "password must be a string, or null to clear it"})
		} else if err := s.setPassword(c, target, deref(pw)); err != nil {
			o.refuse("password", "", err)
		} else {
			o.apply("password")
		}
	}
	if raw, ok := m["issue_key"]; ok {
		s.stepIssueKey(c, o, target, raw)
	}
	if raw, ok := m["revoke_keys"]; ok {
		s.stepRevokeKeys(c, o, target, raw)
	}
	result, status := record.OK, http.StatusOK
	if len(o.Applied) == 0 && len(o.Refused) > 0 {
		result, status = record.Refused, http.StatusForbidden
	}
	s.govern(c.r, c.who.Name, "", op, map[string]any{"target": target, "applied": listOrDash(o.Applied),
		"refused": listOrDash(refusedSteps(o.Refused))}, result)
	s.api.WriteJSON(c.w, op, status, o)
}

// stepGrant is step 1: one grant on every forest named, each checked.
func (s *Server) stepGrant(c adminCall, o *peopleOutcome, target string, raw json.RawMessage) {
	var g struct {
		grantRequest
		Forests []string `json:"forests"`
	}
	if json.Unmarshal(raw, &g) != nil {
		o.refuse("grant", "", &vine.Error{Code: vine.ESchema, Message: "invalid grant"})
		return
	}
	forests := g.Forests
	if g.Forest != "" {
		forests = append(forests, g.Forest)
	}
	if len(forests) == 0 {
		o.refuse("grant", "", &vine.Error{Code: vine.ESchema, Message: "a grant must name at least one forest"})
		return
	}
	for _, f := range forests {
		one := g.grantRequest
		one.Forest = f
		if err := s.landGrant(c, target, one); err != nil {
			if vine.CodeOf(err) == vine.EForbidden {
				err = &vine.Error{Code: vine.EForbidden, Message: "you do not administer '" + f + "'"}
			}
			o.refuse("grant", f, err)
			continue
		}
		o.apply("grant")
	}
}

// stepRevokeAccess is step 2: grants removed on the forests the caller
// administers.
func (s *Server) stepRevokeAccess(c adminCall, o *peopleOutcome, target string, raw json.RawMessage) {
	forests := stringOrList(raw)
	for _, f := range forests {
		ok, err := s.reg.IsAdmin(c.r.Context(), c.who.Name, f, c.who.Mask)
		if err == nil && !ok {
			err = &vine.Error{Code: vine.EForbidden, Message: "you do not administer '" + f + "'"}
		}
		if err == nil {
			_, err = s.reg.RevokeGrant(c.r.Context(), target, f)
		}
		if err != nil {
			o.refuse("revoke_access", f, err)
			continue
		}
		o.apply("revoke_access")
	}
}

// stepIssueKey is step 4: true, or {label?, expires_in_days?}.
func (s *Server) stepIssueKey(c adminCall, o *peopleOutcome, target string, raw json.RawMessage) {
	var opt struct {
		Label string          `json:"label"`
		Days  json.RawMessage `json:"expires_in_days"`
	}
	if !isTrue(raw) && json.Unmarshal(raw, &opt) != nil {
		o.refuse("issue_key", "", &vine.Error{Code: vine.ESchema, Message: "issue_key is true or {label?, expires_in_days?}"})
		return
	}
	minted, _, err := s.issueKey(c, target, opt.Label, opt.Days)
	if err != nil {
		o.refuse("issue_key", "", err)
		return
	}
	o.APIKey = minted.Secret
	o.apply("issue_key")
}

// stepRevokeKeys is step 5: true revokes every key, sessions included;
// a list revokes those of its ids that are the target's.
func (s *Server) stepRevokeKeys(c adminCall, o *peopleOutcome, target string, raw json.RawMessage) {
	ok, err := s.fully(c, target)
	if err == nil && !ok {
		err = notFully(target)
	}
	if err != nil {
		o.refuse("revoke_keys", "", err)
		return
	}
	var ids []string
	if !isTrue(raw) {
		ids = stringOrList(raw)
		if ids == nil {
			ids = []string{}
		}
	}
	revoked, err := s.reg.RevokeKeys(c.r.Context(), target, ids)
	if err != nil {
		o.refuse("revoke_keys", "", err)
		return
	}
	for _, k := range revoked {
		s.emit("key.revoked", "", c.who.Name, map[string]any{"principal": target, "prefix": k.Prefix})
	}
	o.apply("revoke_keys")
}

// stringOrList reads "id" or ["id", ...].
func stringOrList(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var list []string
	_ = json.Unmarshal(raw, &list)
	return list
}

func refusedSteps(r []stepRefusal) []string {
	out := []string{}
	for _, x := range r {
		if !slices.Contains(out, x.Step) {
			out = append(out, x.Step)
		}
	}
	return out
}

// listOrDash is an audit digest's comma list, "-" when empty.
func listOrDash(list []string) string {
	if len(list) == 0 {
		return "-"
	}
	return strings.Join(list, ",")
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
