// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/trails"
)

// heatModeSignature is POST /v1/admin/heat-mode's body.
var heatModeSignature = vine.Signature{
	Name: "heat-mode",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest whose heat mode to set"},
		{Name: "mode", Type: vine.TString, Required: true,
			Doc: "conditioned: a node is lifted only for questions like the ones that warmed it; unconditioned: by its heat alone"},
	},
}

// heatModeAnswer is what both heat-mode routes answer.
type heatModeAnswer struct {
	Forest   string          `json:"forest"`
	HeatMode trails.HeatMode `json:"heat_mode"`
}

// heatMode serves GET /v1/admin/heat-mode?forest=: how the forest's
// reads weigh heat (issue 34). The mode ranks every read of the forest,
// so it is a whole-forest admin's, like reindex.
func (s *Server) heatMode(w http.ResponseWriter, r *http.Request) {
	const op = "heat-mode"
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, r.URL.Query().Get("forest"), gateWhole)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	out := heatModeAnswer{Forest: id}
	err = s.on(ctx, callerOf(ctx), id, true, func(v *vine.Vine) error {
		out.HeatMode, err = v.HeatMode(ctx)
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, out)
}

// setHeatMode serves POST /v1/admin/heat-mode {forest, mode}. It writes
// the derived layer only; the readers see the new mode at their next
// read, by the heat file's mark.
func (s *Server) setHeatMode(w http.ResponseWriter, r *http.Request) {
	const op = "heat-mode"
	a, ok := s.postArgs(w, r, op, heatModeSignature, nil)
	if !ok {
		return
	}
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, a.String("forest"), gateWhole)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	out := heatModeAnswer{Forest: id}
	err = s.on(ctx, callerOf(ctx), id, false, func(v *vine.Vine) error {
		if err := v.SetHeatMode(ctx, trails.HeatMode(a.String("mode"))); err != nil {
			return err
		}
		out.HeatMode, err = v.HeatMode(ctx)
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, out)
}
