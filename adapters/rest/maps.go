// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
)

// mapParams are the query parameters of the map routes (spec 07 §6).
var mapParams = []string{"scope", "limit"}

// graph serves GET /v1/forests/{forest}/graph: the region's nodes and
// the declared edges between them, under the caller's policy.
func (s *Server) graph(w http.ResponseWriter, r *http.Request) {
	s.mapRoute(w, r, "graph", func(sc *vine.Scoped, opt vine.MapOptions) (any, error) {
		return sc.Graph(r.Context(), opt)
	})
}

// trails serves GET /v1/forests/{forest}/trails: the region's persistent
// heat, hottest first.
func (s *Server) trails(w http.ResponseWriter, r *http.Request) {
	s.mapRoute(w, r, "trails", func(sc *vine.Scoped, opt vine.MapOptions) (any, error) {
		return sc.Trails(r.Context(), opt)
	})
}

// mapRoute parses the query, reaches the forest on a reader lane through
// the caller's grant and runs the projection.
func (s *Server) mapRoute(w http.ResponseWriter, r *http.Request, op string, project func(*vine.Scoped, vine.MapOptions) (any, error)) {
	note := s.noteCall(r, r.PathValue("forest"), op) // maps are audited as reads (decision on 09 §18.11)
	note.setArgs(func() record.Args { return queryDigest(op, r) })
	opt, err := mapOptions(r)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	ctx := r.Context()
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	var out any
	err = s.scoped(ctx, who, id, pol, func(_ *vine.Vine, sc *vine.Scoped) error {
		out, err = project(sc, opt)
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, out)
}

// mapOptions reads scope and limit; any other parameter is E_SCHEMA, so
// a misspelt one is never silently ignored.
func mapOptions(r *http.Request) (vine.MapOptions, error) {
	q := r.URL.Query()
	for name := range q {
		if !slices.Contains(mapParams, name) {
			return vine.MapOptions{}, &vine.Error{Code: vine.ESchema,
				Message: "unknown query parameter: " + name,
				Hint:    "map routes take " + strings.Join(mapParams, " and ")}
		}
	}
	limit, err := vine.ParseMapLimit(q.Get("limit"))
	if err != nil {
		return vine.MapOptions{}, err
	}
	return vine.MapOptions{Scope: q.Get("scope"), Limit: limit}, nil
}

// queryDigest is the audit digest of a GET route's query parameters.
func queryDigest(op string, r *http.Request) record.Args {
	args := map[string]any{}
	for k, v := range r.URL.Query() {
		args[k] = strings.Join(v, ",")
	}
	return record.DigestValues(op, args)
}
