// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// Route is a host's route served beside the surface's own (the Station's
// doors and governance routes): behind the same guard, with the same
// request id, Server-Timing, access log, metrics and OpenAPI entry.
// With Auth the request's key is resolved first (401 without one, 429
// past its rate) and Caller returns its principal in Handler.
type Route struct {
	Method  string // GET also answers HEAD
	Path    string // a ServeMux path, e.g. /v1/auth/login
	Op      string // the name in the access log, metrics and OpenAPI
	Summary string
	Auth    bool
	Handler http.HandlerFunc
}

// Caller is the principal an authenticated route was called by; nil
// outside one.
func Caller(ctx context.Context) *keys.Principal { return callerOf(ctx) }

// NoEndpoint answers as a path no route serves, byte for byte: a host
// route that must not be seen to exist (the Station's setup door once
// closed) answers with it.
func (s *Server) NoEndpoint(w http.ResponseWriter, r *http.Request) { s.noEndpoint(w, r) }

// Refuse answers err as its envelope with the status of its code; an
// error that is no envelope is E_INTERNAL, its detail logged.
func (s *Server) Refuse(w http.ResponseWriter, op string, err error) { s.refuse(w, op, err) }

// Reopen closes forest's read-only instances; the next read opens them
// again, so a host's per-forest settings applied when a forest opens
// (vine.Options.Opened) reach the readers too.
func (s *Server) Reopen(forest string) error { return s.lanes.reset(forest) }

// OnWriter runs fn on forest's writable instance, on its writer lane,
// for a host's own write (the Station enabling an extension).
func (s *Server) OnWriter(ctx context.Context, forest string, fn func(*vine.Vine) error) error {
	return s.on(ctx, callerOf(ctx), forest, false, fn)
}

// Grant is who's grant on forest: its id and policy, or the refusal a
// route answers (an ungranted forest reads as unknown).
func (s *Server) Grant(who *keys.Principal, forest string) (string, vine.Policy, error) {
	return s.forests.Grant(who, forest)
}

// CallAs calls the primitive name on forest as who would through POST
// /v1/forests/{forest}/{name}: the grant (an ungranted forest answers as
// unknown), the capability, the arguments and every id gated by who's
// policy. A host's own callers use it (an extension calling back for
// the person whose act reached it).
func (s *Server) CallAs(ctx context.Context, who *keys.Principal, forest, name string, args []byte) (any, error) {
	id, pol, err := s.forests.Grant(who, forest)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(s.served, name) || name == ingestName {
		return nil, &vine.Error{Code: vine.ENotFound, Message: "unknown primitive: " + name}
	}
	sig, _ := vine.LookupSignature(name)
	ctx = stamped(ctx, who)
	var out any
	err = s.on(ctx, who, id, sig.ReadOnly, func(v *vine.Vine) error {
		sc, err := v.Scoped(pol)
		if err != nil {
			return err
		}
		out, err = sc.Call(ctx, name, args)
		return err
	})
	return out, err
}

// RefuseWith answers the envelope e with an explicit status, for the
// refusals whose status is not their code's (a failed login is 401
// E_FORBIDDEN, a closed door's window 429 E_FORBIDDEN).
func (s *Server) RefuseWith(w http.ResponseWriter, status int, e *vine.Error) {
	writeEnvelope(w, status, e)
}

// WriteJSON answers v as JSON with status.
func (s *Server) WriteJSON(w http.ResponseWriter, op string, status int, v any) {
	s.writeJSON(w, op, status, v)
}

// hostRoutes are the Options' routes as table entries.
func (s *Server) hostRoutes() []route {
	out := make([]route, 0, len(s.opt.Routes))
	for _, r := range s.opt.Routes {
		out = append(out, route{r.Method, r.Path, r.Op, r.Summary, r.Auth, r.Handler})
	}
	return out
}

// withHealthFields adds the host's fields to the health report.
func (s *Server) withHealthFields(r *http.Request, rep any) any {
	if s.opt.HealthFields == nil {
		return rep
	}
	return withFields(rep, s.opt.HealthFields(r))
}

// withFields is the JSON object rep with fields added; rep itself when it
// does not render as an object.
func withFields(rep any, fields map[string]any) any {
	data, err := json.Marshal(rep)
	if err != nil {
		return rep
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || m == nil {
		return rep
	}
	for k, v := range fields {
		m[k] = v
	}
	return m
}

// GauntletSwitch is a host's per-forest switch of the Gauntlet (09 §12,
// forest_settings.gauntlet in the Station): off, the forest's instances
// run without an embedder.
type GauntletSwitch interface {
	GauntletEnabled(ctx context.Context, forest string) (bool, error)
	SetGauntlet(ctx context.Context, forest string, enabled bool) error
}
