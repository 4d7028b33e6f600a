// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/gardener"
)

// recurateSignature is POST /v1/admin/recurate's body.
var recurateSignature = vine.Signature{
	Name: "recurate",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest to re-derive"},
		{Name: "derive", Type: vine.TStringList, Required: true, Doc: `what to re-derive: "aliases" (from the forest's own passports) and/or "scent" (through the host's ingest model)`},
	},
}

// recurateAnswer is the route's answer: the forest and the report.
type recurateAnswer struct {
	Forest string `json:"forest"`
	*gardener.RecurateReport
}

// recurate serves POST /v1/admin/recurate {forest, derive} (J.13.6): the
// members re-derived on the writer lane while the caller waits, each
// changed node one commit stamped with the caller. Like reindex it needs
// admin over the whole forest. "scent" asks the Curator of the host's
// gardener options and is refused with E_SCHEMA when the host bound none;
// it runs here like "aliases", the caller waiting, not as a J.9 job.
// A read-only forest refuses it (E_READONLY) before any write.
func (s *Server) recurate(w http.ResponseWriter, r *http.Request) {
	const op = "recurate"
	note := s.noteCall(r, "", op)
	a, ok := s.postArgs(w, r, op, recurateSignature, note)
	if !ok {
		return
	}
	note.setForest(record.Clip(a.String("forest")))
	who := callerOf(r.Context())
	ctx := stamped(r.Context(), who)
	id, pol, err := s.forests.Grant(who, a.String("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	out := recurateAnswer{Forest: id}
	err = s.on(ctx, who, id, false, func(v *vine.Vine) error {
		sc, err := v.Scoped(pol)
		if err != nil {
			return err
		}
		if !sc.Can(vine.CapAdmin) {
			return needs(op, sc, vine.CapAdmin)
		}
		if !sc.Unrestricted() {
			return envelope.New(envelope.Forbidden, "recurate covers the whole forest; this key sees part of it",
				"a key with admin over the whole forest can recurate it")
		}
		opt := s.gardenerOptions(ctx, filepath.Base(v.Dir()))
		opt.Progress = nil
		out.RecurateReport, err = gardener.New(v, &opt).Recurate(ctx, gardener.RecurateOptions{Derive: a.Strings("derive")})
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, out)
}
