// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/envelope"
)

// ForestGranter records that a principal holds a grant on a forest. A
// host whose key store can grant (the Station's registry) implements it,
// so the creator of a forest can open it at once (spec 08 §9: an
// unopenable new forest is a silent failure).
type ForestGranter interface {
	GrantAll(ctx context.Context, principal, forest string) error
}

var createForestSignature = vine.Signature{
	Name: "create_forest",
	Params: []vine.Param{
		{Name: "id", Type: vine.TString, Required: true, Doc: "the new forest's id: lowercase letters, digits, '-' and '_'"},
		{Name: "title", Type: vine.TString, Required: true, Doc: "the forest's title"},
		{Name: "summary", Type: vine.TString, Doc: "the master branch's summary"},
		{Name: "seed", Type: vine.TString, Doc: "\"demo\" plants a small generated forest to explore; absent means empty"},
	},
}

type createdForest struct {
	Forest struct {
		ID     string `json:"id"`
		Title  string `json:"title"`
		Commit string `json:"commit"`
	} `json:"forest"`
	Grants []vine.Capability `json:"grants"`
}

// allCaps is what a forest's creator is granted on it.
var allCaps = []vine.Capability{vine.CapRead, vine.CapWrite, vine.CapQuery, vine.CapTend, vine.CapIngest,
	vine.CapAdmin, vine.CapAnswer}

// createForest serves POST /v1/admin/forests {id, title, summary?, seed?}
// (spec 08 §9, J.7): exactly vine init, below the registry's root. Its
// authority is admin on some forest or the owner bit: an empty registry
// has no forest to derive authority from.
func (s *Server) createForest(w http.ResponseWriter, r *http.Request) {
	const op = "create_forest"
	note := s.noteCall(r, "", "admin.forest.create")
	a, ok := s.postArgs(w, r, op, createForestSignature, nil)
	if !ok {
		return
	}
	note.setForest(record.Clip(a.String("id")))
	note.setArgs(func() record.Args {
		return record.DigestValues("admin.forest.create", map[string]any{"title": a.String("title"), "seed": a.String("seed")})
	})
	ctx := r.Context()
	who := callerOf(ctx)
	if err := s.mayCreateForest(who.IsOwner(), who.Admin()); err != nil {
		s.refuse(w, op, err)
		return
	}
	seed := a.String("seed")
	if seed != "" && seed != "demo" {
		s.refuse(w, op, envelope.New(envelope.Schema, "unknown seed: "+seed, "seed is \"demo\", or absent for an empty forest"))
		return
	}
	id := a.String("id")
	res, err := s.reg.Create(ctx, id, a.String("title"), &vine.InitOptions{Summary: a.String("summary")})
	if err == nil && seed == "demo" {
		res.Commit, err = s.seedDemo(ctx, id)
	}
	if err == nil && s.opt.Granter != nil && !who.IsOwner() { // the owner holds every forest already
		err = s.opt.Granter.GrantAll(ctx, who.Name, id)
	}
	if err != nil {
		if res != nil {
			s.discardForest(id)
		}
		s.refuse(w, op, err)
		return
	}
	var out createdForest
	out.Forest.ID, out.Forest.Title, out.Forest.Commit = id, res.Title, res.Commit
	out.Grants = allCaps
	s.writeJSON(w, op, http.StatusOK, out)
	if s.opt.OnEvent != nil {
		s.opt.OnEvent(vine.HookEvent{Name: "forest.created", Principal: who.Name, At: time.Now().UTC(),
			Data: map[string]any{"forest": id, "title": res.Title, "seed": seed, "commit": res.Commit}})
	}
}

// mayCreateForest is J.7's authority: the owner bit, or admin on some
// forest when the host can grant the creator the new one.
func (s *Server) mayCreateForest(owner, admin bool) error {
	switch {
	case owner:
		return nil
	case !admin:
		return envelope.New(envelope.Forbidden, "creating a forest needs admin on a forest, or the owner",
			"ask the owner, or an administrator, to create it")
	case s.opt.Granter == nil:
		return envelope.New(envelope.Forbidden, "this server cannot grant you the forest you would create",
			"a host with a key registry (the Station) grants creators their forests; ask the owner")
	}
	return nil
}

// discardForest removes a forest whose creation failed halfway (a seed
// or a grant), so a failed creation leaves nothing behind.
func (s *Server) discardForest(id string) {
	if err := s.lanes.reset(id); err != nil {
		s.log.Warn("closing a failed new forest", "forest", id, "err", err)
	}
	if dir, err := s.reg.Dir(id); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			s.log.Warn("removing a failed new forest", "forest", id, "err", err)
		}
	}
}
