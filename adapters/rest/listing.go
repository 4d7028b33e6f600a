// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"
	"slices"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
)

// healthReport is GET /v1/health (spec 08 §5), in wire order.
type healthReport struct {
	Status      string            `json:"status"`
	Mode        string            `json:"mode"`
	Writable    bool              `json:"writable"`
	Version     string            `json:"version"`
	Forests     healthForests     `json:"forests"`
	MCP         healthMCP         `json:"mcp"`
	Concurrency healthConcurrency `json:"concurrency"`
}

type healthForests struct {
	Served int `json:"served"`
	Locked int `json:"locked"`
}

type healthMCP struct {
	Enabled     bool  `json:"enabled"`
	HostAllowed *bool `json:"host_allowed,omitempty"`
}

type healthConcurrency struct {
	Readers int `json:"readers"`
	Model   int `json:"model"`
}

// health answers without a key: counts, never ids. A forest is locked
// when a live writer elsewhere holds it, which the registry learns by
// probing the lock file without opening the forest; forests this process
// holds are not probed.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	rep := healthReport{Status: "ok", Mode: s.reg.Mode(), Writable: !s.opt.ReadOnly, Version: s.opt.Version,
		Concurrency: healthConcurrency{Readers: s.lanes.size(), Model: s.opt.ModelConcurrency}}
	for _, e := range s.reg.List().Forests {
		if e.Locked {
			rep.Forests.Locked++
		} else {
			rep.Forests.Served++
		}
	}
	if rep.Forests.Locked > 0 {
		rep.Status = "degraded"
	}
	if s.opt.MCP != nil {
		ok := s.opt.MCP.Allowed(r.Host)
		rep.MCP = healthMCP{Enabled: true, HostAllowed: &ok}
	}
	s.writeJSON(w, "health", http.StatusOK, s.withHealthFields(r, rep))
}

// forestEntry is one forest of GET /v1/forests.
type forestEntry struct {
	ID     string   `json:"id"`
	Caps   []string `json:"caps"`
	Roots  []string `json:"roots"`
	Locked bool     `json:"locked,omitempty"`
	Hybrid bool     `json:"hybrid"`
	Active bool     `json:"active"`
}

type forestListing struct {
	Forests []forestEntry `json:"forests"`
	Mode    string        `json:"mode"`
	Station string        `json:"station"`
}

// listForests answers GET /v1/forests: the forests this key may use,
// with its masked caps and roots there. Nothing is opened. Hybrid is
// false: no forest of this engine binds an embedder for entry search.
func (s *Server) listForests(w http.ResponseWriter, r *http.Request) {
	out := forestListing{Forests: []forestEntry{}, Mode: s.reg.Mode(), Station: s.opt.Version}
	for _, f := range s.forests.Visible(callerOf(r.Context())) {
		out.Forests = append(out.Forests, forestEntry{ID: f.ID, Caps: wire.CapNames(f.Policy),
			Roots: wire.Roots(f.Policy), Locked: f.Locked, Active: f.Active})
	}
	s.writeJSON(w, "forests", http.StatusOK, out)
}

// grantView is one grant of GET /v1/me.
type grantView struct {
	Forest string              `json:"forest"`
	Caps   []string            `json:"caps"`
	Allow  []string            `json:"allow"`
	Deny   []string            `json:"deny"`
	Tables map[string][]string `json:"tables"`
	Roots  []string            `json:"roots"`
}

type meView struct {
	Principal string      `json:"principal"`
	Grants    []grantView `json:"grants"`
	Admin     bool        `json:"admin"`
	Owner     bool        `json:"owner"`
}

// me answers GET /v1/me: who the key is and what it may do, masked. The
// local owner's grants, and an owner's, are the forests the registry lists.
func (s *Server) me(w http.ResponseWriter, r *http.Request) {
	who := callerOf(r.Context())
	out := meView{Principal: who.Name, Grants: []grantView{}, Admin: who.Admin(), Owner: who.IsOwner()}
	ids := who.Forests()
	if who.IsLocal() || who.IsOwner() {
		ids = nil
		for _, f := range s.forests.Visible(who) {
			ids = append(ids, f.ID)
		}
	}
	for _, id := range ids {
		pol, _ := who.Policy(id)
		out.Grants = append(out.Grants, grantOf(id, pol))
	}
	s.writeJSON(w, "me", http.StatusOK, out)
}

func grantOf(id string, pol vine.Policy) grantView {
	g := grantView{Forest: id, Caps: wire.CapNames(pol), Allow: nonNil(pol.Allow), Deny: nonNil(pol.Deny),
		Tables: map[string][]string{}, Roots: wire.Roots(pol)}
	for ds, t := range pol.Datasets {
		g.Tables[ds] = nonNil(t.Tables)
	}
	return g
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}
